//! Where a reader of one folder's changes stands (the change feed's, the wait cursor's): the
//! folder's change journal (`journal.rs`) read up to a position, and the folder's mtime there.
//! The next look reads only the journal's new lines, so what a reader holds and does is
//! proportional to what changed, never to how many files the folder has.
//!
//! When the journal does not explain the folder's change (no journal, a recreated, truncated or
//! hand-edited one; a file another tool wrote, renamed or deleted; a writer killed before its
//! line), the folder is listed, one entry at a time, and a file counts as arrived when its inode
//! changed (its ctime) at or after the mark's mtime: every link and rename stamps the file's
//! ctime from the clock that stamps the folder's mtime, and nothing in user space can set it
//! back. Files the reader already knows that are that recent are kept in the mark (`recent`),
//! so none is reported twice; older ones are never kept. A listing cannot tell what left: it
//! says it listed ([`Step::relisted`]). A listing reports at least once, not exactly once: a
//! file whose inode changed for another reason since the mark (touched by hand, `chmod`; a
//! second name of it, an outbox copy, that came or went) is reported again. Not covered: the
//! system clock set back between the mark and a listing (files stamped in the gap are missed
//! by that listing).

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;

use crate::error::{IoContext, Result};
use crate::folder::Folder;
use crate::fs::file_system::ctime_ns;
use crate::mailbox::Mailbox;
use crate::message::FileName;
use crate::store::journal::{self, Entry, Kind, Since};

/// A reader's place in one folder's changes.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub(crate) struct Mark {
    /// The journal as far as read (inode, length); `None`: there was none.
    pub(crate) journal: Option<(u64, u64)>,
    /// The folder's mtime (ns) at that position; `None`: the folder was not there.
    pub(crate) mtime: Option<i64>,
    /// Files the reader knows whose ctime is at or after `mtime` (name, inode → ctime): a
    /// listing would otherwise take them for new. Few: what changed in the last instant.
    pub(crate) recent: HashMap<(String, u64), i64>,
}

/// One file that came or went since the last look.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Seen {
    pub(crate) kind: Kind,
    pub(crate) file: FileName,
    pub(crate) ino: u64,
    /// The file's ctime (ns) when it arrived and is still there.
    pub(crate) ctime: Option<i64>,
}

/// What a look found.
#[derive(Debug, Default)]
pub(crate) struct Step {
    /// In the order they happened; a file that came and went between two looks is in neither.
    pub(crate) changes: Vec<Seen>,
    /// The journal did not explain the change and the folder was listed: `changes` holds the
    /// arrivals only, and what left is not known.
    pub(crate) relisted: bool,
}

impl Mark {
    /// The folder as it is now: later looks report what changes from here.
    pub(crate) fn start(mailbox: &Mailbox, folder: Folder) -> Result<Mark> {
        let dir = mailbox.folder_path(folder);
        let snapshot = journal::snapshot(&dir, Since::Unread).at(&dir)?;
        let mut mark = Mark {
            journal: snapshot.journal,
            mtime: snapshot.folder.as_ref().map(journal::mtime_ns),
            recent: HashMap::new(),
        };
        // The files of the last changes may carry a ctime at or after the folder's mtime (a
        // publish unlinks its staged name after the link): they are there now, so known.
        let last = snapshot.journal.map(|at| journal::tail(&dir, at));
        for entry in last.into_iter().flatten().filter(|e| e.kind.adds()) {
            if let Ok(meta) = std::fs::symlink_metadata(dir.join(&entry.name))
                && meta.ino() == entry.ino
            {
                mark.know(&entry.name, entry.ino, ctime_ns(&meta));
            }
        }
        Ok(mark)
    }

    /// Whether a file the reader knows (`name`, `ino`, changed at `ctime`) is one a listing
    /// would report: then it is remembered as known.
    pub(crate) fn know(&mut self, name: &str, ino: u64, ctime: i64) {
        if self.mtime.is_none_or(|mtime| ctime >= mtime) {
            self.recent.insert((name.to_owned(), ino), ctime);
        }
    }

