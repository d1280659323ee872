//! Watching an inbox without consuming it: `filebox watch` streams arrivals against a baseline
//! it keeps in memory, and never saves the inbox cursor (`cursor.rs`), so everything it prints
//! is still reported to the agent by its next `wait`.

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
    /// Where a watch starts: what `wait` has already reported (the saved cursor), else the
    /// inbox as it is now. Reads only; the cursor stays `wait`'s.
    pub fn inbox_baseline(&self) -> Result<InboxBaseline> {
        match cursor::load(self)? {
            Some(seen) => Ok(InboxBaseline(seen)),
            None => {
                let (entries, _problems) = self.file_entries(Folder::Inbox)?;
                Ok(InboxBaseline::of(&entries))
            }
        }
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
