//! The receiver's order gate: with many messages in hand at once, the stream's order (so each
//! sender's) still holds across a retry and across a crash. A message is applied only when no
//! earlier message of this hub's is still to come back: one handed back for a redelivery (a
//! retry), or one an earlier run of the hub had in hand without acknowledging it (killed
//! mid-batch). A later message meanwhile goes back too, and comes again behind the earlier
//! one (the server redelivers in stream order).

use std::collections::BTreeSet;
use std::time::{Duration, Instant};

/// What the receiver knows of the messages still to come back before a later one may be
/// applied.
#[derive(Debug)]
pub(crate) struct Gate {
    /// Messages (stream sequences) handed back for a redelivery and not applied since.
    returned: BTreeSet<u64>,
    /// What an earlier run had in hand, while it has not all come back.
    earlier: Option<Earlier>,
}

/// The messages an earlier run of the hub had in hand: the consumer's unacknowledged ones at
/// or below the last sequence it delivered.
#[derive(Debug)]
struct Earlier {
    up_to: u64,
    in_hand: usize,
    /// Those that came back and were applied.
    seen: BTreeSet<u64>,
    /// When they are all back at the latest (the server redelivers them once its wait for an
    /// acknowledgement ends): after that the gate no longer waits for them.
    until: Instant,
}

impl Gate {
    /// The gate of a receiver starting on a consumer that has `in_hand` messages delivered and
    /// not acknowledged, the last of them at or below `up_to`, which the server hands out again
    /// within `ack_wait`.
    pub(crate) fn new(up_to: u64, in_hand: usize, ack_wait: Duration, now: Instant) -> Gate {
        Gate {
            returned: BTreeSet::new(),
            earlier: (in_hand > 0).then(|| Earlier {
                up_to,
                in_hand,
                seen: BTreeSet::new(),
                // Twice: a margin for the server's own timer.
                until: now + 2 * ack_wait,
            }),
        }
    }

    /// Whether message `seq` may be applied now (else it goes back, see [`Gate::returned`]).
    pub(crate) fn admits(&mut self, seq: u64, now: Instant) -> bool {
        if self
            .earlier
            .as_ref()
            .is_some_and(|e| e.seen.len() >= e.in_hand || now >= e.until)
        {
            self.earlier = None;
        }
        let after_earlier = self.earlier.as_ref().is_some_and(|e| seq > e.up_to);
        let after_returned = self.returned.first().is_some_and(|first| seq > *first);
        !(after_earlier || after_returned)
    }

    /// Message `seq` was applied (or set aside for good): acknowledged.
    pub(crate) fn done(&mut self, seq: u64) {
        self.returned.remove(&seq);
        if let Some(earlier) = &mut self.earlier
            && seq <= earlier.up_to
        {
            earlier.seen.insert(seq);
        }
    }

    /// Message `seq` goes back for a redelivery: nothing after it is applied before it.
    pub(crate) fn returned(&mut self, seq: u64) {
        self.returned.insert(seq);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAIT: Duration = Duration::from_secs(10);

    #[test]
    fn a_fresh_consumer_admits_everything() {
        let now = Instant::now();
        let mut gate = Gate::new(0, 0, WAIT, now);
        assert!((1..100).all(|seq| gate.admits(seq, now)));
    }

    #[test]
    fn after_a_retry_later_messages_wait_for_the_one_handed_back() {
        let now = Instant::now();
        let mut gate = Gate::new(0, 0, WAIT, now);
        assert!(gate.admits(5, now));
        gate.returned(5);
        assert!(!gate.admits(6, now), "a later one overtook the retried one");
        gate.returned(6);
        // Redelivered in order: each in turn.
        assert!(gate.admits(5, now));
        gate.done(5);
        assert!(gate.admits(6, now));
        gate.done(6);
        assert!(gate.admits(7, now));
    }

    #[test]
    fn after_a_crash_later_messages_wait_for_what_the_earlier_run_had_in_hand() {
        let now = Instant::now();
        // The killed run had 2 messages in hand, the last delivered was 9.
        let mut gate = Gate::new(9, 2, WAIT, now);
        assert!(!gate.admits(10, now), "new mail overtook what was in hand");
        gate.returned(10);
        assert!(gate.admits(7, now));
        gate.done(7);
        assert!(!gate.admits(10, now));
        assert!(gate.admits(9, now));
        gate.done(9);
        assert!(gate.admits(10, now));
    }

    #[test]
    fn a_message_that_came_back_twice_counts_once() {
        let now = Instant::now();
        let mut gate = Gate::new(9, 2, WAIT, now);
        gate.done(7);
        gate.done(7);
        assert!(!gate.admits(10, now));
    }

    #[test]
    fn the_gate_stops_waiting_for_an_earlier_run_once_the_server_redelivered_everything() {
        let now = Instant::now();
        let mut gate = Gate::new(9, 2, WAIT, now);
        assert!(!gate.admits(10, now));
        assert!(gate.admits(10, now + 2 * WAIT));
    }
}
