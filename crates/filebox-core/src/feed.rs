//! The change feed: which message files arrived in or left the folders a process watches, for
//! everything that reacts to mail (`wait`, `watch`, MCP resource subscriptions, the hub's
//! events, webhooks and runners). Synchronous: a consumer blocks in [`Feed::next`] on its own
//! thread. Woken by file-system notification (`notify`) only for events that can change a
//! folder's files (created, moved in or out, deleted, closed after writing; never the opens and
//! reads our own looks cause, which would wake us again at once), with a periodic look as the
//! fallback for file systems that send no events. What changed is decided by comparing each
//! folder's names and inodes with the last look (every rewrite is a rename, so a new inode).
//! [`Feed::next`] looks again only at the folders the notifications named since its last look
//! (every folder after the periodic look's time, a lost event or a watcher error), so a
//! change costs a listing of its own folder, not of every watched one.

use std::cell::RefCell;
use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use crate::agent::AgentId;
use crate::error::Result;
use crate::folder::Folder;
use crate::mailbox::Mailbox;
use crate::message::FileName;

/// How often cancellation is checked.
const TICK: Duration = Duration::from_millis(50);
/// How often the folders are looked at without any event (file systems that send none).
const FALLBACK_LOOK: Duration = Duration::from_secs(2);

/// A folder's message files as last seen (name and inode), to compare the next look with.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct Baseline(pub(crate) HashSet<(String, u64)>);

impl Baseline {
    /// The folder as these entries show it.
    pub(crate) fn of(entries: &[(FileName, u64)]) -> Baseline {
        Baseline(
            entries
                .iter()
                .map(|(name, ino)| (name.to_string(), *ino))
                .collect(),
        )
    }

    pub(crate) fn contains(&self, name: &str, ino: u64) -> bool {
        self.0.contains(&(name.to_owned(), ino))
    }
}

/// Whether a file came or went.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChangeKind {
    /// A new file (or a new version: a reply moves the same name back with a new inode).
    Arrived,
    /// The file left the folder (moved on, deleted, or replaced by a new version).
    Left,
}

/// One file that came or went in a watched folder.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Change {
    pub agent: AgentId,
    pub folder: Folder,
    pub file: FileName,
    pub kind: ChangeKind,
    pub(crate) ino: u64,
}

/// What [`Feed::sleep`] woke for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Wake {
    /// Something may have changed: look.
    Look,
    /// The deadline passed.
    Deadline,
    /// The caller cancelled.
    Cancelled,
}

struct Source {
    mailbox: Mailbox,
    folder: Folder,
    /// The folder's path, as notifications name it.
    dir: PathBuf,
    seen: Baseline,
}

/// A notification: a path that changed (a file in a watched folder, or the folder), or `None`
/// when any folder may have changed (an error, events lost).
type Notice = Option<PathBuf>;

/// The folders to look at next.
#[derive(Debug, Default)]
struct Dirty {
    all: bool,
    paths: HashSet<PathBuf>,
}

impl Dirty {
    fn note(&mut self, notice: Notice) {
        match notice {
            Some(path) => {
                self.paths.insert(path);
            }
            None => self.all = true,
        }
    }

    /// Whether the folder `dir` may have changed: a path in it or the folder itself was named.
    fn names(&self, dir: &Path) -> bool {
        self.all || self.paths.contains(dir)
    }
}

/// Watched folders and what was last seen in each.
pub struct Feed {
    events: Receiver<Notice>,
    /// `None` when no watcher could be set up: the feed then looks every [`TICK`].
    watcher: Option<RecommendedWatcher>,
    sources: Vec<Source>,
    /// The folders notified since [`Feed::next`] last looked (filled while sleeping).
    dirty: RefCell<Dirty>,
}

impl std::fmt::Debug for Feed {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("Feed")
            .field("notified", &self.watcher.is_some())
            .field("folders", &self.sources.len())
            .finish()
    }
}

impl Default for Feed {
    fn default() -> Self {
        Feed::new()
    }
}

