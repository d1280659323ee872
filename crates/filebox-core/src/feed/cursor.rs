//! The inbox cursor: how far `wait` has got in my inbox's changes, kept in
//! `.filebox/inbox-cursor`, so that mail arriving between two waits (or while no one waited) is
//! returned by the next one, and by one wait only: the cursor is loaded, advanced and saved
//! under `.filebox/inbox-cursor.lock`, so a CLI `filebox wait` and an MCP `wait_for_messages`
//! running at once never both return a message. The lock is held from finding the mail until
//! the cursor is saved, which a caller does after reporting the mail ([`Claim`]): a waiter
//! killed in between leaves the cursor where it was, so mail is reported at least once. A
//! message that leaves and comes back (a reply moves the same file name back in) has a new
//! inode, so it counts as new. Derived state: deleting the file only makes the next wait start
//! from the inbox as it is.
//!
//! What is kept is a place in the inbox's change journal (`mark.rs`) and the arrivals still
//! owed (files that could not be read yet), so a wait's cost and the file's size follow what
//! changed, not the inbox's size. Format 2, lines of tab-separated fields: `filebox-cursor 2`;
//! `mark <journal inode> <journal length> <folder mtime ns>` (`-` for none); `recent <inode>
//! <ctime ns> <name>` for each file returned in the mark's last instant; `owed <inode> <name>`.
//! Format 1 (until 2026-11) held one `<inode>\t<name>` line per inbox file returned; it is
//! still read (the inbox is listed once against it) and the next save writes format 2.

use rustix::fs::OFlags;
use std::collections::{HashMap, HashSet};
use std::fmt::Write;
use std::io::Read;
use std::os::unix::fs::MetadataExt;

use crate::error::{IoContext, Result};
use crate::feed::mark::Mark;
use crate::folder::Folder;
use crate::fs::beneath::Place;
use crate::fs::file_system::ctime_ns;
use crate::mailbox::{Envelope, Mailbox, Problem};
use crate::message::FileName;
use crate::store;
use crate::store::journal::Kind;

const FILE: &str = "inbox-cursor";
const LOCK: &str = "inbox-cursor.lock";
const FORMAT_2: &str = "filebox-cursor 2";

/// Where waits have got to in the inbox.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Cursor {
    mark: Mark,
    /// Arrivals not returned yet (name, inode): unreadable when last tried.
    owed: HashSet<(String, u64)>,
}

impl Cursor {
    /// The inbox as it is now, all of it returned.
    fn start(mailbox: &Mailbox) -> Result<Cursor> {
        Ok(Cursor {
            mark: Mark::start(mailbox, Folder::Inbox)?,
            owed: HashSet::new(),
        })
    }

    /// A format 1 cursor (the set of files returned): the inbox now, owing what it holds
    /// that the set does not name.
    fn from_returned(mailbox: &Mailbox, returned: &HashSet<(&str, u64)>) -> Result<Cursor> {
        // Marked before listing: what lands meanwhile is after the mark, or listed and known.
        let mut cursor = Cursor::start(mailbox)?;
        mailbox.visit_file_entries(Folder::Inbox, |file, entry| {
            let Ok(meta) = entry.metadata() else { return };
            let name = file.as_str();
            if returned.contains(&(name, meta.ino())) {
                cursor.mark.know(name, meta.ino(), ctime_ns(&meta));
            } else {
                cursor.owed.insert((name.to_owned(), meta.ino()));
            }
        })?;
        Ok(cursor)
    }

    fn parse(text: &str) -> Option<Cursor> {
        let mut lines = text.lines();
        if lines.next()? != FORMAT_2 {
            return None;
        }
        let mut mark = Mark::default();
        let mut owed = HashSet::new();
        for line in lines {
            let mut fields = line.splitn(4, '\t');
            match fields.next()? {
                "mark" => {
                    let ino = number(fields.next())?;
                    let len = number(fields.next())?;
                    mark.journal = ino.zip(len);
                    mark.mtime = number(fields.next())?;
                }
                "recent" => {
                    let ino = fields.next()?.parse().ok()?;
                    let ctime = fields.next()?.parse().ok()?;
                    mark.recent.insert((fields.next()?.to_owned(), ino), ctime);
                }
                "owed" => {
                    let ino = fields.next()?.parse().ok()?;
                    owed.insert((fields.next()?.to_owned(), ino));
                }
                _ => return None,
            }
        }
        Some(Cursor { mark, owed })
    }

