//! The runs a runner owes, in memory: each message file at most once, and at most [`QUEUED`]
//! files waiting for the runner's turn (`max_concurrent` bounds those running). Past that an
//! arrival is left in the inbox, where the files keep it, and the queue remembers it overflowed:
//! once half of it has drained, the runner looks at its inbox again. So a flood of mail into a
//! slow runner's inbox costs the hub a fixed amount of memory, not one task per message.

use std::collections::HashSet;
use std::sync::{Arc, Mutex};

/// How many files may wait for one runner's turn.
pub(super) const QUEUED: usize = 256;

/// One runner's files waiting for their turn.
#[derive(Debug, Default)]
pub(super) struct Queue {
    files: HashSet<String>,
    overflowed: bool,
}

/// A file's place in its queue, given back when dropped (once the run has claimed the message,
/// or found it taken).
pub(super) struct Ticket {
    queue: Arc<Mutex<Queue>>,
    file: String,
}

impl Drop for Ticket {
    fn drop(&mut self) {
        lock(&self.queue).files.remove(&self.file);
    }
}

fn lock(queue: &Mutex<Queue>) -> std::sync::MutexGuard<'_, Queue> {
    queue.lock().unwrap_or_else(|e| e.into_inner())
}

/// A place for `file` in `queue`: `None` when it waits there already, or when the queue is full
/// (which is remembered: see [`take_overflow`]).
pub(super) fn enter(queue: &Arc<Mutex<Queue>>, file: &str) -> Option<Ticket> {
    let mut waiting = lock(queue);
    if waiting.files.contains(file) {
        return None;
    }
    if waiting.files.len() >= QUEUED {
        waiting.overflowed = true;
        return None;
    }
    waiting.files.insert(file.to_owned());
    Some(Ticket {
        queue: Arc::clone(queue),
        file: file.to_owned(),
    })
}

/// Whether the runner should look at its inbox again: arrivals were turned away and the queue
/// has drained to half. Answers true once per overflow.
pub(super) fn take_overflow(queue: &Mutex<Queue>) -> bool {
    let mut waiting = lock(queue);
    let again = waiting.overflowed && waiting.files.len() <= QUEUED / 2;
    if again {
        waiting.overflowed = false;
    }
    again
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_flood_holds_at_most_the_bound_and_the_inbox_is_looked_at_again_once_it_drains() {
        let queue = Arc::new(Mutex::new(Queue::default()));
        let mut tickets: Vec<Ticket> = (0..QUEUED * 10)
            .filter_map(|n| enter(&queue, &format!("{n}.md")))
            .collect();
        assert_eq!(tickets.len(), QUEUED);
        assert_eq!(lock(&queue).files.len(), QUEUED);
        assert!(enter(&queue, "0.md").is_none(), "waiting already");
        assert!(!take_overflow(&queue), "no room yet");
        tickets.truncate(QUEUED / 2);
        assert!(take_overflow(&queue));
        assert!(!take_overflow(&queue), "once per overflow");
        drop(tickets);
        assert!(lock(&queue).files.is_empty());
        assert!(enter(&queue, "0.md").is_some());
    }
}
