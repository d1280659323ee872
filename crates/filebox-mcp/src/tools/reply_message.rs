//! `reply_message`: answer a message, to its Reply To or else its sender.

use std::sync::Arc;

use filebox_api::{ReplyArgs, SendResult, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};

use super::{Effect, outcome};
use crate::blocking;

pub(super) const NAME: &str = "reply_message";

pub(super) fn definition() -> Tool {
    super::definition::<ReplyArgs, SendResult>(
        NAME,
        "Reply to a message",
        "Answer a message of your mailbox: the reply is appended to its conversation and the \
         file moves to whoever should get the answer (its Reply To when set, else the agent who \
         sent it to you). Type DIS unless given. send_message with reply_to does the same with \
         an explicit recipient.",
        Effect::Updates,
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: ReplyArgs,
) -> Result<CallToolResult, ErrorData> {
    let result = blocking::run(Arc::clone(mailroom), move |m| verbs::reply(&m, &args)).await;
    outcome::respond(result, |sent| {
        format!(
            "Replied to message {}: sent to {} ({}).",
            sent.id,
            sent.delivered_to.join(", "),
            sent.file
        )
    })
}
