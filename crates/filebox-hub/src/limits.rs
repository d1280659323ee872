//! Bounds on long-lived work, one per kind (event streams, waiting calls), so that kind
//! cannot take every connection or blocking thread from ordinary requests: a slot is taken
//! at once or refused, never waited for.

use std::sync::Arc;

use tokio::sync::{OwnedSemaphorePermit, Semaphore};

/// The slots of one kind of long-lived work. Cheap to clone; clones share the slots.
#[derive(Debug, Clone)]
pub(crate) struct Bound {
    /// What is counted, in the plural ("event streams"), for the refusal.
    kind: &'static str,
    /// The config's setting that sets `limit`, for the refusal.
    setting: &'static str,
    limit: usize,
    slots: Arc<Semaphore>,
}

/// A slot of a [`Bound`], given back when dropped.
#[derive(Debug)]
#[must_use = "the slot is given back when this is dropped"]
pub(crate) struct Slot {
    _permit: OwnedSemaphorePermit,
}

/// A refusal: every slot of the kind is taken.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Full {
    kind: &'static str,
    setting: &'static str,
    limit: usize,
}

impl std::fmt::Display for Full {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(
            f,
            "the hub has {} {} open, its bound (the config's hub.{}): retry later",
            self.limit, self.kind, self.setting
        )
    }
}

impl Bound {
    /// The bound on open `/events` streams.
    pub(crate) fn streams(limit: usize) -> Bound {
        Bound::new("event streams", "max_event_streams", limit)
    }

    /// The bound on calls that wait, JSON-RPC and Connect together.
    pub(crate) fn waits(limit: usize) -> Bound {
        Bound::new("waiting calls", "max_waiting_calls", limit)
    }

    fn new(kind: &'static str, setting: &'static str, limit: usize) -> Bound {
        Bound {
            kind,
            setting,
            limit,
            slots: Arc::new(Semaphore::new(limit)),
        }
    }

    /// A slot now, or [`Full`].
    pub(crate) fn enter(&self) -> Result<Slot, Full> {
        Arc::clone(&self.slots)
            .try_acquire_owned()
            .map(|permit| Slot { _permit: permit })
            .map_err(|_| Full {
                kind: self.kind,
                setting: self.setting,
                limit: self.limit,
            })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_bound_refuses_past_its_limit_and_takes_again_when_a_slot_is_given_back() {
        let bound = Bound::streams(2);
        let first = bound.enter().unwrap();
        let _second = bound.enter().unwrap();
        let full = bound.enter().unwrap_err();
        assert_eq!(
            full.to_string(),
            "the hub has 2 event streams open, its bound (the config's hub.max_event_streams): \
             retry later"
        );
        drop(first);
        assert!(bound.enter().is_ok());
    }
}
