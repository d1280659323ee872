//! `list_threads`: the threads of my mailbox, most recently active first.

use std::sync::Arc;

use filebox_api::{ThreadsArgs, ThreadsResult, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};

use super::{Effect, outcome};
use crate::blocking;

pub(super) const NAME: &str = "list_threads";

pub(super) fn definition() -> Tool {
    super::definition::<ThreadsArgs, ThreadsResult>(
        NAME,
        "List threads",
        "List the threads of your mailbox, most recently active first (20 unless limit says \
         otherwise): each thread's id (for get_thread, or the thread filter of list_messages \
         and search_messages), title, how many of its messages you hold, and its last activity.",
        Effect::ReadOnly,
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: ThreadsArgs,
) -> Result<CallToolResult, ErrorData> {
    let result = blocking::run(Arc::clone(mailroom), move |m| verbs::threads(&m, &args)).await;
    outcome::respond(result, render)
}

fn render(listed: &ThreadsResult) -> String {
    if listed.threads.is_empty() {
        return "No threads.".to_owned();
    }
    listed
        .threads
        .iter()
        .map(|t| {
            format!(
                "{} {} ({} messages) [thread {}]",
                t.last_activity, t.title, t.messages, t.thread
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