    fn render(&self) -> String {
        let or_dash = |n: Option<String>| n.unwrap_or_else(|| "-".to_owned());
        let (ino, len) = match self.mark.journal {
            Some((ino, len)) => (Some(ino.to_string()), Some(len.to_string())),
            None => (None, None),
        };
        let mut text = format!(
            "{FORMAT_2}\nmark\t{}\t{}\t{}\n",
            or_dash(ino),
            or_dash(len),
            or_dash(self.mark.mtime.map(|m| m.to_string()))
        );
        for ((name, ino), ctime) in &self.mark.recent {
            let _ = writeln!(text, "recent\t{ino}\t{ctime}\t{name}");
        }
        for (name, ino) in &self.owed {
            let _ = writeln!(text, "owed\t{ino}\t{name}");
        }
        text
    }

    /// An inbox file was rewritten in place (a read receipt: `old` became `new`): if a wait
    /// returned the old version, the new one is returned too, not news.
    pub(crate) fn rewritten(
        &mut self,
        name: &str,
        old: &std::fs::Metadata,
        new: &std::fs::Metadata,
    ) {
        let returned = !self.owed.contains(&(name.to_owned(), old.ino()))
            && self.mark.knows(name, old.ino(), ctime_ns(old));
        if returned {
            self.mark.know(name, new.ino(), ctime_ns(new));
        }
    }
}

/// A field of a `mark` line: a number, or `-` for none; `None` when it is neither.
fn number<T: std::str::FromStr>(field: Option<&str>) -> Option<Option<T>> {
    match field? {
        "-" => Some(None),
        n => n.parse().ok().map(Some),
    }
}

/// Where waits have got to; `None` when no wait ever ran (or the cursor was deleted, or is
/// damaged: the next wait starts from the inbox as it is).
pub(crate) fn load(mailbox: &Mailbox) -> Result<Option<Cursor>> {
    let path = mailbox.state_dir().join(FILE);
    let mut file = match Place::new(mailbox.root(), &path).open(OFlags::RDONLY, 0) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(store::refuse_link(&path, e)),
    };
    let mut text = String::new();
    file.read_to_string(&mut text).at(&path)?;
    if text.starts_with(FORMAT_2) {
        return Ok(Cursor::parse(&text));
    }
    let returned = inode_lines(&text).map(|(ino, name)| (name, ino)).collect();
    Cursor::from_returned(mailbox, &returned).map(Some)
}

/// The `<inode>\t<text>` lines of a state file (the read marks, a format 1 cursor); a line
/// that does not parse (a torn last line after a crash) is skipped.
pub(crate) fn inode_lines(text: &str) -> impl Iterator<Item = (u64, &str)> {
    text.lines().filter_map(|line| {
        let (ino, rest) = line.split_once('\t')?;
        Some((ino.parse().ok()?, rest))
    })
}

/// Record where waits have got to (a new file renamed over the old one: never followed).
fn save(mailbox: &Mailbox, cursor: &Cursor) -> Result<()> {
    store::write_file_atomic(&mailbox.state_dir().join(FILE), cursor.render().as_bytes())
}

/// What a wait or a watch found: new messages (oldest first), and inbox files that arrived
/// but could not be read.
#[derive(Debug, Default)]
pub struct Arrivals {
    pub messages: Vec<Envelope>,
    pub unreadable: Vec<Problem>,
}

impl Arrivals {
    pub(crate) fn sort(&mut self) {
        Envelope::sort_oldest_first(&mut self.messages);
    }
}

