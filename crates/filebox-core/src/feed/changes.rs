//! The change feed: which message files arrived in or left the folders a process watches, for
//! everything that reacts to mail (`wait`, `watch`, MCP resource subscriptions, the hub's
//! events, webhooks and runners). Synchronous: a consumer blocks in [`Feed::next`] on its own
//! thread. Woken by file-system notification (`notify`) only for events that can change a
//! folder's files (created, moved in or out, deleted, closed after writing; never the opens and
//! reads our own looks cause, which would wake us again at once), with a periodic look as the
//! fallback for file systems that send no events. What changed is read from each folder's
//! change journal past the place the feed reached (`mark.rs`), so a feed holds a few numbers
//! per folder, not the folder's names; a change the journal does not explain is found by
//! listing the folder, and the feed then says so ([`Feed::take_relisted`]). A look after an
//! event looks only at the folders the events named, so a hub watching every folder of a
//! hundred mailboxes pays for the one that changed; the first look, a look at least every
//! [`FALLBACK_LOOK`] however many events come, and a look after an event that names no
//! watched folder (a lost-events warning) look at every folder.

use std::collections::HashSet;
use std::path::PathBuf;
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::time::{Duration, Instant};

use notify::event::{AccessKind, AccessMode, ModifyKind};
use notify::{EventKind, RecommendedWatcher, RecursiveMode, Watcher};

use crate::agent::AgentId;
use crate::error::Result;
use crate::feed::mark::Mark;
use crate::folder::Folder;
use crate::mailbox::Mailbox;
use crate::message::FileName;
use crate::store::journal::Kind;

/// How often cancellation is checked.
const TICK: Duration = Duration::from_millis(50);
/// How often the folders are looked at without any event (file systems that send none).
const FALLBACK_LOOK: Duration = Duration::from_secs(2);
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
    /// For an arrival, what the folder's journal says it is: `Some(true)` a new version of the
    /// message the name held (a rewrite in place, such as a read receipt), `Some(false)` a new
    /// file, whatever it holds by the time it is read; `None` when the folder was listed and
    /// its history is not known.
    pub(crate) rewrite: Option<bool>,
    pub(crate) ino: u64,
}

impl Change {
    /// Whether this arrival may be a rewrite of a message already there (a read receipt, say):
    /// it is unless the journal recorded it as a new file.
    pub fn may_be_rewrite(&self) -> bool {
        self.rewrite != Some(false)
    }
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
    /// The folder's path as watch events name it (absolute, as the watcher makes it).
    watched: PathBuf,
    mark: Mark,
}

/// What a watch event says may have changed.
enum Stir {
    /// The folders of these paths (an event's paths: a file in a folder, or the folder).
    Paths(Vec<PathBuf>),
    /// Anything (an error, or an event without paths: events may have been lost).
    Anything,
}

/// The folders the next look must look at.
#[derive(Default)]
struct Due {
    everything: bool,
    folders: HashSet<PathBuf>,
}

impl Due {
    /// Take in what an event says, for the folders `watched`: a path that is a watched folder
    /// or a file in one names that folder; any other path (a form the watcher reported that
    /// is not the one watched) names nothing certain, so every folder is looked at.
    fn add(&mut self, stir: Stir, watched: &HashSet<PathBuf>) {
        let Stir::Paths(paths) = stir else {
            self.everything = true;
            return;
        };
        if paths.is_empty() {
            self.everything = true;
        }
        for path in paths {
            let folder = match path.parent() {
                _ if watched.contains(&path) => path,
                Some(parent) if watched.contains(parent) => parent.to_owned(),
                _ => {
                    self.everything = true;
                    continue;
                }
            };
            self.folders.insert(folder);
        }
    }

    fn includes(&self, folder: &std::path::Path) -> bool {
        self.everything || self.folders.contains(folder)
    }
}

