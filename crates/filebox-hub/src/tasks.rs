//! The hub's long-lived tasks (the event follower, the webhook sender, the runners, each
//! bridge, the federation) run under [`keep_running`]: a run that fails (a transient error such
//! as running out of file descriptors, or a panic) is tried again with backoff until the hub
//! stops, and [`Tasks`](crate::task_states::Tasks) says which are down, with their last error, and which run but cannot
//! do all of their work (a bridge refusing a team file), for `/healthz`.

use std::future::Future;
use std::sync::Arc;
use std::time::Duration;

use anyhow::Context;

use crate::hub::Hub;
use crate::task_states::{Run, State};

/// The wait before the first retry; it doubles after each failure in a row.
const FIRST_RETRY: Duration = Duration::from_millis(100);
/// The longest wait between two runs.
const MAX_RETRY: Duration = Duration::from_secs(30);

/// Run `run` until it returns `Ok` (its work is done, or the hub stops) or the hub stops.
/// After a failure the task is reported down and run again after a wait that doubles from
/// [`FIRST_RETRY`] to [`MAX_RETRY`], back to the first once a run came up.
pub(crate) async fn keep_running<F, Fut>(hub: Hub, name: String, mut run: F)
where
    F: FnMut(Run) -> Fut,
    Fut: Future<Output = anyhow::Result<()>>,
{
    let tasks = hub.tasks();
    let stop = hub.sessions();
    tasks.set(&name, State::Starting);
    let mut wait = FIRST_RETRY;
    loop {
        let this_run = Run::new(Arc::clone(&tasks), name.clone());
        let error = match run(this_run).await {
            Ok(()) => return,
            Err(error) => filebox_api::describe(error.as_ref()),
        };
        if stop.is_cancelled() {
            return;
        }
        tracing::warn!("{name} failed (tried again): {error}");
        if matches!(
            tasks.set(&name, State::Down(error)),
            State::Up | State::Degraded(_)
        ) {
            wait = FIRST_RETRY;
        }
        tokio::select! {
            () = stop.cancelled() => return,
            () = tokio::time::sleep(wait) => {}
        }
        wait = (wait * 2).min(MAX_RETRY);
    }
}

/// `work` on a thread of its own, as a run's result: a panic is a failure like any other.
/// Not tokio's blocking pool: a runtime dropped without the hub being stopped (a test that
/// ends) waits for every task of that pool, and these run until the hub stops.
pub(crate) async fn blocking<T: Send + 'static>(
    work: impl FnOnce() -> anyhow::Result<T> + Send + 'static,
) -> anyhow::Result<T> {
    let (sender, result) = tokio::sync::oneshot::channel();
    std::thread::Builder::new()
        .spawn(move || {
            let _ = sender.send(work());
        })
        .context("starting a thread for a task")?;
    result
        .await
        .map_err(|_| anyhow::anyhow!("the task's thread ended abnormally (it panicked)"))?
}