/// Mail a wait found and claimed, not yet recorded as returned: the cursor's lock is held
/// until [`Claim::commit`] saves the cursor (after the caller has reported the mail) or the
/// claim is dropped (nothing saved: the next wait returns the same mail again). So a waiter
/// killed between finding mail and reporting it skips nothing, and two waiters never both
/// report a message, since the second waits for the first's lock.
#[derive(Debug, Default)]
#[must_use = "the cursor moves only when the claim is committed"]
pub struct Claim {
    pending: Option<(Mailbox, Cursor, store::Lock)>,
}

impl Claim {
    /// Record the claimed mail as returned (call it once the mail is reported), then let the
    /// next waiter in.
    pub fn commit(self) -> Result<()> {
        match self.pending {
            Some((mailbox, cursor, lock)) => {
                save(&mailbox, &cursor)?;
                drop(lock);
                Ok(())
            }
            None => Ok(()),
        }
    }
}

impl Claim {
    /// The mailbox and the cursor this claim will save, when it claimed mail.
    pub(crate) fn pending_mut(&mut self) -> Option<(&Mailbox, &mut Cursor)> {
        self.pending
            .as_mut()
            .map(|(mailbox, cursor, _)| (&*mailbox, cursor))
    }
}

/// Wait for and take the cursor's lock.
fn take_lock(mailbox: &Mailbox) -> Result<store::Lock> {
    let path = mailbox.state_dir().join(LOCK);
    store::Lock::take(Place::new(mailbox.root(), &path))
}

/// The cursor loaded under its lock, for a change made outside a wait (a read receipt
/// rewrites a file the cursor may know): [`Locked::save`] writes it back.
pub(crate) struct Locked {
    mailbox: Mailbox,
    cursor: Option<Cursor>,
    _lock: store::Lock,
}

impl Locked {
    /// Wait for the cursor's lock, then load it.
    pub(crate) fn take(mailbox: &Mailbox) -> Result<Locked> {
        let lock = take_lock(mailbox)?;
        Ok(Locked {
            mailbox: mailbox.clone(),
            cursor: load(mailbox)?,
            _lock: lock,
        })
    }

    /// Where waits have got to; `None` when no wait ever ran.
    pub(crate) fn cursor(&mut self) -> Option<&mut Cursor> {
        self.cursor.as_mut()
    }

    /// Save the cursor (when there is one), then let the next waiter in.
    pub(crate) fn save(self) -> Result<()> {
        match &self.cursor {
            Some(cursor) => save(&self.mailbox, cursor),
            None => Ok(()),
        }
    }
}

/// Under the cursor's lock: the inbox messages no wait has returned yet, oldest first, and a
/// [`Claim`] that records them as returned when committed (holding the lock until then). The
/// first claim ever records the inbox as it is and returns nothing. A file that cannot be read
/// is reported and owed, so a later claim returns it once it can be read (another tool may
/// still be writing it).
pub(crate) fn claim_new_mail(mailbox: &Mailbox) -> Result<(Arrivals, Claim)> {
    claim(mailbox, Hold::WhenClaimed)
}

/// A claim that holds the lock even when nothing is new and, committed, records the inbox as
/// it is then as returned: for a caller that shows the inbox unasked (a session's start) and
/// must keep waits from reporting it meanwhile.
pub(crate) fn claim_inbox(mailbox: &Mailbox) -> Result<Claim> {
    claim(mailbox, Hold::Always).map(|(_, claim)| claim)
}

/// When a claim keeps the cursor's lock.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hold {
    WhenClaimed,
    Always,
}