impl Feed {
    /// A feed watching nothing yet.
    pub fn new() -> Feed {
        let (sender, events) = mpsc::channel();
        let watcher = notify::recommended_watcher(move |event: notify::Result<notify::Event>| {
            match event {
                Ok(event) if may_change_files(event.kind) => {
                    if event.need_rescan() || event.paths.is_empty() {
                        let _ = sender.send(None);
                    }
                    // A file's folder, or the folder itself (removed, moved).
                    for path in event.paths {
                        let folder = path.parent().map(Path::to_owned);
                        let _ = sender.send(Some(path));
                        let _ = sender.send(folder);
                    }
                }
                Ok(_) => {}
                // An error may mean lost events: look at everything again.
                Err(_) => {
                    let _ = sender.send(None);
                }
            }
        })
        .ok();
        Feed {
            events,
            watcher,
            sources: Vec::new(),
            dirty: RefCell::default(),
        }
    }

    /// Watch a folder; the files in it now are what later changes are relative to.
    pub fn watch(&mut self, mailbox: &Mailbox, folder: Folder) -> Result<()> {
        self.watch_from(mailbox, folder, None)
    }

    /// Watch a folder, with changes relative to `seen` (`None`: the folder as it is now). The
    /// watch starts before the first look, so nothing lands unseen between the two.
    pub fn watch_from(
        &mut self,
        mailbox: &Mailbox,
        folder: Folder,
        seen: Option<Baseline>,
    ) -> Result<()> {
        let dir = mailbox.folder_path(folder);
        if let Some(watcher) = &mut self.watcher
            && watcher.watch(&dir, RecursiveMode::NonRecursive).is_err()
        {
            // Fall back to looking on every tick for every folder.
            self.watcher = None;
        }
        let seen = match seen {
            Some(seen) => seen,
            None => Baseline::of(&mailbox.file_entries(folder)?.0),
        };
        // The first look covers it: what changed since `seen` sent no notice.
        self.dirty.get_mut().paths.insert(dir.clone());
        self.sources.push(Source {
            mailbox: mailbox.clone(),
            folder,
            dir,
            seen,
        });
        Ok(())
    }

    /// What arrived and left since the last look, without waiting; the baselines move on.
    pub fn look(&mut self) -> Result<Vec<Change>> {
        self.look_at(&Dirty {
            all: true,
            ..Dirty::default()
        })
    }

    /// [`Feed::look`] at the folders `dirty` names.
    fn look_at(&mut self, dirty: &Dirty) -> Result<Vec<Change>> {
        let mut changes = Vec::new();
        for source in &mut self.sources {
            if !dirty.names(&source.dir) {
                continue;
            }
            let (entries, _problems) = source.mailbox.file_entries(source.folder)?;
            let now = Baseline::of(&entries);
            let change = |(name, ino): &(String, u64), kind| {
                FileName::new(name).ok().map(|file| Change {
                    agent: source.mailbox.owner().clone(),
                    folder: source.folder,
                    file,
                    kind,
                    ino: *ino,
                })
            };
            changes.extend(
                source
                    .seen
                    .0
                    .difference(&now.0)
                    .filter_map(|entry| change(entry, ChangeKind::Left)),
            );
            changes.extend(
                now.0
                    .difference(&source.seen.0)
                    .filter_map(|entry| change(entry, ChangeKind::Arrived)),
            );
            source.seen = now;
        }
        changes.sort_by(|a, b| (&a.file, a.kind as u8).cmp(&(&b.file, b.kind as u8)));
        Ok(changes)
    }