    /// Whether the reader knows this version of the file: it is older than the mark (so it was
    /// there when the mark was made or reported before), or remembered as recent.
    pub(crate) fn knows(&self, name: &str, ino: u64, ctime: i64) -> bool {
        self.mtime.is_some_and(|mtime| ctime < mtime)
            || self.recent.contains_key(&(name.to_owned(), ino))
    }

    /// What came and went since the last look; the mark moves on to now.
    pub(crate) fn advance(&mut self, mailbox: &Mailbox, folder: Folder) -> Result<Step> {
        let dir = mailbox.folder_path(folder);
        if let Some(mtime) = self.mtime
            && journal::settled(mtime, false)
            && std::fs::symlink_metadata(&dir).is_ok_and(|m| journal::mtime_ns(&m) == mtime)
        {
            // The common case: one `stat`, nothing changed.
            return Ok(Step::default());
        }
        // Taken before any listing: a change after this point is after the new mark.
        let snapshot = journal::snapshot(&dir, Since::after(self.journal)).at(&dir)?;
        let now = snapshot.folder.as_ref().map(journal::mtime_ns);
        let explained = match (self.mtime, now, &snapshot.entries) {
            (Some(from), Some(to), Some(entries)) => journal::explains(entries, from, to),
            (None, None, _) => true,
            _ => false,
        };
        let step = match snapshot.entries.filter(|_| explained) {
            Some(entries) => Step {
                changes: self.replay(mailbox, folder, entries),
                relisted: false,
            },
            None => Step {
                changes: self.relist(mailbox, folder)?,
                relisted: true,
            },
        };
        self.journal = snapshot.journal;
        self.mtime = now;
        if let Some(mtime) = now {
            self.recent.retain(|_, ctime| *ctime >= mtime);
        }
        Ok(step)
    }

    /// The journal's entries as changes: a file that came and went is left out, and so is the
    /// arrival of a file the reader already knows (a listing that raced the journal saw it).
    fn replay(&mut self, mailbox: &Mailbox, folder: Folder, entries: Vec<Entry>) -> Vec<Seen> {
        let mut changes: Vec<Option<Seen>> = Vec::new();
        let mut arrived: HashMap<(String, u64), usize> = HashMap::new();
        for entry in entries {
            let Ok(file) = FileName::new(&entry.name) else {
                continue;
            };
            let key = (entry.name, entry.ino);
            match entry.kind {
                Kind::Added | Kind::Rewritten if self.recent.contains_key(&key) => {}
                Kind::Added | Kind::Rewritten => {
                    arrived.insert(key, changes.len());
                    changes.push(Some(Seen {
                        kind: entry.kind,
                        file,
                        ino: entry.ino,
                        ctime: None,
                    }));
                }
                Kind::Removed => {
                    self.recent.remove(&key);
                    match arrived.remove(&key) {
                        Some(at) => changes[at] = None,
                        None => changes.push(Some(Seen {
                            kind: Kind::Removed,
                            file,
                            ino: entry.ino,
                            ctime: None,
                        })),
                    }
                }
            }
        }
        let dir = mailbox.folder_path(folder);
        let mut changes: Vec<Seen> = changes.into_iter().flatten().collect();
        for seen in &mut changes {
            if seen.kind.adds() {
                seen.ctime = std::fs::symlink_metadata(dir.join(seen.file.as_str()))
                    .ok()
                    .filter(|meta| meta.ino() == seen.ino && meta.is_file())
                    .map(|meta| ctime_ns(&meta));
            }
        }
        changes
    }

