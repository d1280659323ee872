//! The hub's long-lived tasks (the event follower, the webhook sender, the runners, each
//! bridge, the federation) run under [`keep_running`]: a run that fails (a transient error such
//! as running out of file descriptors, or a panic) is tried again with backoff until the hub
//! stops, and [`Tasks`] says which are down, with their last error, and which run but cannot
//! do all of their work (a bridge refusing a team file), for `/healthz`.

use std::collections::BTreeMap;
use std::future::Future;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;

use crate::hub::Hub;

/// The wait before the first retry; it doubles after each failure in a row.
const FIRST_RETRY: Duration = Duration::from_millis(100);
/// The longest wait between two runs.
const MAX_RETRY: Duration = Duration::from_secs(30);

/// Where each task stands, by name.
#[derive(Debug, Default)]
pub(crate) struct Tasks {
    states: Mutex<BTreeMap<String, State>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
enum State {
    /// Started, not ready yet (the first run of a task is not a fault).
    Starting,
    Up,
    /// Running, but part of its work is not done, for this reason (it says when that ends).
    Degraded(String),
    /// The last run failed with this error; it is tried again.
    Down(String),
}

impl Tasks {
    fn set(&self, name: &str, state: State) -> State {
        let mut states = self.states.lock().unwrap_or_else(|e| e.into_inner());
        states
            .insert(name.to_owned(), state)
            .unwrap_or(State::Starting)
    }

    /// The tasks that are down, with their last error, by name.
    pub(crate) fn down(&self) -> Vec<(String, String)> {
        let states = self.states.lock().unwrap_or_else(|e| e.into_inner());
        states
            .iter()
            .filter_map(|(name, state)| match state {
                State::Down(error) => Some((name.clone(), error.clone())),
                State::Starting | State::Up | State::Degraded(_) => None,
            })
            .collect()
    }

    /// The tasks that run but cannot do all of their work, with why, by name.
    pub(crate) fn degraded(&self) -> Vec<(String, String)> {
        let states = self.states.lock().unwrap_or_else(|e| e.into_inner());
        states
            .iter()
            .filter_map(|(name, state)| match state {
                State::Degraded(why) => Some((name.clone(), why.clone())),
                State::Starting | State::Up | State::Down(_) => None,
            })
            .collect()
    }
}

/// What a run of a task is given: it says when it is up (watching, connected, subscribed).
#[derive(Debug, Clone)]
pub(crate) struct Run {
    tasks: Arc<Tasks>,
    name: String,
}

impl Run {
    /// The task is working (again).
    pub(crate) fn up(&self) {
        self.tasks.set(&self.name, State::Up);
    }

    /// The task works, but not all of it can be done, for this reason (until [`Run::up`]).
    pub(crate) fn degraded(&self, why: String) {
        self.tasks.set(&self.name, State::Degraded(why));
    }
}

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
        let this_run = Run {
            tasks: Arc::clone(&tasks),
            name: name.clone(),
        };
        let error = match run(this_run).await {
            Ok(()) => return,
            Err(error) => describe(&error),
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

/// An error and its causes on one line, each cause once: a core error already says the I/O
/// error it carries, which is also its source.
fn describe(error: &anyhow::Error) -> String {
    let mut text = String::new();
    for cause in error.chain().map(ToString::to_string) {
        if text.contains(&cause) {
            continue;
        }
        if !text.is_empty() {
            text.push_str(": ");
        }
        text.push_str(&cause);
    }
    text
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_error_is_described_with_each_cause_once() {
        let io = std::io::Error::other("Too many open files");
        let error = anyhow::Error::new(io).context("reading /m/inbox: Too many open files");
        assert_eq!(describe(&error), "reading /m/inbox: Too many open files");
        let error = anyhow::anyhow!("refused").context("starting the federation");
        assert_eq!(describe(&error), "starting the federation: refused");
    }

    #[test]
    fn a_task_is_reported_down_with_its_error_until_it_is_up_again() {
        let tasks = Arc::new(Tasks::default());
        let run = Run {
            tasks: Arc::clone(&tasks),
            name: "events".into(),
        };
        tasks.set("events", State::Starting);
        assert!(tasks.down().is_empty());
        assert_eq!(
            tasks.set("events", State::Down("too many open files".into())),
            State::Starting
        );
        assert_eq!(
            tasks.down(),
            vec![("events".to_owned(), "too many open files".to_owned())]
        );
        run.up();
        assert!(tasks.down().is_empty());
        run.degraded("a.json: refused".into());
        assert!(tasks.down().is_empty(), "it runs");
        assert_eq!(
            tasks.degraded(),
            vec![("events".to_owned(), "a.json: refused".to_owned())]
        );
        run.up();
        assert!(tasks.degraded().is_empty());
    }
}
