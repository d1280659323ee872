//! The thread builder over random mailboxes: messages whose ids, replies, references, forks
//! and obsolete marks point at each other at random (cycles, self-references, missing
//! parents, one message in several folders and mailboxes) always give a tree: every node
//! once, each child right below its parent, depths consistent.
#![no_main]

use std::collections::HashSet;

use filebox_core::fuzzing::build_thread;
use filebox_core::message::{ConversationEntry, Header, Message, field};
use filebox_core::{AgentId, Folder, MessageType};
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

/// One message as the parser gives it for a file a tool wrote (the parser itself is the
/// `message` target's): built in memory, so an input costs the builder, not up to 12 parses.
fn message(u: &mut Unstructured) -> Result<Message> {
    let kind = MessageType::new("ER").expect("a valid type");
    let mut header = Header::new(&kind, &format!("title {}", u.int_in_range(0..=9u8)?));
    header.set(field::MESSAGE_ID, &id(u)?);
    header.set(field::SENDER, u.choose(&AGENTS)?);
    header.set(field::RECEIVER, u.choose(&AGENTS)?);
    header.set(field::TIMESTAMP, u.choose(&TIMES)?);
    if let Some(parent) = maybe_id(u)? {
        header.set(field::IN_REPLY_TO, &parent);
    }
    if let Some(thread) = maybe_id(u)? {
        header.set(field::THREAD_ID, &thread);
    }
    if let Some(from) = maybe_id(u)? {
        header.set(field::FORKED_FROM, &from);
        header.set(field::FORK_REASON, "direction-change");
    }
    if let Some(gone) = maybe_id(u)? {
        header.set(field::OBSOLETES, &format!("{gone}, {}#1", id(u)?));
    }
    if u.ratio(1, 4)? {
        header.set(field::STATUS, "obsolete");
    }
    let mut conversation = Vec::new();
    for _ in 0..u.int_in_range(0..=3u8)? {
        conversation.push(ConversationEntry {
            timestamp: (*u.choose(&TIMES)?).to_owned(),
            from: (*u.choose(&AGENTS)?).to_owned(),
            to: (*u.choose(&AGENTS)?).to_owned(),
            kind: "DIS".to_owned(),
            body: "reply".to_owned(),
        });
    }
    Ok(Message {
        header,
        body: "body".to_owned(),
        conversation,
        processing: Vec::new(),
    })
}

fn run(data: &[u8]) -> Result<()> {
    let mut u = Unstructured::new(data);
    let mut copies = Vec::new();
    for n in 0..u.int_in_range(1..=12u8)? {
        let message = message(&mut u)?;
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