    /// The folder listed: the files changed at or after the mark that the reader does not know.
    fn relist(&self, mailbox: &Mailbox, folder: Folder) -> Result<Vec<Seen>> {
        let mut arrived = Vec::new();
        // What is not a message file is reported by listings, not by a look for changes.
        let _problems = mailbox.visit_file_entries(folder, |file, entry| {
            let Ok(meta) = entry.metadata() else {
                return; // gone meanwhile
            };
            let ctime = ctime_ns(&meta);
            if !self.knows(file.as_str(), meta.ino(), ctime) {
                arrived.push(Seen {
                    kind: Kind::Added,
                    file,
                    ino: meta.ino(),
                    ctime: Some(ctime),
                });
            }
        })?;
        Ok(arrived)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::AgentId;

    fn put(mailbox: &Mailbox, id8: &str) -> String {
        let name = format!("20250101T000000-DIS-hi-{id8}.md");
        crate::store::publish_new(
            &mailbox.tmp(),
            &mailbox.folder_path(Folder::Inbox),
            &name,
            b"# DIS: hi\n",
        )
        .unwrap();
        name
    }

    fn seen(step: &Step) -> Vec<(Kind, &str)> {
        step.changes
            .iter()
            .map(|s| (s.kind, s.file.as_str()))
            .collect()
    }

    fn mailbox(dir: &tempfile::TempDir) -> Mailbox {
        Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap()
    }

    #[test]
    fn the_journal_gives_the_changes_and_a_file_that_came_and_went_is_in_none() {
        let dir = tempfile::tempdir().unwrap();
        let mb = mailbox(&dir);
        put(&mb, "00000001");
        let mut mark = Mark::start(&mb, Folder::Inbox).unwrap();
        let kept = put(&mb, "00000002");
        let gone = put(&mb, "00000003");
        let inbox = mb.folder_path(Folder::Inbox);
        let done = crate::store::Destination {
            tmp: mb.tmp(),
            dir: mb.folder_path(Folder::Done),
            name: gone.clone(),
        };
        crate::store::move_message(&mb.tmp(), &inbox.join(&gone), &[done], |bytes| {
            Ok(vec![bytes.to_vec()])
        })
        .unwrap();
        let step = mark.advance(&mb, Folder::Inbox).unwrap();
        assert!(!step.relisted);
        assert_eq!(seen(&step), [(Kind::Added, kept.as_str())]);
        assert!(step.changes[0].ctime.is_some());
        let step = mark.advance(&mb, Folder::Inbox).unwrap();
        assert!(step.changes.is_empty() && !step.relisted);
    }

    #[test]
    fn a_change_the_journal_does_not_explain_is_found_by_listing_what_changed_since() {
        let dir = tempfile::tempdir().unwrap();
        let mb = mailbox(&dir);
        put(&mb, "00000001");
        let mut mark = Mark::start(&mb, Folder::Inbox).unwrap();
        let known = put(&mb, "00000002");
        let step = mark.advance(&mb, Folder::Inbox).unwrap();
        let arrival = &step.changes[0];
        mark.know(known.as_str(), arrival.ino, arrival.ctime.unwrap());
        // Another tool drops a file in, and the journal is deleted.
        let by_hand = "20250101T000000-DIS-hi-00000004.md";
        let inbox = mb.folder_path(Folder::Inbox);
        std::fs::write(inbox.join(by_hand), "# DIS: hi\n").unwrap();
        std::fs::remove_file(mb.state_dir().join("changes.inbox")).unwrap();
        let step = mark.advance(&mb, Folder::Inbox).unwrap();
        assert!(step.relisted);
        assert_eq!(seen(&step), [(Kind::Added, by_hand)]);
        // The journal starts again and is trusted from the listing on.
        let next = put(&mb, "00000005");
        let step = mark.advance(&mb, Folder::Inbox).unwrap();
        assert!(!step.relisted);
        assert_eq!(seen(&step), [(Kind::Added, next.as_str())]);
    }

    #[test]
    fn a_torn_journal_falls_back_to_a_listing_that_holds_only_recent_files() {
        let dir = tempfile::tempdir().unwrap();
        let mb = mailbox(&dir);
        for n in 0..50 {
            put(&mb, &format!("{n:08}"));
        }
        let mut mark = Mark::start(&mb, Folder::Inbox).unwrap();
        let journal = mb.state_dir().join("changes.inbox");
        let mut torn = std::fs::OpenOptions::new()
            .append(true)
            .open(&journal)
            .unwrap();
        std::io::Write::write_all(&mut torn, b"1\t2\t+").unwrap();
        let late = put(&mb, "00000099");
        let step = mark.advance(&mb, Folder::Inbox).unwrap();
        assert!(step.relisted);
        assert_eq!(seen(&step), [(Kind::Added, late.as_str())]);
        assert!(mark.recent.len() <= 1, "{:?}", mark.recent);
    }
}
