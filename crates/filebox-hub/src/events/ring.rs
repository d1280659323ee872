//! The hub's live events in memory: the last [`RING`] kept, numbered `<run>-<n>`, for clients
//! that reconnect, and a broadcast channel for live subscribers (SSE streams, runners,
//! webhooks). `events.rs` publishes into it from the change feed and streams it.

use std::collections::VecDeque;
use std::sync::Mutex;

use filebox_core::Folder;
use serde::Serialize;
use tokio::sync::broadcast;

/// How many events are kept for clients that reconnect.
const RING: usize = 4096;

/// One event: what happened to which file of which mailbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize)]
#[serde(rename_all = "camelCase")]
pub(crate) struct HubEvent {
    #[serde(skip)]
    pub(crate) seq: u64,
    /// delivered, reply, fork, sent, processing, replied, failed or left; `resync` when
    /// changes may have been missed.
    #[serde(rename = "type")]
    pub(crate) kind: &'static str,
    pub(crate) agent: String,
    pub(crate) folder: Folder,
    pub(crate) file: String,
    /// The Message ID (absent for `left`: the file is gone from there).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) message_id: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) subject: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) from: Option<String>,
    /// The file has a `Callback` (the webhooks look only at those).
    #[serde(skip)]
    pub(crate) has_callback: bool,
}

/// The kind of the event that says changes may have been missed (the follower was down):
/// every subscriber looks at the files again, as after lagging behind.
const RESYNC: &str = "resync";

impl HubEvent {
    /// Changes may have been missed: see [`RESYNC`]. It concerns every mailbox.
    pub(crate) fn resync() -> HubEvent {
        HubEvent {
            seq: 0,
            kind: RESYNC,
            agent: String::new(),
            folder: Folder::Inbox,
            file: String::new(),
            message_id: None,
            subject: None,
            from: None,
            has_callback: false,
        }
    }

    pub(crate) fn is_resync(&self) -> bool {
        self.kind == RESYNC
    }
}

/// The recent events and the live channel.
#[derive(Debug)]
pub(crate) struct EventLog {
    run: u64,
    recent: Mutex<VecDeque<HubEvent>>,
    live: broadcast::Sender<HubEvent>,
}

impl EventLog {
    pub(crate) fn new() -> EventLog {
        let run = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_millis() as u64);
        EventLog {
            run,
            recent: Mutex::new(VecDeque::with_capacity(RING)),
            live: broadcast::channel(RING).0,
        }
    }

    /// Number, keep and announce an event.
    pub(super) fn publish(&self, mut event: HubEvent) {
        let mut recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        event.seq = recent.back().map_or(1, |last| last.seq + 1);
        if recent.len() == RING {
            recent.pop_front();
        }
        recent.push_back(event.clone());
        // Sent under the lock, so a subscriber that copied the ring misses nothing.
        let _ = self.live.send(event);
    }

    /// Subscribe, with the kept events after `last_id` (`None`: none wanted, or it cannot be
    /// resumed from, which the bool says).
    pub(super) fn subscribe(
        &self,
        last_id: Option<&str>,
    ) -> (Vec<HubEvent>, bool, broadcast::Receiver<HubEvent>) {
        let recent = self.recent.lock().unwrap_or_else(|e| e.into_inner());
        let receiver = self.live.subscribe();
        let Some(last_id) = last_id else {
            return (Vec::new(), true, receiver);
        };
        let resumable = last_id
            .split_once('-')
            .and_then(|(run, seq)| Some((run.parse::<u64>().ok()?, seq.parse::<u64>().ok()?)))
            .filter(|(run, seq)| {
                *run == self.run && recent.front().is_none_or(|first| *seq + 1 >= first.seq)
            });
        match resumable {
            Some((_, seq)) => (
                recent.iter().filter(|e| e.seq > seq).cloned().collect(),
                true,
                receiver,
            ),
            None => (Vec::new(), false, receiver),
        }
    }

    /// Every event from now on (the runners follow arrivals with it).
    pub(crate) fn live(&self) -> broadcast::Receiver<HubEvent> {
        self.live.subscribe()
    }

    pub(super) fn id(&self, event: &HubEvent) -> String {
        format!("{}-{}", self.run, event.seq)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn delivered(n: usize) -> HubEvent {
        HubEvent {
            kind: "delivered",
            agent: "dev".into(),
            file: format!("{n}.md"),
            ..HubEvent::resync()
        }
    }

    /// A month of events holds no more memory than [`RING`] of them: the ring drops the
    /// oldest, a client asking to resume from one dropped is told to list again, and a
    /// subscriber that never reads is told it lagged instead of holding every event.
    #[test]
    fn the_log_holds_the_last_ring_of_events_however_many_were_published() {
        let log = EventLog::new();
        let mut asleep = log.live();
        for n in 0..RING + 100 {
            log.publish(delivered(n));
        }
        let recent = log.recent.lock().unwrap();
        assert_eq!(recent.len(), RING);
        assert_eq!(recent.front().unwrap().seq, 101);
        let (oldest, newest) = (log.id(&recent[0]), log.id(&recent[RING - 1]));
        drop(recent);
        let (missed, resumed, _) = log.subscribe(Some(&format!("{}-50", log.run)));
        assert!(missed.is_empty() && !resumed, "dropped: list again");
        let (missed, resumed, _) = log.subscribe(Some(&oldest));
        assert!(resumed);
        assert_eq!(missed.len(), RING - 1);
        let (missed, _, _) = log.subscribe(Some(&newest));
        assert!(missed.is_empty());
        assert!(matches!(
            asleep.try_recv(),
            Err(broadcast::error::TryRecvError::Lagged(100))
        ));
    }
}
