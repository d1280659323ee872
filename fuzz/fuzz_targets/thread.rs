//! The thread builder over random mailboxes: messages whose ids, replies, references, forks
//! and obsolete marks point at each other at random (cycles, self-references, missing
//! parents, one message in several folders and mailboxes) always give a tree: every node
//! once, each child right below its parent, depths consistent.
#![no_main]

use std::collections::HashSet;

use filebox_core::fuzzing::build_thread;
use filebox_core::message::parse;
use filebox_core::{AgentId, Folder};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

const AGENTS: [&str; 3] = ["a", "b", "c"];
const TIMES: [&str; 4] = [
    "2025-06-27T15:30:00Z",
    "2025-06-27T15:31:00Z",
    "2025-06-28T09:00:00Z",
    "not a time",
];

fn id(u: &mut Unstructured) -> Result<String> {
    Ok(format!("m{}", u.int_in_range(0..=5u8)?))
}

fn maybe_id(u: &mut Unstructured) -> Result<Option<String>> {
    Ok(if u.ratio(1, 3)? { Some(id(u)?) } else { None })
}

/// One message file, written as a tool would write it, then read by the real parser.
fn message_text(u: &mut Unstructured) -> Result<String> {
    let mut text = format!("# ER: title {}\n\n", u.int_in_range(0..=9u8)?);
    text += &format!("**Message ID:** {}\n", id(u)?);
    text += &format!("**Sender:** {}\n", u.choose(&AGENTS)?);
    text += &format!("**Receiver:** {}\n", u.choose(&AGENTS)?);
    text += &format!("**Timestamp:** {}\n", u.choose(&TIMES)?);
    if let Some(parent) = maybe_id(u)? {
        text += &format!("**In Reply To:** {parent}\n");
    }
    if let Some(thread) = maybe_id(u)? {
        text += &format!("**Thread ID:** {thread}\n");
    }
    if let Some(from) = maybe_id(u)? {
        text += &format!("**Forked From:** {from}\n**Fork Reason:** direction-change\n");
    }
    if let Some(gone) = maybe_id(u)? {
        text += &format!("**Obsoletes:** {gone}, {}#1\n", id(u)?);
    }
    if u.ratio(1, 4)? {
        text += "**Status:** obsolete\n";
    }
    text += "\n---\n\n## Original Request/Content\n\nbody\n\n## Conversation History\n\n";
    for _ in 0..u.int_in_range(0..=3u8)? {
        text += &format!(
            "### {} - {} to {} (DIS)\n\nreply\n\n",
            u.choose(&TIMES)?,
            u.choose(&AGENTS)?,
            u.choose(&AGENTS)?
        );
    }
    text += "## Processing History\n\n";
    Ok(text)
}

fn run(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    let mut copies = Vec::new();
    for n in 0..u.int_in_range(1..=12u8)? {
        let text = message_text(&mut u)?;
        let message = parse(&text).expect("a generated message parses");
        let agent = AgentId::new(u.choose(&AGENTS)?).expect("a valid agent id");
        let folder = *u.choose(&Folder::ALL)?;
        copies.push((agent, folder, format!("{n}.md"), message));
    }
    let thread_id = id(&mut u)?;
    let thread = build_thread(&thread_id, copies);

    let mut seen = HashSet::new();
    let mut path: Vec<&str> = Vec::new(); // ids of the current node's ancestors
    for node in &thread.nodes {
        assert!(seen.insert(node.id.as_str()), "{} twice", node.id);
        assert!(node.depth <= path.len(), "{} jumps a level", node.id);
        path.truncate(node.depth);
        if node.depth > 0 {
            assert_eq!(node.parent.as_deref(), path.last().copied(), "{}", node.id);
        }
        path.push(&node.id);
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    let _ = run(data);
});