    /// Block until something changed in a watched folder: the changes, or nothing when
    /// `deadline` passed or `cancelled()` turned true first.
    pub fn next(
        &mut self,
        deadline: Option<Instant>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Vec<Change>> {
        loop {
            let dirty = self.take_dirty();
            let changes = self.look_at(&dirty)?;
            if !changes.is_empty() {
                return Ok(changes);
            }
            if self.sleep(deadline, cancelled) != Wake::Look {
                return Ok(Vec::new());
            }
        }
    }

    /// The folders notified since the last call (every folder without a watcher).
    fn take_dirty(&mut self) -> Dirty {
        let dirty = self.dirty.get_mut();
        while let Ok(notice) = self.events.try_recv() {
            dirty.note(notice);
        }
        dirty.all |= self.watcher.is_none();
        std::mem::take(dirty)
    }

    /// Sleep until an event (or the fallback look), the deadline, or a cancellation.
    pub fn sleep(&self, deadline: Option<Instant>, cancelled: &dyn Fn() -> bool) -> Wake {
        let fallback = if self.watcher.is_some() {
            FALLBACK_LOOK
        } else {
            TICK
        };
        let look_at = Instant::now() + fallback;
        loop {
            if cancelled() {
                return Wake::Cancelled;
            }
            let now = Instant::now();
            if deadline.is_some_and(|d| now >= d) {
                return Wake::Deadline;
            }
            if now >= look_at {
                self.dirty.borrow_mut().all = true;
                return Wake::Look;
            }
            let wait = TICK.min(look_at - now);
            let wait = deadline.map_or(wait, |d| wait.min(d.saturating_duration_since(now)));
            match self.events.recv_timeout(wait) {
                Ok(notice) => {
                    let mut dirty = self.dirty.borrow_mut();
                    dirty.note(notice);
                    while let Ok(notice) = self.events.try_recv() {
                        dirty.note(notice);
                    }
                    return Wake::Look;
                }
                Err(RecvTimeoutError::Timeout) => {}
                // No watcher (or it died): sleep rather than spin until the next look.
                Err(RecvTimeoutError::Disconnected) => std::thread::sleep(wait),
            }
        }
    }
}

/// Whether a watch event can mean a file came or went: created (published by a link), moved
/// in or out, deleted, or closed after writing (another tool writing in place). Opens, reads
/// and attribute changes cannot.
fn may_change_files(kind: EventKind) -> bool {
    matches!(
        kind,
        EventKind::Create(_)
            | EventKind::Remove(_)
            | EventKind::Modify(ModifyKind::Name(_))
            | EventKind::Access(AccessKind::Close(AccessMode::Write))
            | EventKind::Any
            | EventKind::Other
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn put(mailbox: &Mailbox, folder: Folder, id8: &str) -> FileName {
        let name = format!("20250101T000000-DIS-hi-{id8}.md");
        let text = format!(
            "# DIS: hi\n\n**Message ID:** {id8}-0000\n\n---\n\n## Original Request/Content\n\nx\n"
        );
        crate::store::publish_new(
            &mailbox.tmp(),
            &mailbox.folder_path(folder),
            &name,
            text.as_bytes(),
        )
        .unwrap();
        FileName::new(&name).unwrap()
    }

    #[test]
    fn reports_arrivals_and_departures_in_every_watched_folder() {
        let dir = tempfile::tempdir().unwrap();
        let a = Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap();
        let b = Mailbox::open(AgentId::new("b").unwrap(), dir.path().join("b")).unwrap();
        let old = put(&a, Folder::Inbox, "00000001");
        let mut feed = Feed::new();
        feed.watch(&a, Folder::Inbox).unwrap();
        feed.watch(&b, Folder::Done).unwrap();
        assert!(
            feed.look().unwrap().is_empty(),
            "what was there is the baseline"
        );

        let new = put(&b, Folder::Done, "00000002");
        std::fs::remove_file(a.folder_path(Folder::Inbox).join(old.as_str())).unwrap();
        let never = || false;
        let mut changes = feed.next(None, &never).unwrap();
        // The two changes may be seen in one look or two.
        if changes.len() < 2 {
            changes.extend(feed.next(None, &never).unwrap());
        }
        let seen: Vec<_> = changes
            .iter()
            .map(|c| (c.agent.as_str(), c.folder, c.file.as_str(), c.kind))
            .collect();
        assert!(seen.contains(&("a", Folder::Inbox, old.as_str(), ChangeKind::Left)));
        assert!(seen.contains(&("b", Folder::Done, new.as_str(), ChangeKind::Arrived)));
        assert_eq!(seen.len(), 2, "{seen:?}");
    }

    #[test]
    fn next_reports_what_changed_since_an_older_baseline_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let a = Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap();
        let seen = Baseline::of(&a.file_entries(Folder::Inbox).unwrap().0);
        // Arrived before the watch: no notification will ever name it.
        let early = put(&a, Folder::Inbox, "00000003");
        let mut feed = Feed::new();
        feed.watch_from(&a, Folder::Inbox, Some(seen)).unwrap();
        let changes = feed.next(Some(Instant::now()), &|| false).unwrap();
        let seen: Vec<_> = changes.iter().map(|c| (c.file.as_str(), c.kind)).collect();
        assert_eq!(seen, [(early.as_str(), ChangeKind::Arrived)]);
    }

    #[test]
    fn a_deadline_or_a_cancellation_ends_the_wait_with_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let a = Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap();
        let mut feed = Feed::new();
        feed.watch(&a, Folder::Inbox).unwrap();
        assert!(
            feed.next(Some(Instant::now()), &|| false)
                .unwrap()
                .is_empty()
        );
        assert!(feed.next(None, &|| true).unwrap().is_empty());
    }
}