fn claim(mailbox: &Mailbox, hold: Hold) -> Result<(Arrivals, Claim)> {
    let lock = take_lock(mailbox)?;
    let Some(mut cursor) = load(mailbox)? else {
        let cursor = Cursor::start(mailbox)?;
        if hold == Hold::Always {
            let claim = Claim {
                pending: Some((mailbox.clone(), cursor, lock)),
            };
            return Ok((Arrivals::default(), claim));
        }
        save(mailbox, &cursor)?;
        return Ok((Arrivals::default(), Claim::default()));
    };
    let before = cursor.clone();
    let step = cursor.mark.advance(mailbox, Folder::Inbox)?;
    let mut candidates: Vec<(String, u64)> = cursor.owed.drain().collect();
    for seen in step.changes {
        match seen.kind {
            Kind::Added | Kind::Rewritten => candidates.push((seen.file.to_string(), seen.ino)),
            Kind::Removed => candidates.retain(|c| *c != (seen.file.to_string(), seen.ino)),
        }
    }
    let arrivals = read_arrivals(mailbox, &mut cursor, candidates);
    if arrivals.messages.is_empty() && hold == Hold::WhenClaimed {
        // Nothing claimed: the lock is let go. Where the cursor got to is kept, so the next
        // claim does not read the same changes again.
        if cursor != before {
            save(mailbox, &cursor)?;
        }
        return Ok((arrivals, Claim::default()));
    }
    let claim = Claim {
        pending: Some((mailbox.clone(), cursor, lock)),
    };
    Ok((arrivals, claim))
}

