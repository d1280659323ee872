//! The receiver's order gate: with many messages in hand at once, the stream's order (so each
//! sender's) still holds across a retry, a consumer opened again and a crash. A message is
//! applied only when no earlier message of this hub's is still to come back: one handed back
//! for a redelivery (a retry), one in hand when the consumer ended, or one the consumer had
//! handed out unacknowledged when it was opened (by an earlier run of the hub, killed
//! mid-batch): the server hands those out again once its wait for an acknowledgement ends. A
//! later message meanwhile goes back too, and comes again behind the earlier one (the server
//! redelivers in stream order).

use std::collections::{BTreeMap, BTreeSet};
use std::time::{Duration, Instant};

/// What the receiver knows of the messages still to come back before a later one may be
/// applied. One gate serves every consumer the receiver opens in its process.
#[derive(Debug)]
pub(crate) struct Gate {
    /// How long the server waits for an acknowledgement before it hands a message out again.
    ack_wait: Duration,
    /// Messages (stream sequences) to come back, each with when the gate stops waiting for it
    /// (a message the stream no longer holds never comes).
    returned: BTreeMap<u64, Instant>,
    /// Messages admitted and not yet applied nor handed back.
    in_hand: BTreeSet<u64>,
}

impl Gate {
    /// The gate of a receiver whose stream hands a message out again `ack_wait` after it was
    /// last handed out without an acknowledgement.
    pub(crate) fn new(ack_wait: Duration) -> Gate {
        Gate {
            ack_wait,
            returned: BTreeMap::new(),
            in_hand: BTreeSet::new(),
        }
    }

    /// A consumer is opened (again) with the messages `unacknowledged` that it handed out
    /// before: they come back, and so does what this gate had in hand or handed back, all
    /// within the wait for an acknowledgement from now.
    pub(crate) fn opened(&mut self, unacknowledged: impl IntoIterator<Item = u64>, now: Instant) {
        let until = self.deadline(now);
        for seq in std::mem::take(&mut self.in_hand)
            .into_iter()
            .chain(unacknowledged)
        {
            self.returned.insert(seq, until);
        }
        for due in self.returned.values_mut() {
            *due = (*due).max(until);
        }
    }

    /// Whether message `seq` may be applied now, after those admitted before it (else it goes
    /// back, see [`Gate::returned`]). An admitted message is in hand until [`Gate::done`] or
    /// [`Gate::returned`].
    pub(crate) fn admits(&mut self, seq: u64, now: Instant) -> bool {
        self.returned.retain(|_, until| now < *until);
        if self.returned.range(..seq).next().is_some() {
            return false;
        }
        self.returned.remove(&seq);
        self.in_hand.insert(seq);
        true
    }

    /// Message `seq` was applied (or set aside for good): acknowledged.
    pub(crate) fn done(&mut self, seq: u64) {
        self.in_hand.remove(&seq);
        self.returned.remove(&seq);
    }

    /// Message `seq` goes back for a redelivery: nothing after it is applied before it.
    pub(crate) fn returned(&mut self, seq: u64, now: Instant) {
        self.in_hand.remove(&seq);
        let until = self.deadline(now);
        self.returned.insert(seq, until);
    }

    /// When a message handed out (again) at `now` is back at the latest: twice the wait for
    /// an acknowledgement, a margin for the server's own timer. The gate then stops waiting
    /// without asking the stream whether it still holds the message (one gone for good, say
    /// removed by an operator, would otherwise hold back this hub's mail forever); so order
    /// breaks only when the server hands a message out again later than that, which takes
    /// applying the messages ahead of it for longer than the margin (about ten seconds).
    fn deadline(&self, now: Instant) -> Instant {
        now + 2 * self.ack_wait
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const WAIT: Duration = Duration::from_secs(10);

    /// A gate on a consumer opened with the messages `unacknowledged`.
    fn opened(unacknowledged: &[u64], now: Instant) -> Gate {
        let mut gate = Gate::new(WAIT);
        gate.opened(unacknowledged.iter().copied(), now);
        gate
    }

    #[test]
    fn a_fresh_consumer_admits_everything() {
        let now = Instant::now();
        let mut gate = opened(&[], now);
        assert!((1..100).all(|seq| gate.admits(seq, now)));
    }

    #[test]
    fn after_a_retry_later_messages_wait_for_the_one_handed_back() {
        let now = Instant::now();
        let mut gate = opened(&[], now);
        assert!(gate.admits(5, now));
        gate.returned(5, now);
        assert!(!gate.admits(6, now), "a later one overtook the retried one");
        gate.returned(6, now);
        // Redelivered in order: each in turn.
        assert!(gate.admits(5, now));
        gate.done(5);
        assert!(gate.admits(6, now));
        gate.done(6);
        assert!(gate.admits(7, now));
    }

    #[test]
    fn what_was_handed_back_comes_again_in_one_batch() {
        let now = Instant::now();
        let mut gate = opened(&[], now);
        for seq in 1..=30 {
            gate.returned(seq, now);
        }
        // Redelivered together: each admitted behind the one before it, none sent back again.
        assert!((1..=30).all(|seq| gate.admits(seq, now)));
    }

    #[test]
    fn what_was_in_hand_when_a_consumer_ended_comes_before_what_follows_it() {
        let now = Instant::now();
        let mut gate = opened(&[], now);
        // 15 was admitted, 16 and 17 handed back behind it; then the consumer failed.
        assert!(gate.admits(15, now));
        gate.returned(16, now);
        gate.returned(17, now);
        gate.opened([15, 16, 17], now);
        // 16 and 17 come back first (a retry's short delay), 15 only after the wait.
        assert!(
            !gate.admits(16, now),
            "a later one overtook the one in hand"
        );
        gate.returned(16, now);
        assert!(gate.admits(15, now));
        gate.done(15);
        assert!(gate.admits(16, now));
        assert!(gate.admits(17, now));
    }

    #[test]
    fn after_a_crash_the_earlier_runs_messages_come_in_order_and_before_new_mail() {
        let now = Instant::now();
        // The killed run had 10 in hand and 11 handed back behind it; 12 is new.
        let mut gate = opened(&[10, 11], now);
        assert!(!gate.admits(12, now), "new mail overtook what was in hand");
        gate.returned(12, now);
        // 11 comes back after the retry's delay, 10 only after the wait.
        assert!(
            !gate.admits(11, now),
            "one handed back overtook one in hand"
        );
        gate.returned(11, now);
        assert!(gate.admits(10, now));
        gate.done(10);
        assert!(gate.admits(11, now));
        assert!(gate.admits(12, now));
    }

    #[test]
    fn a_message_done_twice_is_harmless() {
        let now = Instant::now();
        let mut gate = opened(&[7, 9], now);
        gate.done(7);
        gate.done(7);
        assert!(!gate.admits(10, now));
    }

    #[test]
    fn a_consumer_opened_again_waits_anew_for_what_was_handed_back() {
        let start = Instant::now();
        let mut gate = opened(&[], start);
        gate.returned(5, start);
        // The redelivery was lost with the consumer: the new one hands 5 out within its wait.
        let reopened = start + WAIT + WAIT / 2;
        gate.opened([], reopened);
        assert!(!gate.admits(6, start + 2 * WAIT + WAIT / 10));
        assert!(gate.admits(5, reopened + WAIT));
    }

    #[test]
    fn the_gate_stops_waiting_for_a_message_that_never_comes_back() {
        let now = Instant::now();
        let mut gate = opened(&[9], now);
        gate.returned(5, now);
        assert!(!gate.admits(10, now));
        assert!(gate.admits(10, now + 2 * WAIT));
    }
}
