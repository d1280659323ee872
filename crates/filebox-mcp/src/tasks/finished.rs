//! What a wait's task ended with, kept in the server's memory: the mail a wait claims leaves
//! the wait cursor's "new" set, so the result is remembered for the client's later polls. A
//! question's task needs nothing of this (its state is the question's file).

use std::collections::{HashMap, VecDeque};

use rmcp::model::JsonObject;

/// How many ended waits are remembered; the oldest is forgotten first.
const KEPT: usize = 1024;

/// How a wait's task ended.
#[derive(Debug, Clone)]
pub(super) enum Ended {
    /// The `tools/call` result, as JSON.
    Completed(JsonObject),
    Cancelled,
}

/// The ended waits of one server (every session of it), by task id.
#[derive(Debug, Default)]
pub(super) struct Finished {
    ended: HashMap<String, (Ended, i64)>,
    order: VecDeque<String>,
}

impl Finished {
    /// How task `id` ended, and when (Unix milliseconds).
    pub(super) fn get(&self, id: &str) -> Option<&(Ended, i64)> {
        self.ended.get(id)
    }

    /// Remember that task `id` ended at `at_ms`; the first end stays.
    pub(super) fn end(&mut self, id: &str, ended: Ended, at_ms: i64) {
        if self.ended.contains_key(id) {
            return;
        }
        if self.order.len() == KEPT
            && let Some(oldest) = self.order.pop_front()
        {
            self.ended.remove(&oldest);
        }
        self.order.push_back(id.to_owned());
        self.ended.insert(id.to_owned(), (ended, at_ms));
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_first_end_stays_and_the_oldest_is_forgotten_first() {
        let mut finished = Finished::default();
        finished.end("a", Ended::Cancelled, 1);
        finished.end("a", Ended::Completed(JsonObject::new()), 2);
        assert!(matches!(finished.get("a"), Some((Ended::Cancelled, 1))));
        for n in 0..KEPT {
            finished.end(&n.to_string(), Ended::Cancelled, 3);
        }
        assert!(finished.get("a").is_none());
        assert!(finished.get("0").is_some());
    }
}
