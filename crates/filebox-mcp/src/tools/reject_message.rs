//! `reject_message`: the message will not be acted on; it moves to cancel.

use std::sync::Arc;

use filebox_api::RejectArgs;
use filebox_core::{Mailroom, Transition};
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};

use super::transition;

pub(super) const NAME: &str = "reject_message";

pub(super) fn definition() -> Tool {
    transition::definition::<RejectArgs>(
        NAME,
        "Reject a message",
        "Reject a message of your inbox (or hold): the reason goes into its processing history \
         and it moves to cancel. Say why, so the sender can do better.",
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: RejectArgs,
) -> Result<CallToolResult, ErrorData> {
    transition::call(mailroom, Transition::Reject, args.id, args.reason).await
}
