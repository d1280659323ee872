//! `send_message`: a new message to other agents, or a reply with `reply_to`.

use std::sync::Arc;

use filebox_api::{SendArgs, SendResult, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};

use super::{Effect, outcome};
use crate::blocking;

pub(super) const NAME: &str = "send_message";

pub(super) fn definition() -> Tool {
    super::definition::<SendArgs, SendResult>(
        NAME,
        "Send a message",
        "Send a Markdown message to one or more agents (their inbox gets it, your outbox keeps a \
         copy), or answer a message with reply_to: the reply is appended to that message's \
         conversation and the message moves to the recipient. Returns the Message ID.",
        Effect::Additive,
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: SendArgs,
) -> Result<CallToolResult, ErrorData> {
    let result = blocking::run(Arc::clone(mailroom), move |m| verbs::send(&m, &args)).await;
    outcome::respond(result, |sent| {
        format!(
            "Sent message {} to {} ({}).",
            sent.id,
            sent.delivered_to.join(", "),
            sent.file
        )
    })
}
