//! `wait_for_messages`: block until mail reaches my inbox (`filebox_api::verbs::wait`, woken by
//! file-system notification), with progress notifications while waiting and the MCP request's
//! cancellation wired into the wait.

use std::sync::Arc;
use std::time::Duration;

use filebox_api::{WaitArgs, WaitResult, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ProgressNotificationParam, Tool};
use rmcp::service::{RequestContext, RoleServer};
use tokio::time::{Instant, MissedTickBehavior};

use super::{Effect, outcome};
use crate::{blocking, render};

pub(super) const NAME: &str = "wait_for_messages";

/// How often a waiter reports that it is still waiting.
const TICK: Duration = Duration::from_secs(1);

pub(super) fn definition() -> Tool {
    super::definition::<WaitArgs, WaitResult>(
        NAME,
        "Wait for messages",
        "Return the messages in your inbox that no earlier wait has returned, oldest first: \
         at once if there are some, else as soon as one arrives. Not read-only: it advances \
         the wait cursor it shares with `filebox wait` (one per mailbox), so what one returns \
         the other will not. A message that comes back with a reply counts as new again. The very first wait on a mailbox counts what is already there as \
         returned: call list_messages for that. Returns an empty list when the timeout passes \
         (omitted: wait until mail comes or the call is cancelled). Sends progress \
         notifications about once a second while it waits.",
        Effect::Updates,
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: WaitArgs,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let total = args.timeout.map(|seconds| seconds as f64);
    // The blocking wait checks the request's token every few tens of milliseconds, so a
    // `notifications/cancelled` (or the session ending) frees its thread promptly.
    let cancel = context.ct.clone();
    let wait = blocking::run(Arc::clone(mailroom), move |m| {
        verbs::wait(&m, &args, &|| cancel.is_cancelled())
    });
    tokio::pin!(wait);
    let progress = context.meta.get_progress_token();
    let start = Instant::now();
    let mut ticks = tokio::time::interval_at(start + TICK, TICK);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Skip);
    let result = loop {
        tokio::select! {
            result = &mut wait => break result,
            _ = ticks.tick() => {
                let Some(token) = &progress else { continue };
                let mut note =
                    ProgressNotificationParam::new(token.clone(), start.elapsed().as_secs_f64())
                        .with_message("waiting for mail");
                if let Some(total) = total {
                    note = note.with_total(total);
                }
                // A client that went away cannot be told; the wait ends with its cancellation.
                let _ = context.peer.notify_progress(note).await;
            }
        }
    };
    outcome::respond(result, render)
}

fn render(waited: &WaitResult) -> String {
    if waited.messages.is_empty() {
        return "No new mail (the wait timed out or was cancelled).".to_owned();
    }
    let lines: Vec<String> = waited.messages.iter().map(render::message_line).collect();
    format!("New mail:\n{}", lines.join("\n"))
}
