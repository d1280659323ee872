//! Readable text shared by tool results and resources.

use filebox_api::{MessageSummary, ThreadNodeView, ThreadResult};

/// Seed 000's listing line with the Message ID a tool call needs.
pub(crate) fn message_line(message: &MessageSummary) -> String {
    format!("{} [id {}]", message.line, message.id)
}

/// A thread as Markdown: a heading, then one nested list item per node in tree order (replies
/// under what they answer, forks under their fork point), each with the id a tool call needs.
pub(crate) fn thread_markdown(thread: &ThreadResult) -> String {
    let title = thread
        .nodes
        .first()
        .map_or("(no messages)", |root| root.title.as_str());
    let mut text = format!("# Thread: {title}\n\nThread ID: {}\n\n", thread.thread);
    for node in &thread.nodes {
        text.push_str(&"  ".repeat(node.depth));
        text.push_str("- ");
        text.push_str(&thread_node_line(node));
        text.push('\n');
    }
    text
}

/// `2025-06-27T15:30:00Z qa → dev ER **Title** [delivered] (id …)`, with fork, obsolete and
/// missing-parent marks.
fn thread_node_line(node: &ThreadNodeView) -> String {
    let mut line = format!(
        "{} {} → {} {} **{}** [{}] (id {}; {}'s {}, {})",
        node.timestamp,
        node.from,
        node.to,
        node.kind,
        node.title,
        node.status,
        node.id,
        node.mailbox,
        node.folder,
        node.file
    );
    if let Some(reason) = &node.fork_reason {
        line.push_str(&format!(" — fork: {reason}"));
    }
    if node.obsolete {
        line.push_str(" — obsolete");
    }
    if node.parent_missing {
        let parent = node.parent.as_deref().unwrap_or_default();
        line.push_str(&format!(" — answers {parent}, which no mailbox holds"));
    }
    line
}
