//! Progress notifications while a tool call runs: about once a second, for a client that sent
//! a progress token, so a long `wait_for_messages` shows it is alive.

use std::future::Future;
use std::time::Duration;

use rmcp::model::ProgressNotificationParam;
use rmcp::service::{RequestContext, RoleServer};
use tokio::time::{Instant, MissedTickBehavior};

/// How often a running call reports that it is still running.
const TICK: Duration = Duration::from_secs(1);

/// Await `work`, notifying progress every [`TICK`] with `total` (a call's `timeout`, in
/// seconds, when it has one) until it ends.
pub(super) async fn report_while<F: Future>(
    work: F,
    context: &RequestContext<RoleServer>,
    total: Option<f64>,
) -> F::Output {
    tokio::pin!(work);
    let progress = context.meta.get_progress_token();
    let start = Instant::now();
    let mut ticks = tokio::time::interval_at(start + TICK, TICK);
    ticks.set_missed_tick_behavior(MissedTickBehavior::Skip);
    loop {
        tokio::select! {
            result = &mut work => return result,
            _ = ticks.tick() => {
                let Some(token) = &progress else { continue };
                let mut note =
                    ProgressNotificationParam::new(token.clone(), start.elapsed().as_secs_f64())
                        .with_message("still running");
                if let Some(total) = total {
                    note = note.with_total(total);
                }
                // A client that went away cannot be told; the call ends with its cancellation.
                let _ = context.peer.notify_progress(note).await;
            }
        }
    }
}
