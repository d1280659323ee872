//! Waiting for mail: block until a new message reaches an inbox, a timeout passes, or the
//! caller cancels. Woken by file-system notification (`notify`), with a periodic look as the
//! fallback for file systems that send no events; what counts as new is decided against the
//! inbox cursor (`cursor.rs`), so nothing that arrives between two waits is missed.

use std::collections::HashSet;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use crate::cursor;
use crate::error::Result;
use crate::folder::Folder;
use crate::mailbox::{Envelope, Mailbox};

/// How often cancellation is checked.
const TICK: Duration = Duration::from_millis(50);
/// How often the inbox is listed without any event (file systems that send none).
const FALLBACK_LOOK: Duration = Duration::from_millis(500);

impl Mailbox {
    /// Wait for messages new to this inbox since the last wait returned them: returns at once
    /// if some arrived meanwhile, else when one arrives, when `timeout` passes (`None`: never)
    /// or when `cancelled()` turns true; an empty list then. The first wait ever starts from
    /// the inbox as it is.
    pub fn wait_for_mail(
        &self,
        timeout: Option<Duration>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Vec<Envelope>> {
        // A timeout too large to add to now is no timeout at all.
        let deadline = timeout.and_then(|t| Instant::now().checked_add(t));
        // Watch before the first look, so nothing lands between the look and the watch.
        let (events, receiver) = mpsc::channel();
        let watcher = notify::recommended_watcher(move |_event| {
            let _ = events.send(());
        })
        .and_then(|mut w| {
            w.watch(
                &self.folder_path(Folder::Inbox),
                RecursiveMode::NonRecursive,
            )
            .map(|()| w)
        });
        let fallback = if watcher.is_ok() { FALLBACK_LOOK } else { TICK };
        let mut seen = cursor::load(self)?;
        loop {
            let (entries, _problems) = self.file_entries(Folder::Inbox)?;
            let Some(known) = &seen else {
                cursor::save(self, &entries)?;
                seen = Some(entries.iter().map(|(n, i)| (n.to_string(), *i)).collect());
                continue;
            };
            let new: Vec<_> = entries
                .iter()
                .filter(|(name, ino)| !known.contains(&(name.to_string(), *ino)))
                .collect();
            if !new.is_empty() {
                let mut ids = HashSet::new();
                let mut arrived = Vec::new();
                for (name, _) in new {
                    if let Some(envelope) = self.envelope(Folder::Inbox, name).ok().flatten()
                        && ids.insert(envelope.header.id().to_owned())
                    {
                        arrived.push(envelope);
                    }
                }
                cursor::save(self, &entries)?;
                if !arrived.is_empty() {
                    arrived.sort_by_cached_key(|m| (m.compact_time(), m.file.clone()));
                    return Ok(arrived);
                }
                seen = Some(entries.iter().map(|(n, i)| (n.to_string(), *i)).collect());
            }
            // Sleep until an event, the fallback look, the deadline or a cancellation.
            let look_at = Instant::now() + fallback;
            loop {
                if cancelled() || deadline.is_some_and(|d| Instant::now() >= d) {
                    return Ok(Vec::new());
                }
                let now = Instant::now();
                if now >= look_at {
                    break;
                }
                let wait = TICK.min(look_at - now);
                let wait = deadline.map_or(wait, |d| wait.min(d.saturating_duration_since(now)));
                match receiver.recv_timeout(wait) {
                    Ok(()) => {
                        while receiver.try_recv().is_ok() {}
                        break;
                    }
                    Err(mpsc::RecvTimeoutError::Timeout) => {}
                    // No watcher (no inotify here, or its limit reached): just sleep.
                    Err(mpsc::RecvTimeoutError::Disconnected) => std::thread::sleep(wait),
                }
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;
    use crate::agent::AgentId;

    fn put(mailbox: &Mailbox, id8: &str) {
        let text = format!(
            "# DIS: hi\n\n**Message ID:** {id8}-0000\n\n---\n\n## Original Request/Content\n\nx\n"
        );
        crate::store::publish_new(
            &mailbox.tmp(),
            &mailbox.folder_path(Folder::Inbox),
            &format!("20250101T000000-DIS-hi-{id8}.md"),
            text.as_bytes(),
        )
        .unwrap();
    }

    #[test]
    fn mail_between_waits_is_not_missed_and_timeouts_return_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mb = Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap();
        put(&mb, "00000001"); // before any wait: the baseline
        let never = || false;
        assert!(
            mb.wait_for_mail(Some(Duration::from_millis(100)), &never)
                .unwrap()
                .is_empty()
        );
        put(&mb, "00000002"); // while no one waits
        let got = mb
            .wait_for_mail(Some(Duration::from_secs(5)), &never)
            .unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].header.id(), "00000002-0000");
        assert!(
            mb.wait_for_mail(Some(Duration::from_millis(100)), &never)
                .unwrap()
                .is_empty()
        );
    }

    #[test]
    fn wakes_on_delivery_and_on_cancellation() {
        let dir = tempfile::tempdir().unwrap();
        let mb = Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap();
        let never = || false;
        assert!(
            mb.wait_for_mail(Some(Duration::ZERO), &never)
                .unwrap()
                .is_empty()
        );
        let sender = mb.clone();
        let delivery = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(200));
            put(&sender, "00000003");
        });
        let start = Instant::now();
        let got = mb
            .wait_for_mail(Some(Duration::from_secs(10)), &never)
            .unwrap();
        delivery.join().unwrap();
        assert_eq!(got.len(), 1);
        assert!(start.elapsed() < Duration::from_secs(5));

        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(100));
            flag.store(true, Ordering::SeqCst);
        });
        let got = mb
            .wait_for_mail(None, &|| cancel.load(Ordering::SeqCst))
            .unwrap();
        assert!(got.is_empty());
    }
}
