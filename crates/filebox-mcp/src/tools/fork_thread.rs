//! `fork_thread`: start a thread again from an earlier node with compressed context; what
//! came after that node on its branch becomes obsolete.

use std::sync::Arc;

use filebox_api::{ForkArgs, ForkResult, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};

use super::{Effect, outcome};
use crate::blocking;

pub(super) const NAME: &str = "fork_thread";

pub(super) fn definition() -> Tool {
    super::definition::<ForkArgs, ForkResult>(
        NAME,
        "Fork a thread",
        "Start a thread again from an earlier message or reply (from; get_thread shows the \
         nodes) with a new message carrying the compressed context, sent to whoever received \
         the fork point unless to is given. Every later node on that branch is marked obsolete \
         (Status header) and listed in the new message; nothing is deleted. reason must be \
         context-compression or direction-change. Returns the new Message ID and the nodes made \
         obsolete.",
        Effect::Updates,
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: ForkArgs,
) -> Result<CallToolResult, ErrorData> {
    let result = blocking::run(Arc::clone(mailroom), move |m| verbs::fork(&m, &args)).await;
    outcome::respond(result, render)
}

fn render(fork: &ForkResult) -> String {
    let obsoleted = if fork.obsoleted.is_empty() {
        "nothing".to_owned()
    } else {
        fork.obsoleted.join(", ")
    };
    format!(
        "Forked thread {} from {} ({}): new message {} to {} ({}). Now obsolete: {obsoleted}.",
        fork.thread,
        fork.forked_from,
        fork.reason,
        fork.id,
        fork.delivered_to.join(", "),
        fork.file
    )
}