/// Watched folders and what was last seen in each.
pub struct Feed {
    events: Receiver<Stir>,
    /// `None` when no watcher could be set up: the feed then looks every [`TICK`].
    watcher: Option<RecommendedWatcher>,
    sources: Vec<Source>,
    /// Every source's `watched` path.
    watched: HashSet<PathBuf>,
    /// What the events since the last look named.
    due: Due,
    /// When a look last looked at every folder: one is due every [`FALLBACK_LOOK`] however
    /// many events come (a folder whose events never come, e.g. made again under a watch of
    /// the old one, is still looked at).
    looked_at_all: Instant,
    /// Folders listed since [`Feed::take_relisted`] was last called.
    relisted: Vec<(AgentId, Folder)>,
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
            let stir = match event {
                Ok(event) if !may_change_files(event.kind) => return,
                Ok(event) if event.need_rescan() => Stir::Anything,
                Ok(event) => Stir::Paths(event.paths),
                // An error may mean lost events: look again at everything.
                Err(_) => Stir::Anything,
            };
            let _ = sender.send(stir);
        })
        .ok();
        Feed {
            events,
            watcher,
            sources: Vec::new(),
            watched: HashSet::new(),
            due: Due {
                everything: true,
                folders: HashSet::new(),
            },
            looked_at_all: Instant::now(),
            relisted: Vec::new(),
        }
    }

    /// Watch a folder; the files in it now are what later changes are relative to. The watch
    /// starts before the first look, so nothing lands unseen between the two.
    pub fn watch(&mut self, mailbox: &Mailbox, folder: Folder) -> Result<()> {
        let dir = mailbox.folder_path(folder);
        if let Some(watcher) = &mut self.watcher
            && watcher.watch(&dir, RecursiveMode::NonRecursive).is_err()
        {
            // Fall back to looking on every tick for every folder.
            self.watcher = None;
        }
        // The watcher names events by the absolute path of what it watches.
        let watched = std::path::absolute(&dir).unwrap_or(dir);
        self.watched.insert(watched.clone());
        self.due.folders.insert(watched.clone());
        self.sources.push(Source {
            mailbox: mailbox.clone(),
            folder,
            watched,
            mark: Mark::start(mailbox, folder)?,
        });
        Ok(())
    }

    /// What arrived and left since the last look, without waiting; the feed moves on. A folder
    /// the journal could not account for was listed: its arrivals are here, and what left it
    /// is not known ([`Feed::take_relisted`] names it).
    pub fn look(&mut self) -> Result<Vec<Change>> {
        while let Ok(stir) = self.events.try_recv() {
            self.due.add(stir, &self.watched);
        }
        if self.watcher.is_none() || self.looked_at_all.elapsed() >= FALLBACK_LOOK {
            self.due.everything = true;
        }
        let looking_at_all = self.due.everything;
        let mut changes = Vec::new();
        for source in &mut self.sources {
            if !self.due.includes(&source.watched) {
                continue;
            }
            let step = source.mark.advance(&source.mailbox, source.folder)?;
            let agent = source.mailbox.owner();
            if step.relisted {
                self.relisted.push((agent.clone(), source.folder));
            }
            for seen in step.changes {
                let kind = match seen.kind {
                    Kind::Added | Kind::Rewritten => ChangeKind::Arrived,
                    Kind::Removed => ChangeKind::Left,
                };
                let rewrite = match kind {
                    ChangeKind::Arrived if !step.relisted => Some(seen.kind == Kind::Rewritten),
                    _ => None,
                };
                if let Some(ctime) = seen.ctime {
                    source.mark.know(seen.file.as_str(), seen.ino, ctime);
                }
                changes.push(Change {
                    agent: agent.clone(),
                    folder: source.folder,
                    file: seen.file,
                    kind,
                    rewrite,
                    ino: seen.ino,
                });
            }
        }
        // Only a look that got through every folder due lets go of them: after an error the
        // next look tries them again.
        self.due = Due::default();
        if looking_at_all {
            self.looked_at_all = Instant::now();
        }
        changes.sort_by(|a, b| (&a.file, a.kind as u8).cmp(&(&b.file, b.kind as u8)));
        Ok(changes)
    }

    /// The folders listed because their journal did not explain a change, since the last call:
    /// what left them was not reported (a consumer that shows folders lists them again).
    pub fn take_relisted(&mut self) -> Vec<(AgentId, Folder)> {
        std::mem::take(&mut self.relisted)
    }

    /// Block until something changed in a watched folder: the changes (or none, when a folder
    /// was listed: see [`Feed::take_relisted`]), or nothing when `deadline` passed or
    /// `cancelled()` turned true first.
    pub fn next(
        &mut self,
        deadline: Option<Instant>,
        cancelled: &dyn Fn() -> bool,
    ) -> Result<Vec<Change>> {
        loop {
            let changes = self.look()?;
            if !changes.is_empty() || !self.relisted.is_empty() {
                return Ok(changes);
            }
            if self.sleep(deadline, cancelled) != Wake::Look {
                return Ok(Vec::new());
            }
        }
    }

    /// Sleep until an event (or the fallback look), the deadline, or a cancellation.
    pub fn sleep(&mut self, deadline: Option<Instant>, cancelled: &dyn Fn() -> bool) -> Wake {
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
                return Wake::Look;
            }
            let wait = TICK.min(look_at - now);
            let wait = deadline.map_or(wait, |d| wait.min(d.saturating_duration_since(now)));
            match self.events.recv_timeout(wait) {
                Ok(stir) => {
                    self.due.add(stir, &self.watched);
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

    /// Two changes made at once, which a feed may see in one look or two.
    fn two_changes(feed: &mut Feed) -> Vec<Change> {
        let mut changes = feed.next(None, &|| false).unwrap();
        if changes.len() < 2 {
            changes.extend(feed.next(None, &|| false).unwrap());
        }
        changes
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
        let done = crate::store::Destination {
            tmp: a.tmp(),
            dir: a.folder_path(Folder::Done),
            name: old.to_string(),
        };
        let inbox = a.folder_path(Folder::Inbox);
        crate::store::move_message(&a.tmp(), &inbox.join(old.as_str()), &[done], |bytes| {
            Ok(vec![bytes.to_vec()])
        })
        .unwrap();
        let changes = two_changes(&mut feed);
        let seen: Vec<_> = changes
            .iter()
            .map(|c| (c.agent.as_str(), c.folder, c.file.as_str(), c.kind))
            .collect();
        assert!(seen.contains(&("a", Folder::Inbox, old.as_str(), ChangeKind::Left)));
        assert!(seen.contains(&("b", Folder::Done, new.as_str(), ChangeKind::Arrived)));
        assert_eq!(seen.len(), 2, "{seen:?}");
        assert!(
            feed.take_relisted().is_empty(),
            "the journals explained both"
        );

        // Another tool deletes a file: the feed cannot say what left, and says so.
        let by_hand = put(&b, Folder::Done, "00000003");
        feed.look().unwrap();
        std::fs::remove_file(b.folder_path(Folder::Done).join(by_hand.as_str())).unwrap();
        assert!(feed.next(None, &|| false).unwrap().is_empty());
        assert_eq!(
            feed.take_relisted(),
            [(AgentId::new("b").unwrap(), Folder::Done)]
        );
    }

    #[test]
    fn an_event_makes_its_folder_due_and_a_warning_makes_every_folder_due() {
        let inbox = PathBuf::from("/m/a/inbox");
        let done = PathBuf::from("/m/a/done");
        let watched = HashSet::from([inbox.clone(), done.clone()]);
        let mut due = Due::default();
        due.add(Stir::Paths(vec![inbox.join("x.md")]), &watched);
        assert!(due.includes(&inbox), "a file's event names its folder");
        assert!(!due.includes(&done));
        due.add(Stir::Paths(vec![done.clone()]), &watched);
        assert!(
            due.includes(&done),
            "an event on the folder itself names it"
        );
        let mut warned = Due::default();
        warned.add(Stir::Paths(Vec::new()), &watched);
        assert!(
            warned.includes(&inbox),
            "an event without paths names nothing: look at all"
        );
        let mut lost = Due::default();
        lost.add(Stir::Anything, &watched);
        assert!(lost.includes(&done));
        let mut elsewhere = Due::default();
        elsewhere.add(
            Stir::Paths(vec![PathBuf::from("/private/m/a/inbox/x.md")]),
            &watched,
        );
        assert!(
            elsewhere.includes(&done),
            "a path in a form not watched names nothing certain: look at all"
        );
    }

    /// A mailbox named by a relative path (a config given as `hub/config.json`): the watcher
    /// reports absolute paths, and the change is still seen at once, not at the fallback look.
    #[test]
    fn a_folder_watched_by_a_relative_path_is_looked_at_on_its_events() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("a");
        let absolute = Mailbox::open(AgentId::new("a").unwrap(), root.clone()).unwrap();
        let cwd = std::env::current_dir().unwrap();
        let relative: PathBuf = std::iter::repeat_n("..", cwd.components().count())
            .collect::<PathBuf>()
            .join(root.strip_prefix("/").unwrap());
        let a = Mailbox::open_to_read(AgentId::new("a").unwrap(), relative).unwrap();
        let mut feed = Feed::new();
        feed.watch(&a, Folder::Inbox).unwrap();
        assert!(feed.look().unwrap().is_empty());
        let started = Instant::now();
        let arrived = put(&absolute, Folder::Inbox, "00000001");
        let seen = feed
            .next(Some(started + Duration::from_secs(10)), &|| false)
            .unwrap();
        assert_eq!(seen.first().map(|c| &c.file), Some(&arrived));
        assert!(started.elapsed() < FALLBACK_LOOK, "{:?}", started.elapsed());
    }

    #[test]
    fn changes_in_two_folders_between_looks_are_both_reported() {
        let dir = tempfile::tempdir().unwrap();
        let a = Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap();
        let mut feed = Feed::new();
        feed.watch(&a, Folder::Inbox).unwrap();
        feed.watch(&a, Folder::Done).unwrap();
        assert!(feed.look().unwrap().is_empty());
        // Events for both folders are queued before the look: both are due.
        let first = put(&a, Folder::Inbox, "00000001");
        let second = put(&a, Folder::Done, "00000002");
        let files: Vec<_> = two_changes(&mut feed)
            .iter()
            .map(|c| c.file.clone())
            .collect();
        assert_eq!(files, [first, second]);
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
