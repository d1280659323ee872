//! `wait_for_messages`: block until mail arrives in my inbox or the timeout passes, with
//! progress notifications while waiting.

use std::sync::Arc;
use std::time::Duration;

use filebox_api::MessageSummary;
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ProgressNotificationParam, Tool};
use rmcp::service::{RequestContext, RoleServer};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};
use tokio::sync::mpsc;

use super::{Effect, outcome};
use crate::{inbox, render};

pub(super) const NAME: &str = "wait_for_messages";

/// The longest wait one call may ask for, in seconds.
const MAX_TIMEOUT: f64 = 600.0;
/// The wait when none is given, in seconds: under the 60 s request timeout many hosts use.
const DEFAULT_TIMEOUT: f64 = 30.0;

/// Arguments of `wait_for_messages`.
// Defined here, not in filebox-api, until the core's waiter lands with the JSON-RPC verb that
// will share it; then it moves there unchanged.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct WaitArgs {
    /// How long to wait at most, in seconds (0 to 600; default 30).
    #[serde(default)]
    #[schemars(range(min = 0, max = 600))]
    pub(crate) timeout: Option<f64>,
}

/// The result of `wait_for_messages`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
pub(crate) struct WaitResult {
    /// The messages that arrived in the inbox while waiting (empty when the wait timed out).
    pub(crate) messages: Vec<MessageSummary>,
    /// Whether the timeout passed with no new mail.
    pub(crate) timed_out: bool,
}

pub(super) fn definition() -> Tool {
    super::definition::<WaitArgs, WaitResult>(
        NAME,
        "Wait for messages",
        "Wait until new mail arrives in your inbox, or until the timeout passes, and return the \
         messages that arrived. Mail already in the inbox when the call starts is not returned: \
         call list_messages first. Sends progress notifications while it waits.",
        Effect::ReadOnly,
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: WaitArgs,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let seconds = args.timeout.unwrap_or(DEFAULT_TIMEOUT);
    if !(0.0..=MAX_TIMEOUT).contains(&seconds) {
        return Ok(outcome::invalid(&format!(
            "timeout {seconds} is out of range: give 0 to {MAX_TIMEOUT} seconds"
        )));
    }
    let (ticks, mut waited) = mpsc::channel(4);
    let wait = inbox::wait_for_mail(
        mailroom,
        Duration::from_secs_f64(seconds),
        &context.ct,
        ticks,
    );
    let report = async {
        let progress = context.meta.get_progress_token();
        while let Some(elapsed) = waited.recv().await {
            if let Some(token) = &progress {
                let note = ProgressNotificationParam::new(token.clone(), elapsed.as_secs_f64())
                    .with_total(seconds)
                    .with_message("waiting for mail");
                // A client that went away cannot be told; the wait ends with its cancellation.
                let _ = context.peer.notify_progress(note).await;
            }
        }
    };
    let (arrived, ()) = tokio::join!(wait, report);
    let result = arrived.map(|envelopes| WaitResult {
        timed_out: envelopes.is_empty(),
        messages: envelopes.iter().map(MessageSummary::from).collect(),
    });
    outcome::respond(result, render)
}

fn render(waited: &WaitResult) -> String {
    if waited.timed_out {
        return "No new mail before the timeout.".to_owned();
    }
    let lines: Vec<String> = waited.messages.iter().map(render::message_line).collect();
    format!("New mail:\n{}", lines.join("\n"))
}
