//! `get_thread`: the whole thread of a message, merged across every mailbox.

use std::sync::Arc;

use filebox_api::{ThreadArgs, ThreadResult, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};

use super::{Effect, outcome};
use crate::{blocking, render};

pub(super) const NAME: &str = "get_thread";

pub(super) fn definition() -> Tool {
    super::definition::<ThreadArgs, ThreadResult>(
        NAME,
        "Get a thread",
        "Show the whole thread a message belongs to, merged from every mailbox: each message \
         and conversation reply once (replies as id#n), as a tree in time order with who wrote \
         to whom, status, forks and the nodes a fork made obsolete. Gives ids and titles, not \
         bodies: read_message opens a message of your mailbox whole.",
        Effect::ReadOnly,
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: ThreadArgs,
) -> Result<CallToolResult, ErrorData> {
    let result = blocking::run(Arc::clone(mailroom), move |m| verbs::thread(&m, &args)).await;
    outcome::respond(result, render::thread_markdown)
}
