//! Waiting for mail: block until a new message reaches an inbox, a timeout passes, or the
//! caller cancels. Woken by file-system notification (`notify`), with a periodic look as the
//! fallback for file systems that send no events. What counts as new is decided against a
//! baseline of reported files: `wait` loads and saves it as the inbox cursor (`cursor.rs`), so
//! nothing that arrives between two waits is missed; `watch` keeps one in memory and never
//! moves the cursor, so what it prints is still the agent's next `wait`.

use std::collections::HashSet;
use std::sync::mpsc::{self, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::{RecursiveMode, Watcher};

use crate::cursor::{self, InboxBaseline};
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
        let mut reported = match cursor::load(self)? {
            Some(reported) => reported,
            None => {
                let now = self.current_inbox()?;
                cursor::save(self, &now)?;
                now
            }
        };
        let arrived = self.watch_new_mail(&mut reported, timeout, cancelled)?;
        if !arrived.is_empty() {
            cursor::save(self, &reported)?;
        }
        Ok(arrived)
    }

    /// Where a watch starts: what `wait` has already reported (the saved cursor), else the
    /// inbox as it is now. Reads only; the cursor stays `wait`'s.
    pub fn inbox_baseline(&self) -> Result<InboxBaseline> {
        match cursor::load(self)? {
            Some(reported) => Ok(reported),
            None => self.current_inbox(),
        }
    }

    fn current_inbox(&self) -> Result<InboxBaseline> {
        let (entries, _problems) = self.file_entries(Folder::Inbox)?;
        Ok(InboxBaseline::of(&entries))
    }

    /// Wait for messages new to this inbox since `baseline`, which then moves past them:
    /// returns at once if some arrived meanwhile, else when one arrives, when `timeout` passes
    /// (`None`: never) or when `cancelled()` turns true; an empty list then. Unlike
    /// [`Mailbox::wait_for_mail`] it writes nothing, so any number of watchers can run beside
    /// the agent's own waits.
    pub fn watch_new_mail(
        &self,
        baseline: &mut InboxBaseline,
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
        loop {
            let (entries, _problems) = self.file_entries(Folder::Inbox)?;
            let mut ids = HashSet::new();
            let mut arrived: Vec<_> = entries
                .iter()
                .filter(|(name, ino)| !baseline.contains(name.as_str(), *ino))
                .filter_map(|(name, _)| self.envelope(Folder::Inbox, name).ok().flatten())
                .filter(|envelope| ids.insert(envelope.header.id().to_owned()))
                .collect();
            *baseline = InboxBaseline::of(&entries);
            if !arrived.is_empty() {
                arrived.sort_by_cached_key(|m| (m.compact_time(), m.file.clone()));
                return Ok(arrived);
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
                    Err(RecvTimeoutError::Timeout) => {}
                    // No watcher (or it died): sleep rather than spin until the next look.
                    Err(RecvTimeoutError::Disconnected) => std::thread::sleep(wait),
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

    #[test]
    fn watching_reports_new_mail_and_leaves_it_for_the_next_wait() {
        let dir = tempfile::tempdir().unwrap();
        let mb = Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap();
        let never = || false;
        put(&mb, "00000001");
        // The agent's first wait sets the cursor past 00000001.
        assert!(
            mb.wait_for_mail(Some(Duration::ZERO), &never)
                .unwrap()
                .is_empty()
        );
        put(&mb, "00000002");
        // The watch starts from the cursor, so it reports what the agent has not seen yet.
        let mut baseline = mb.inbox_baseline().unwrap();
        let got = mb
            .watch_new_mail(&mut baseline, Some(Duration::from_secs(5)), &never)
            .unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].header.id(), "00000002-0000");
        // Reported once to the watch...
        assert!(
            mb.watch_new_mail(&mut baseline, Some(Duration::ZERO), &never)
                .unwrap()
                .is_empty()
        );
        // ...and still new to the agent's wait.
        let got = mb.wait_for_mail(Some(Duration::ZERO), &never).unwrap();
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].header.id(), "00000002-0000");
    }

    #[test]
    fn with_no_cursor_a_watch_starts_from_the_inbox_as_it_is_and_writes_none() {
        let dir = tempfile::tempdir().unwrap();
        let mb = Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap();
        put(&mb, "00000001");
        let mut baseline = mb.inbox_baseline().unwrap();
        assert!(
            mb.watch_new_mail(&mut baseline, Some(Duration::ZERO), &|| false)
                .unwrap()
                .is_empty()
        );
        assert!(cursor::load(&mb).unwrap().is_none());
    }
}
