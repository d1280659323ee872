//! `list_messages`: a folder of my mailbox, oldest first, filtered.

use std::sync::Arc;

use filebox_api::{ListArgs, ListResult, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};

use super::{Effect, outcome};
use crate::{blocking, render};

pub(super) const NAME: &str = "list_messages";

pub(super) fn definition() -> Tool {
    super::definition::<ListArgs, ListResult>(
        NAME,
        "List messages",
        "List the messages in one folder of your mailbox (inbox by default), oldest first, \
         optionally only those from one sender or of one type. Each entry has the Message ID to \
         pass to read_message, resolve_message, reject_message or hold_message.",
        Effect::ReadOnly,
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: ListArgs,
) -> Result<CallToolResult, ErrorData> {
    let result = blocking::run(Arc::clone(mailroom), move |m| verbs::list(&m, &args)).await;
    outcome::respond(result, render)
}

/// Seed 000's listing lines, then the files that were skipped.
fn render(listing: &ListResult) -> String {
    let mut text = if listing.messages.is_empty() {
        "No messages.".to_owned()
    } else {
        listing
            .messages
            .iter()
            .map(render::message_line)
            .collect::<Vec<_>>()
            .join("\n")
    };
    for skipped in &listing.skipped {
        text.push_str(&format!("\nskipped {}: {}", skipped.path, skipped.reason));
    }
    text
}
