//! Write a [`Message`] as Markdown: title line, fields, `---`, the original content, then the
//! conversation and processing histories.

use std::fmt::Write;

use super::Message;
use super::header::field;
use super::structure::{Section, escape};

/// Render the whole file. `parse(render(m)) == m` for every message the core builds.
pub fn render(message: &Message) -> String {
    let header = &message.header;
    let mut out = String::with_capacity(message.body.len() + 1024);
    let _ = writeln!(out, "# {}: {}\n", header.kind, header.title);
    let _ = writeln!(
        out,
        "**{}:** {}",
        field::FORMAT_VERSION,
        header.effective_version()
    );
    for (key, value) in header.fields() {
        if !key.eq_ignore_ascii_case(field::FORMAT_VERSION) {
            let _ = writeln!(out, "**{key}:** {value}");
        }
    }
    out.push_str("\n---\n\n");
    let _ = write!(
        out,
        "{}\n\n{}\n\n---\n\n",
        Section::Original.heading(),
        escape(&message.body)
    );
    let _ = write!(out, "{}\n\n", Section::Conversation.heading());
    for entry in &message.conversation {
        let _ = write!(
            out,
            "### {} - {} to {} ({})\n\n{}\n\n",
            entry.timestamp,
            entry.from,
            entry.to,
            entry.kind,
            escape(&entry.body)
        );
    }
    let _ = write!(out, "---\n\n{}\n\n", Section::Processing.heading());
    for entry in &message.processing {
        let mut details = entry.details.split('\n');
        let first = details.next().unwrap_or_default();
        if entry.timestamp.is_empty() && entry.action.is_empty() && entry.by.is_empty() {
            // A hand-written line that is not `TS - Action by X: details` stays free text.
            let _ = writeln!(out, "* {first}");
        } else {
            let _ = writeln!(
                out,
                "* {} - {} by {}: {}",
                entry.timestamp, entry.action, entry.by, first
            );
        }
        // Continuation lines are indented so they stay part of the list item.
        for line in details {
            let _ = writeln!(out, "  {line}");
        }
    }
    out
}
