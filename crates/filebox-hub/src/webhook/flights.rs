//! The webhook deliveries under way, in memory: each webhook id at most once, and at most
//! [`IN_FLIGHT`] of them (each is a task that tries, waits its backoff and tries again until
//! delivered or given up). Past that a due webhook is not started, and the set remembers it
//! overflowed: once half of it has landed, the sender looks at the files again (a rescan), where
//! the webhooks it turned away are still owed. So a flood of replies to messages whose endpoint
//! is down costs the hub a fixed amount of memory, not one task per reply.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

use tokio::sync::Notify;

/// How many webhooks may be under way at once.
pub(super) const IN_FLIGHT: usize = 256;

/// The webhook ids being delivered. Cheap to clone; clones share the set.
#[derive(Debug, Default, Clone)]
pub(super) struct Flights(Arc<Shared>);

#[derive(Debug, Default)]
struct Shared {
    state: Mutex<State>,
    /// Told when the set drained to half after an overflow: time for a rescan.
    drained: Notify,
}

#[derive(Debug, Default)]
struct State {
    ids: HashSet<String>,
    overflowed: bool,
}

/// One delivery under way; it leaves the set when dropped.
pub(super) struct Flight {
    flights: Flights,
    pub(super) id: String,
}

impl Flights {
    /// A place for webhook `id`: `None` when it is under way already, or when the set is full
    /// (which is remembered: see [`Flights::drained`]).
    pub(super) fn take(&self, id: &str) -> Option<Flight> {
        let mut state = self.lock();
        if state.ids.contains(id) {
            return None;
        }
        if state.ids.len() >= IN_FLIGHT {
            state.overflowed = true;
            return None;
        }
        state.ids.insert(id.to_owned());
        Some(Flight {
            flights: self.clone(),
            id: id.to_owned(),
        })
    }

    /// Wait until webhooks were turned away and half of the set has landed since (once per
    /// overflow): the files are to be looked at again.
    pub(super) async fn drained(&self) {
        self.0.drained.notified().await;
    }

    fn lock(&self) -> std::sync::MutexGuard<'_, State> {
        self.0.state.lock().unwrap_or_else(|e| e.into_inner())
    }
}

impl Drop for Flight {
    fn drop(&mut self) {
        let mut state = self.flights.lock();
        state.ids.remove(&self.id);
        if state.overflowed && state.ids.len() <= IN_FLIGHT / 2 {
            state.overflowed = false;
            // A permit is kept if the sender is not waiting right now (busy with an event).
            self.flights.0.drained.notify_one();
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Whether `drained` is ready now.
    async fn drained_now(flights: &Flights) -> bool {
        tokio::time::timeout(std::time::Duration::from_millis(10), flights.drained())
            .await
            .is_ok()
    }

    #[tokio::test]
    async fn a_flood_holds_at_most_the_bound_and_a_rescan_is_due_once_half_landed() {
        let flights = Flights::default();
        let mut under_way: Vec<Flight> = (0..IN_FLIGHT * 10)
            .filter_map(|n| flights.take(&format!("m{n}#1")))
            .collect();
        assert_eq!(under_way.len(), IN_FLIGHT);
        assert_eq!(flights.lock().ids.len(), IN_FLIGHT);
        assert!(flights.take("m0#1").is_none(), "under way already");
        under_way.truncate(IN_FLIGHT / 2 + 1);
        assert!(
            !drained_now(&flights).await,
            "more than half still in flight"
        );
        under_way.pop();
        assert!(drained_now(&flights).await, "half landed after an overflow");
        under_way.pop();
        assert!(!drained_now(&flights).await, "once per overflow");
        drop(under_way);
        assert!(flights.lock().ids.is_empty());
        assert!(flights.take("m0#1").is_some());
    }

    #[tokio::test]
    async fn without_an_overflow_no_rescan_is_asked() {
        let flights = Flights::default();
        let flight = flights.take("m#1").unwrap();
        assert!(flights.take("m#1").is_none(), "one delivery per webhook");
        drop(flight);
        assert!(!drained_now(&flights).await);
        assert!(flights.take("m#1").is_some());
    }
}
