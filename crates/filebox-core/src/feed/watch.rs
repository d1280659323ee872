//! Waiting for mail in my inbox, on the change feed (`changes.rs`): `wait` returns what no wait
//! has returned yet, claimed under the cursor's lock (`cursor.rs`), so nothing that arrives
//! between two waits is missed and no message is returned twice; `watch` keeps its own
//! baseline in memory and never moves the cursor, so what it prints is still the agent's next
//! `wait`. A file that cannot be read is reported, and returned once it can be.

use std::collections::{HashMap, HashSet};
use std::time::{Duration, Instant};

use crate::error::Result;
use crate::feed::cursor::{self, Arrivals, Claim};
use crate::feed::{ChangeKind, Feed, Wake};
use crate::folder::Folder;
use crate::mailbox::{Envelope, Mailbox, Problem};

/// The deadline of a timeout; a timeout too large to add to now is no timeout at all.
fn deadline(timeout: Option<Duration>) -> Option<Instant> {
    timeout.and_then(|t| Instant::now().checked_add(t))
}

impl Mailbox {
    /// Wait for messages no earlier wait has returned: returns at once if some arrived
    /// meanwhile, else when one arrives, when `timeout` passes (`None`: never) or when
    /// `cancelled()` turns true (no messages then, and the unreadable arrivals seen). The
    /// first wait ever starts from the inbox as it is. The messages are recorded as returned
    /// before this returns; a caller that can report them first uses [`Mailbox::claim_mail`].
    pub fn wait_for_mail(
        &self,
        timeout: Option<Duration>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Arrivals> {
        let (arrivals, claim) = self.claim_mail(timeout, cancelled)?;
        claim.commit()?;
        Ok(arrivals)
    }

    /// [`Mailbox::wait_for_mail`], except that the messages are recorded as returned only
    /// when the [`Claim`] is committed: report them, then commit, and a process killed in
    /// between has skipped nothing (the next wait returns them again: at least once). Other
    /// waits of this mailbox wait until the claim is committed or dropped.
    pub fn claim_mail(
        &self,
        timeout: Option<Duration>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<(Arrivals, Claim)> {
        let deadline = deadline(timeout);
        // Watch before the first look, so nothing lands between the look and the sleep.
        let mut feed = Feed::new();
        feed.watch(self, Folder::Inbox)?;
        loop {
            let (arrivals, claim) = cursor::claim_new_mail(self)?;
            if !arrivals.messages.is_empty() {
                return Ok((arrivals, claim));
            }
            // Nothing claimed: the lock is let go before sleeping.
            claim.commit()?;
            if feed.sleep(deadline, cancelled) != Wake::Look {
                return Ok((arrivals, Claim::default()));
            }
        }
    }

    /// My unread inbox mail (by the read marks), oldest first, claimed like a wait's: the
    /// cursor's lock is held until the [`Claim`] is committed, which records the inbox as
    /// returned, so a wait running meanwhile (a hook waiting for mail, `wait_for_messages`)
    /// never reports what the caller reports. For showing mail unasked (a session's start).
    pub fn claim_unread(&self) -> Result<(Vec<Envelope>, Claim)> {
        let claim = cursor::claim_inbox(self)?;
        let listing = self.list(Folder::Inbox)?;
        let unread = self.unread(Folder::Inbox, listing.messages)?;
        Ok((unread, claim))
    }

    /// A watch on this inbox that reports the mail arriving from now on, without moving the
    /// wait cursor: what was there before it started is not news to it (list the inbox for
    /// that), and what it reports is still new to the agent's next `wait`.
    pub fn watch_inbox(&self) -> Result<InboxWatch> {
        let mut feed = Feed::new();
        feed.watch(self, Folder::Inbox)?;
        Ok(InboxWatch {
            mailbox: self.clone(),
            feed,
            unreadable: HashMap::new(),
        })
    }
}

/// My inbox, watched: each [`InboxWatch::next`] returns the mail that arrived since the last.
#[derive(Debug)]
pub struct InboxWatch {
    mailbox: Mailbox,
    feed: Feed,
    /// Arrived files that could not be read yet (name, inode: whether the arrival may be a
    /// rewrite, `Change::may_be_rewrite`): tried again at every wake.
    unreadable: HashMap<(String, u64), bool>,
}

impl InboxWatch {
    /// Whether the file's latest change was my read receipt (a rewrite in place): not news.
    fn is_receipt(&self, envelope: &Envelope) -> bool {
        self.mailbox.read(envelope).is_ok_and(|message| {
            crate::feed::receipt::latest_receipt(&message, self.mailbox.owner().as_str()).is_some()
        })
    }

    /// New mail since the last call: at once if some arrived meanwhile, else when some arrives,
    /// when `timeout` passes (`None`: never) or when `cancelled()` turns true. An unreadable
    /// arrival is reported once, and returned as mail when it can be read. A rewrite is mail
    /// again unless it only added my receipt; a new file is mail even if a wait beside this
    /// watch has read it already.
    pub fn next(
        &mut self,
        timeout: Option<Duration>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Arrivals> {
        let deadline = deadline(timeout);
        let mut arrivals = Arrivals::default();
        loop {
            let mut retry: Vec<((String, u64), bool)> = self
                .unreadable
                .iter()
                .map(|(k, v)| (k.clone(), *v))
                .collect();
            for change in self.feed.look()? {
                let key = (change.file.to_string(), change.ino);
                match change.kind {
                    ChangeKind::Arrived => retry.push((key, change.may_be_rewrite())),
                    ChangeKind::Left => {
                        self.unreadable.remove(&key);
                    }
                }
            }
            let mut ids = HashSet::new();
            for ((name, ino), may_be_rewrite) in retry {
                let Ok(file) = crate::message::FileName::new(&name) else {
                    continue;
                };
                match self.mailbox.envelope(Folder::Inbox, &file) {
                    Ok(Some(envelope)) => {
                        self.unreadable.remove(&(name, ino));
                        if may_be_rewrite && self.is_receipt(&envelope) {
                            continue;
                        }
                        if ids.insert(envelope.header.id().to_owned()) {
                            arrivals.messages.push(envelope);
                        }
                    }
                    Ok(None) => {
                        self.unreadable.remove(&(name, ino));
                    }
                    Err(e) => {
                        if self
                            .unreadable
                            .insert((name.clone(), ino), may_be_rewrite)
                            .is_none()
                        {
                            arrivals.unreadable.push(Problem {
                                path: self.mailbox.folder_path(Folder::Inbox).join(&name),
                                reason: e.to_string(),
                            });
                        }
                    }
                }
            }
            if !arrivals.messages.is_empty() || self.feed.sleep(deadline, cancelled) != Wake::Look {
                arrivals.sort();
                return Ok(arrivals);
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeSet;
    use std::sync::Arc;
    use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};

    use super::*;
    use crate::agent::AgentId;

    const NEVER: &dyn Fn() -> bool = &|| false;

    fn text(id8: &str) -> String {
        format!(
            "# DIS: hi\n\n**Message ID:** {id8}-0000\n\n---\n\n## Original Request/Content\n\nx\n"
        )
    }

    fn name(id8: &str) -> String {
        format!("20250101T000000-DIS-hi-{id8}.md")
    }

    fn put(mailbox: &Mailbox, id8: &str) {
        crate::store::publish_new(
            &mailbox.tmp(),
            &mailbox.folder_path(Folder::Inbox),
            &name(id8),
            text(id8).as_bytes(),
        )
        .unwrap();
    }

    fn mailbox(dir: &tempfile::TempDir) -> Mailbox {
        Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap()
    }

    /// A wait that returns at once: what arrived since the last one.
    fn look(mb: &Mailbox) -> Arrivals {
        mb.wait_for_mail(Some(Duration::ZERO), NEVER).unwrap()
    }

    fn ids(arrivals: &Arrivals) -> Vec<&str> {
        arrivals.messages.iter().map(|m| m.header.id()).collect()
    }

    #[test]
    fn mail_between_waits_is_not_missed_and_timeouts_return_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let mb = mailbox(&dir);
        put(&mb, "00000001"); // before any wait: the baseline
        let first = look(&mb);
        assert!(first.messages.is_empty() && first.unreadable.is_empty());
        put(&mb, "00000002"); // while no one waits
        let got = mb
            .wait_for_mail(Some(Duration::from_secs(60)), NEVER)
            .unwrap();
        assert_eq!(ids(&got), ["00000002-0000"]);
        assert!(look(&mb).messages.is_empty());
    }

    #[test]
    fn wakes_on_delivery_and_on_cancellation() {
        let dir = tempfile::tempdir().unwrap();
        let mb = mailbox(&dir);
        look(&mb);
        // Delivered whenever the thread runs: before the wait looks, or while it sleeps.
        let sender = mb.clone();
        let delivery = std::thread::spawn(move || put(&sender, "00000003"));
        let got = mb.wait_for_mail(None, NEVER).unwrap();
        delivery.join().unwrap();
        assert_eq!(ids(&got), ["00000003-0000"]);

        let cancel = Arc::new(AtomicBool::new(false));
        let flag = Arc::clone(&cancel);
        let canceller = std::thread::spawn(move || flag.store(true, Ordering::SeqCst));
        let got = mb
            .wait_for_mail(None, &|| cancel.load(Ordering::SeqCst))
            .unwrap();
        canceller.join().unwrap();
        assert!(got.messages.is_empty());
    }

    #[test]
    fn waits_running_at_once_never_return_the_same_message() {
        let dir = tempfile::tempdir().unwrap();
        let mb = mailbox(&dir);
        look(&mb);
        let sent: BTreeSet<String> = (0..40).map(|i| format!("{i:08}")).collect();
        let sender = mb.clone();
        let to_send = sent.clone();
        let delivery = std::thread::spawn(move || to_send.iter().for_each(|id| put(&sender, id)));
        // Each waiter waits until the waiters together have every message; a message lost
        // would leave them waiting (the test runner's timeout ends that).
        let claimed = Arc::new(AtomicUsize::new(0));
        let waiters: Vec<_> = (0..4)
            .map(|_| {
                let (mb, claimed) = (mb.clone(), Arc::clone(&claimed));
                std::thread::spawn(move || {
                    let all_claimed = || claimed.load(Ordering::SeqCst) >= 40;
                    let mut got = Vec::new();
                    while !all_claimed() {
                        let arrivals = mb.wait_for_mail(None, &all_claimed).unwrap();
                        claimed.fetch_add(arrivals.messages.len(), Ordering::SeqCst);
                        got.extend(
                            arrivals
                                .messages
                                .iter()
                                .map(|m| m.header.id()[..8].to_owned()),
                        );
                    }
                    got
                })
            })
            .collect();
        delivery.join().unwrap();
        let returned: Vec<String> = waiters
            .into_iter()
            .flat_map(|w| w.join().unwrap())
            .collect();
        let unique: BTreeSet<String> = returned.iter().cloned().collect();
        assert_eq!(unique.len(), returned.len(), "a message was returned twice");
        assert_eq!(unique, sent);
    }

    #[test]
    fn a_claim_never_committed_leaves_its_mail_to_the_next_wait() {
        let dir = tempfile::tempdir().unwrap();
        let mb = mailbox(&dir);
        look(&mb);
        put(&mb, "00000006");
        // A waiter that found the mail and died before reporting it: the claim is dropped.
        let (found, claim) = mb.claim_mail(Some(Duration::ZERO), NEVER).unwrap();
        assert_eq!(ids(&found), ["00000006-0000"]);
        drop(claim);
        let (again, claim) = mb.claim_mail(Some(Duration::ZERO), NEVER).unwrap();
        assert_eq!(ids(&again), ["00000006-0000"]);
        // Another wait meanwhile waits for the claim, then finds it committed: never twice.
        let other = mb.clone();
        let rival = std::thread::spawn(move || look(&other).messages.len());
        claim.commit().unwrap();
        assert_eq!(rival.join().unwrap(), 0);
        assert!(look(&mb).messages.is_empty());
    }

    #[test]
    fn claiming_the_unread_mail_leaves_it_to_no_wait_and_keeps_waits_out_until_committed() {
        let dir = tempfile::tempdir().unwrap();
        let mb = mailbox(&dir);
        put(&mb, "00000001");
        put(&mb, "00000002");
        let read = mb.list(Folder::Inbox).unwrap().messages.remove(0);
        mb.mark_read(&read).unwrap();
        // No wait ever ran: the claim still holds the lock.
        let (unread, claim) = mb.claim_unread().unwrap();
        assert_eq!(
            unread.iter().map(|m| m.header.id()).collect::<Vec<_>>(),
            ["00000002-0000"]
        );
        let other = mb.clone();
        let rival = std::thread::spawn(move || look(&other).messages.len());
        claim.commit().unwrap();
        assert_eq!(rival.join().unwrap(), 0, "the wait saw the claimed inbox");
        put(&mb, "00000003");
        assert_eq!(ids(&look(&mb)), ["00000003-0000"]);
    }

    #[test]
    fn an_unreadable_arrival_is_reported_and_returned_once_it_can_be_read() {
        let dir = tempfile::tempdir().unwrap();
        let mb = mailbox(&dir);
        look(&mb);
        // Another tool creates the file, then writes it in place.
        let path = mb.folder_path(Folder::Inbox).join(name("00000004"));
        std::fs::write(&path, "").unwrap();
        let early = look(&mb);
        assert!(early.messages.is_empty());
        assert_eq!(early.unreadable.len(), 1);
        assert_eq!(early.unreadable[0].path, path);
        std::fs::write(&path, text("00000004")).unwrap();
        let got = look(&mb);
        assert_eq!(ids(&got), ["00000004-0000"]);
        assert!(got.unreadable.is_empty());
    }

    #[test]
    fn watching_reports_mail_arriving_from_now_and_leaves_it_for_the_next_wait() {
        let dir = tempfile::tempdir().unwrap();
        let mb = mailbox(&dir);
        put(&mb, "00000001");
        // The agent's first wait sets the cursor past 00000001.
        look(&mb);
        put(&mb, "00000002");
        // The watch starts from now: 00000002, which came before it, is not news to it.
        let mut watch = mb.watch_inbox().unwrap();
        assert!(
            watch
                .next(Some(Duration::ZERO), NEVER)
                .unwrap()
                .messages
                .is_empty()
        );
        put(&mb, "00000003");
        let got = watch.next(Some(Duration::from_secs(60)), NEVER).unwrap();
        assert_eq!(ids(&got), ["00000003-0000"]);
        // Reported once to the watch...
        assert!(
            watch
                .next(Some(Duration::ZERO), NEVER)
                .unwrap()
                .messages
                .is_empty()
        );
        // ...and still new to the agent's wait, with what came before the watch.
        let got = look(&mb);
        assert_eq!(ids(&got), ["00000002-0000", "00000003-0000"]);
    }

    #[test]
    fn mail_read_before_the_watch_looks_is_still_news_and_its_receipt_is_not() {
        let dir = tempfile::tempdir().unwrap();
        let mb = mailbox(&dir);
        look(&mb);
        let mut watch = mb.watch_inbox().unwrap();
        // A wait beside the watch gets the mail first and writes its receipt.
        put(&mb, "00000007");
        let (found, mut claim) = mb.claim_mail(Some(Duration::ZERO), NEVER).unwrap();
        let receipts = claim.mark_read(&found.messages, "a", "wait").unwrap();
        assert_eq!(receipts, [crate::feed::receipt::Receipt::Recorded]);
        claim.commit().unwrap();
        let got = watch.next(Some(Duration::from_secs(5)), NEVER).unwrap();
        assert_eq!(ids(&got), ["00000007-0000"]);
        // Read again later: the receipt's rewrite alone is not mail.
        put(&mb, "00000008");
        assert_eq!(
            ids(&watch.next(Some(Duration::from_secs(5)), NEVER).unwrap()),
            ["00000008-0000"]
        );
        let (found, mut claim) = mb.claim_mail(Some(Duration::ZERO), NEVER).unwrap();
        assert_eq!(ids(&found), ["00000008-0000"]);
        claim.mark_read(&found.messages, "a", "wait").unwrap();
        claim.commit().unwrap();
        assert!(
            watch
                .next(Some(Duration::from_millis(300)), NEVER)
                .unwrap()
                .messages
                .is_empty()
        );
    }

    #[test]
    fn a_watch_reports_a_file_still_being_written_once_and_returns_it_when_complete() {
        let dir = tempfile::tempdir().unwrap();
        let mb = mailbox(&dir);
        let mut watch = mb.watch_inbox().unwrap();
        let path = mb.folder_path(Folder::Inbox).join(name("00000005"));
        std::fs::write(&path, "").unwrap();
        let early = watch.next(Some(Duration::ZERO), NEVER).unwrap();
        assert!(early.messages.is_empty());
        assert_eq!(early.unreadable.len(), 1);
        let again = watch.next(Some(Duration::ZERO), NEVER).unwrap();
        assert!(again.unreadable.is_empty(), "reported once");
        std::fs::write(&path, text("00000005")).unwrap();
        let got = watch.next(Some(Duration::from_secs(60)), NEVER).unwrap();
        assert_eq!(ids(&got), ["00000005-0000"]);
    }

    #[test]
    fn with_no_cursor_a_watch_starts_from_the_inbox_as_it_is_and_writes_none() {
        let dir = tempfile::tempdir().unwrap();
        let mb = mailbox(&dir);
        put(&mb, "00000001");
        let mut watch = mb.watch_inbox().unwrap();
        assert!(
            watch
                .next(Some(Duration::ZERO), NEVER)
                .unwrap()
                .messages
                .is_empty()
        );
        assert!(cursor::load(&mb).unwrap().is_none());
    }
}
