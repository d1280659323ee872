//! `resolve_message`: the message is dealt with; it moves to done.

use std::sync::Arc;

use filebox_api::ResolveArgs;
use filebox_core::{Mailroom, Transition};
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};

use super::transition;

pub(super) const NAME: &str = "resolve_message";

pub(super) fn definition() -> Tool {
    transition::definition::<ResolveArgs>(
        NAME,
        "Resolve a message",
        "Mark a message of your inbox (or hold) as resolved: the details go into its processing \
         history and it moves to done. Fails with already_handled if it was resolved, rejected \
         or answered meanwhile.",
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: ResolveArgs,
) -> Result<CallToolResult, ErrorData> {
    transition::call(mailroom, Transition::Resolve, args.id, args.details).await
}
