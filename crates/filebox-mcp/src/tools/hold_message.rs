//! `hold_message`: the message waits; it moves to hold.

use std::sync::Arc;

use filebox_api::HoldArgs;
use filebox_core::{Mailroom, Transition};
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};

use super::transition;

pub(super) const NAME: &str = "hold_message";

pub(super) fn definition() -> Tool {
    transition::definition::<HoldArgs>(
        NAME,
        "Put a message on hold",
        "Put a message of your inbox on hold: the reason goes into its processing history and it \
         moves to hold, from where resolve_message or reject_message can still finish it.",
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: HoldArgs,
) -> Result<CallToolResult, ErrorData> {
    transition::call(mailroom, Transition::Hold, args.id, args.reason).await
}
