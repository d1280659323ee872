//! `filebox thread <message>` (a tree) and `filebox threads` (mine, newest activity first).

use filebox_api::{ThreadNodeView, verbs};

use super::mailroom;
use crate::cli::{Global, ThreadArgs, ThreadsArgs};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &ThreadArgs) -> anyhow::Result<Outcome> {
    let result = verbs::thread(
        &mailroom(global)?,
        &filebox_api::ThreadArgs {
            id: args.message.clone(),
        },
    )?;
    output::either(global.json, &result, |t| {
        std::iter::once(format!("thread {}", t.thread))
            .chain(t.nodes.iter().map(line))
            .collect()
    })?;
    Ok(Outcome::Success)
}

/// `2025-06-27T15:30:00Z qa → dev ER [delivered] Title (id)`, indented by depth.
fn line(node: &ThreadNodeView) -> String {
    let mut marks = String::new();
    if let Some(reason) = &node.fork_reason {
        marks.push_str(&format!(" ⑂ fork ({reason})"));
    }
    if node.obsolete {
        marks.push_str(" ✗ obsolete");
    }
    if node.parent_missing {
        let parent = node.parent.as_deref().unwrap_or_default();
        marks.push_str(&format!(" (answers {parent}, not found)"));
    }
    let indent = "  ".repeat(node.depth);
    let branch = if node.depth > 0 { "└ " } else { "" };
    format!(
        "{indent}{branch}{} {} → {} {} [{}] {} ({}){marks}",
        node.timestamp, node.from, node.to, node.kind, node.status, node.title, node.id
    )
}

pub(crate) fn run_list(global: &Global, args: &ThreadsArgs) -> anyhow::Result<Outcome> {
    let result = verbs::threads(
        &mailroom(global)?,
        &filebox_api::ThreadsArgs {
            limit: Some(args.limit),
        },
    )?;
    output::either(global.json, &result.threads, |threads| {
        threads
            .iter()
            .map(|t| {
                format!(
                    "{} {} ({} messages) {}",
                    t.last_activity, t.title, t.messages, t.thread
                )
            })
            .collect()
    })?;
    Ok(Outcome::Success)
}
