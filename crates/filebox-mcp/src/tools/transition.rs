//! What `resolve_message`, `reject_message` and `hold_message` share: each records a line in
//! the processing history and moves the message out of the inbox.

use std::sync::Arc;

use filebox_api::{TransitionResult, verbs};
use filebox_core::{Mailroom, Transition};
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};
use schemars::JsonSchema;

use super::{Effect, outcome};
use crate::blocking;

pub(super) fn definition<Args: JsonSchema + 'static>(
    name: &'static str,
    title: &'static str,
    description: &'static str,
) -> Tool {
    super::definition::<Args, TransitionResult>(name, title, description, Effect::Changes)
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    transition: Transition,
    id: String,
    details: String,
) -> Result<CallToolResult, ErrorData> {
    let result = blocking::run(Arc::clone(mailroom), move |m| {
        verbs::transition(&m, transition, &id, &details)
    })
    .await;
    outcome::respond(result, |moved| {
        format!(
            "Moved message {} to {} ({}).",
            moved.id, moved.folder, moved.file
        )
    })
}