/// Read the arrived files (name, inode) still there: a readable one is returned (and known to
/// the cursor), an unreadable one reported and owed; one gone or replaced meanwhile is not
/// reported (its replacement, or its return after a killed move's recovery, is a change of
/// its own).
fn read_arrivals(
    mailbox: &Mailbox,
    cursor: &mut Cursor,
    candidates: Vec<(String, u64)>,
) -> Arrivals {
    let inbox = mailbox.folder_path(Folder::Inbox);
    let mut arrivals = Arrivals::default();
    let mut ids = HashSet::new();
    let mut known: HashMap<(String, u64), i64> = HashMap::new();
    for (name, ino) in candidates {
        let Ok(file) = FileName::new(&name) else {
            continue;
        };
        let path = inbox.join(&name);
        let Some(meta) = std::fs::symlink_metadata(&path)
            .ok()
            .filter(|meta| meta.ino() == ino && meta.is_file())
        else {
            continue;
        };
        match mailbox.envelope(Folder::Inbox, &file) {
            Ok(Some(envelope)) => {
                if ids.insert(envelope.header.id().to_owned()) {
                    arrivals.messages.push(envelope);
                }
                known.insert((name, ino), ctime_ns(&meta));
            }
            Ok(None) => {}
            Err(e) => {
                arrivals.unreadable.push(Problem {
                    path,
                    reason: e.to_string(),
                });
                cursor.owed.insert((name, ino));
            }
        }
    }
    for ((name, ino), ctime) in known {
        cursor.mark.know(&name, ino, ctime);
    }
    arrivals.sort();
    arrivals
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::AgentId;

    const NAME: &str = "20250101T000000-DIS-hi-00000009.md";
    const TEXT: &str =
        "# DIS: hi\n\n**Message ID:** 00000009-0000\n\n---\n\n## Original Request/Content\n\nx\n";

    fn claim(mailbox: &Mailbox) -> Vec<String> {
        let (arrivals, claim) = claim_new_mail(mailbox).unwrap();
        claim.commit().unwrap();
        let ids = arrivals.messages.iter().map(|m| m.header.id().to_owned());
        ids.collect()
    }

    fn mailbox(dir: &tempfile::TempDir) -> Mailbox {
        Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap()
    }

    fn put(mailbox: &Mailbox, n: u32) -> String {
        let name = NAME.replace("00000009", &format!("{n:08}"));
        let text = TEXT.replace("00000009", &format!("{n:08}"));
        store::publish_new(
            &mailbox.tmp(),
            &mailbox.folder_path(Folder::Inbox),
            &name,
            text.as_bytes(),
        )
        .unwrap();
        name
    }

    /// A file claimed into `tmp/` by another process's move before it is read: not reported,
    /// and not recorded either, so when a killed move's recovery puts it back (same name, same
    /// inode) the next claim reports it.
    #[test]
    fn a_file_gone_between_listing_and_reading_is_reported_once_back() {
        let dir = tempfile::tempdir().unwrap();
        let mailbox = mailbox(&dir);
        let inbox = mailbox.folder_path(Folder::Inbox);
        assert!(
            claim(&mailbox).is_empty(),
            "the first claim is the baseline"
        );
        let name = put(&mailbox, 9);
        put(&mailbox, 10);
        let claimed = mailbox.tmp().join("claimed");
        std::fs::rename(inbox.join(&name), &claimed).unwrap();
        assert_eq!(claim(&mailbox), ["00000010-0000"]);
        std::fs::rename(&claimed, inbox.join(&name)).unwrap();
        assert_eq!(claim(&mailbox), ["00000009-0000"]);
        assert!(claim(&mailbox).is_empty());
    }

    /// A cursor of the first format (every file returned) is read: what it names is not
    /// returned again, what it does not name is, and the next save is the new format.
    #[test]
    fn a_cursor_of_the_first_format_is_read_and_written_anew() {
        let dir = tempfile::tempdir().unwrap();
        let mailbox = mailbox(&dir);
        let returned = put(&mailbox, 1);
        put(&mailbox, 2);
        let ino = std::fs::metadata(mailbox.folder_path(Folder::Inbox).join(&returned))
            .unwrap()
            .ino();
        let path = mailbox.state_dir().join(FILE);
        std::fs::write(&path, format!("{ino}\t{returned}\n")).unwrap();
        assert_eq!(claim(&mailbox), ["00000002-0000"]);
        assert!(
            std::fs::read_to_string(&path)
                .unwrap()
                .starts_with(FORMAT_2)
        );
        assert!(claim(&mailbox).is_empty());
        put(&mailbox, 3);
        assert_eq!(claim(&mailbox), ["00000003-0000"]);
    }

    /// The cursor holds a place, not the inbox: its size does not follow the inbox's.
    #[test]
    fn the_cursor_stays_small_however_large_the_inbox() {
        let dir = tempfile::tempdir().unwrap();
        let mailbox = mailbox(&dir);
        assert!(claim(&mailbox).is_empty());
        for n in 0..500 {
            put(&mailbox, n);
        }
        assert_eq!(claim(&mailbox).len(), 500);
        let cursor = load(&mailbox).unwrap().unwrap();
        assert!(cursor.owed.is_empty());
        assert!(
            cursor.mark.recent.len() < 50,
            "{} files kept",
            cursor.mark.recent.len()
        );
        put(&mailbox, 1000);
        assert_eq!(claim(&mailbox), ["00001000-0000"]);
    }

    /// A waiter killed after writing its receipts but before reporting the mail (the claim
    /// dropped, not committed) skips nothing, even when the next claim has to list the inbox
    /// (a file dropped in by hand): the rewritten files are returned again.
    #[test]
    fn mail_read_by_a_waiter_killed_before_reporting_it_is_returned_after_a_listing() {
        let dir = tempfile::tempdir().unwrap();
        let mailbox = mailbox(&dir);
        let inbox = mailbox.folder_path(Folder::Inbox);
        assert!(claim(&mailbox).is_empty());
        put(&mailbox, 1);
        let (arrivals, mut killed) = claim_new_mail(&mailbox).unwrap();
        killed.mark_read(&arrivals.messages, "a", "wait").unwrap();
        drop(killed);
        let by_hand = NAME.replace("00000009", "00000077");
        std::fs::write(inbox.join(by_hand), TEXT.replace("00000009", "00000077")).unwrap();
        assert_eq!(claim(&mailbox), ["00000001-0000", "00000077-0000"]);
        assert!(claim(&mailbox).is_empty());
    }

    /// A damaged cursor is no cursor: the next wait starts from the inbox as it is.
    #[test]
    fn a_damaged_cursor_starts_again_from_the_inbox_as_it_is() {
        let dir = tempfile::tempdir().unwrap();
        let mailbox = mailbox(&dir);
        put(&mailbox, 1);
        std::fs::write(
            mailbox.state_dir().join(FILE),
            format!("{FORMAT_2}\nmark\tx\n"),
        )
        .unwrap();
        assert!(claim(&mailbox).is_empty());
        put(&mailbox, 2);
        assert_eq!(claim(&mailbox), ["00000002-0000"]);
    }
}
