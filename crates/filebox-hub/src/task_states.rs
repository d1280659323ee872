//! Where each of the hub's long-lived tasks stands ([`Tasks`], read by `/healthz`), and the
//! handle a run of one is given to say so ([`Run`]); `tasks.rs` runs them.

use std::collections::BTreeMap;
use std::sync::{Arc, Mutex};

/// Where each task stands, by name.
#[derive(Debug, Default)]
pub(crate) struct Tasks {
    states: Mutex<BTreeMap<String, State>>,
}

#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum State {
    /// Started, not ready yet (the first run of a task is not a fault).
    Starting,
    Up,
    /// Running, but part of its work is not done, for this reason (it says when that ends).
    Degraded(String),
    /// The last run failed with this error; it is tried again.
    Down(String),
}

impl Tasks {
    /// Set `name`'s state; the one it had before (starting, for a new task).
    pub(crate) fn set(&self, name: &str, state: State) -> State {
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
    pub(crate) fn new(tasks: Arc<Tasks>, name: String) -> Run {
        Run { tasks, name }
    }

    /// The task is working (again).
    pub(crate) fn up(&self) {
        self.tasks.set(&self.name, State::Up);
    }

    /// The task works, but not all of it can be done, for this reason (until [`Run::up`]).
    pub(crate) fn degraded(&self, why: String) {
        self.tasks.set(&self.name, State::Degraded(why));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_task_is_reported_down_with_its_error_until_it_is_up_again() {
        let tasks = Arc::new(Tasks::default());
        let run = Run::new(Arc::clone(&tasks), "events".into());
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
