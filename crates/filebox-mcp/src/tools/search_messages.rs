//! `search_messages`: full text and filters over my mailbox (or every mailbox), newest first.

use std::sync::Arc;

use filebox_api::{SearchArgs, SearchHit, SearchResult, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};

use super::{Effect, outcome};
use crate::blocking;

pub(super) const NAME: &str = "search_messages";

pub(super) fn definition() -> Tool {
    super::definition::<SearchArgs, SearchResult>(
        NAME,
        "Search messages",
        "Search your mailbox (every folder, or every mailbox with all) for words in titles, \
         bodies and conversations, in any language, optionally filtered by sender, type, \
         folder, thread, status or date. Returns the hits with the most recent activity first \
         (20 unless limit says otherwise), each with a snippet around the match and the Message \
         ID to pass to read_message or get_thread.",
        Effect::ReadOnly,
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: SearchArgs,
) -> Result<CallToolResult, ErrorData> {
    let result = blocking::run(Arc::clone(mailroom), move |m| verbs::search(&m, &args)).await;
    outcome::respond(result, render)
}

fn render(found: &SearchResult) -> String {
    if found.hits.is_empty() {
        return "No messages match.".to_owned();
    }
    found.hits.iter().map(hit).collect::<Vec<_>>().join("\n")
}

/// `2025-06-27T15:30:00Z ER Title [delivered] (qa's inbox) [id …]`, then the snippet.
fn hit(hit: &SearchHit) -> String {
    format!(
        "{} {} {} [{}] ({}'s {}) [id {}]\n  {}",
        hit.last_activity,
        hit.kind,
        hit.title,
        hit.status,
        hit.mailbox,
        hit.folder,
        hit.id,
        hit.snippet.replace('\n', " ")
    )
}
