//! The inbox cursor: the inbox files (name and inode) that `wait` has already returned, kept in
//! `.filebox/inbox-cursor`, so that mail arriving between two waits (or while no one waited)
//! is returned by the next one, and by one wait only: the cursor is loaded, advanced and saved
//! under `.filebox/inbox-cursor.lock`, so a CLI `filebox wait` and an MCP `wait_for_messages`
//! running at once never both return a message. The lock is held from finding the mail until
//! the cursor is saved, which a caller does after reporting the mail ([`Claim`]): a waiter
//! killed in between leaves the cursor where it was, so mail is reported at least once. A message that leaves and comes back (a reply
//! moves the same file name back in) has a new inode, so it counts as new. Derived state:
//! deleting the file only makes the next wait start from the inbox as it is.

use rustix::fs::OFlags;
use std::collections::HashSet;
use std::fmt::Write;
use std::io::Read;

use crate::beneath::Place;
use crate::error::{IoContext, Result};
use crate::feed::Baseline;
use crate::folder::Folder;
use crate::mailbox::{Mailbox, Problem};
use crate::message::FileName;
use crate::store;
use crate::watch::Arrivals;

const FILE: &str = "inbox-cursor";
const LOCK: &str = "inbox-cursor.lock";

/// The files already returned; `None` when no wait ever ran (or the cursor was deleted).
pub(crate) fn load(mailbox: &Mailbox) -> Result<Option<Baseline>> {
    let path = mailbox.state_dir().join(FILE);
    let mut file = match Place::new(mailbox.root(), &path).open(OFlags::RDONLY, 0) {
        Ok(file) => file,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(store::refuse_link(&path, e)),
    };
    let mut text = String::new();
    file.read_to_string(&mut text).at(&path)?;
    Ok(Some(Baseline(
        inode_lines(&text)
            .map(|(ino, name)| (name.to_owned(), ino))
            .collect(),
    )))
}

/// The `<inode>\t<text>` lines of a state file (this cursor, the read marks); a line that
/// does not parse (a torn last line after a crash) is skipped.
pub(crate) fn inode_lines(text: &str) -> impl Iterator<Item = (u64, &str)> {
    text.lines().filter_map(|line| {
        let (ino, rest) = line.split_once('\t')?;
        Some((ino.parse().ok()?, rest))
    })
}

/// Record what has been returned (a new file renamed over the old one: never followed).
fn save(mailbox: &Mailbox, returned: &Baseline) -> Result<()> {
    let mut text = String::new();
    for (name, ino) in &returned.0 {
        let _ = writeln!(text, "{ino}\t{name}");
    }
    store::write_file_atomic(&mailbox.state_dir().join(FILE), text.as_bytes())
}

/// Mail a wait found and claimed, not yet recorded as returned: the cursor's lock is held
/// until [`Claim::commit`] saves the cursor (after the caller has reported the mail) or the
/// claim is dropped (nothing saved: the next wait returns the same mail again). So a waiter
/// killed between finding mail and reporting it skips nothing, and two waiters never both
/// report a message, since the second waits for the first's lock.
#[derive(Debug, Default)]
#[must_use = "the cursor moves only when the claim is committed"]
pub struct Claim {
    pending: Option<(Mailbox, Baseline, store::Lock)>,
}

impl Claim {
    /// Record the claimed mail as returned (call it once the mail is reported), then let the
    /// next waiter in.
    pub fn commit(self) -> Result<()> {
        match self.pending {
            Some((mailbox, returned, lock)) => {
                save(&mailbox, &returned)?;
                drop(lock);
                Ok(())
            }
            None => Ok(()),
        }
    }
}

impl Claim {
    /// The mailbox and the cursor this claim will save, when it claimed mail.
    pub(crate) fn pending_mut(&mut self) -> Option<(&Mailbox, &mut Baseline)> {
        self.pending
            .as_mut()
            .map(|(mailbox, returned, _)| (&*mailbox, returned))
    }
}

/// Wait for and take the cursor's lock.
fn take_lock(mailbox: &Mailbox) -> Result<store::Lock> {
    let path = mailbox.state_dir().join(LOCK);
    store::Lock::take(Place::new(mailbox.root(), &path))
}

/// The cursor loaded under its lock, for a change made outside a wait (a read receipt
/// rewrites a file the cursor names): [`Locked::save`] writes it back.
pub(crate) struct Locked {
    mailbox: Mailbox,
    returned: Option<Baseline>,
    _lock: store::Lock,
}

impl Locked {
    /// Wait for the cursor's lock, then load it.
    pub(crate) fn take(mailbox: &Mailbox) -> Result<Locked> {
        let lock = take_lock(mailbox)?;
        Ok(Locked {
            mailbox: mailbox.clone(),
            returned: load(mailbox)?,
            _lock: lock,
        })
    }

    /// The files already returned; `None` when no wait ever ran.
    pub(crate) fn returned(&mut self) -> Option<&mut Baseline> {
        self.returned.as_mut()
    }

    /// Save the cursor (when there is one), then let the next waiter in.
    pub(crate) fn save(self) -> Result<()> {
        match &self.returned {
            Some(returned) => save(&self.mailbox, returned),
            None => Ok(()),
        }
    }
}

/// Under the cursor's lock: the inbox messages no wait has returned yet, oldest first, and a
/// [`Claim`] that records them as returned when committed (holding the lock until then). The
/// first claim ever records the inbox as it is and returns nothing. A file that cannot be read
/// is reported and left out of the cursor, so a later claim returns it once it can be read
/// (another tool may still be writing it).
pub(crate) fn claim_new_mail(mailbox: &Mailbox) -> Result<(Arrivals, Claim)> {
    claim(mailbox, Hold::WhenClaimed)
}

/// [`claim_new_mail`], except that the claim holds the lock even when nothing is new, and the
/// first claim ever returns the whole inbox: for a caller that shows the inbox unasked (a
/// session's start) and must keep waits from reporting it meanwhile.
pub(crate) fn claim_inbox(mailbox: &Mailbox) -> Result<(Arrivals, Claim)> {
    claim(mailbox, Hold::Always)
}

/// When a claim keeps the cursor's lock.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Hold {
    WhenClaimed,
    Always,
}

fn claim(mailbox: &Mailbox, hold: Hold) -> Result<(Arrivals, Claim)> {
    let lock = take_lock(mailbox)?;
    let (entries, _problems) = mailbox.file_entries(Folder::Inbox)?;
    claim_listed(mailbox, lock, entries, hold)
}

/// [`claim_new_mail`] once the inbox is listed: the files may have changed since.
fn claim_listed(
    mailbox: &Mailbox,
    lock: store::Lock,
    entries: Vec<(FileName, u64)>,
    hold: Hold,
) -> Result<(Arrivals, Claim)> {
    let returned = match load(mailbox)? {
        Some(returned) => returned,
        None if hold == Hold::Always => Baseline::default(),
        None => {
            save(mailbox, &Baseline::of(&entries))?;
            return Ok((Arrivals::default(), Claim::default()));
        }
    };
    let mut arrivals = Arrivals::default();
    let mut ids = HashSet::new();
    // Entries not reported now stay out of the cursor, so a later wait reports them: an
    // unreadable file, and one gone between the listing and the read (another process's move
    // claimed it into `tmp/`; if that process is killed, recovery puts it back under the same
    // name and inode).
    let mut unreported = HashSet::new();
    for (name, ino) in &entries {
        if returned.contains(name.as_str(), *ino) {
            continue;
        }
        match mailbox.envelope(Folder::Inbox, name) {
            Ok(Some(envelope)) => {
                if ids.insert(envelope.header.id().to_owned()) {
                    arrivals.messages.push(envelope);
                }
            }
            Ok(None) => {
                unreported.insert(*ino);
            }
            Err(e) => {
                unreported.insert(*ino);
                arrivals.unreadable.push(Problem {
                    path: mailbox.folder_path(Folder::Inbox).join(name.as_str()),
                    reason: e.to_string(),
                });
            }
        }
    }
    arrivals.sort();
    if arrivals.messages.is_empty() && hold == Hold::WhenClaimed {
        return Ok((arrivals, Claim::default()));
    }
    let kept: Vec<_> = entries
        .into_iter()
        .filter(|(_, ino)| !unreported.contains(ino))
        .collect();
    let claim = Claim {
        pending: Some((mailbox.clone(), Baseline::of(&kept), lock)),
    };
    Ok((arrivals, claim))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::AgentId;

    const NAME: &str = "20250101T000000-DIS-hi-00000009.md";
    const TEXT: &str =
        "# DIS: hi\n\n**Message ID:** 00000009-0000\n\n---\n\n## Original Request/Content\n\nx\n";

    fn claim(mailbox: &Mailbox, entries: Vec<(FileName, u64)>) -> Vec<String> {
        let lock = take_lock(mailbox).unwrap();
        let (arrivals, claim) = claim_listed(mailbox, lock, entries, Hold::WhenClaimed).unwrap();
        claim.commit().unwrap();
        let ids = arrivals.messages.iter().map(|m| m.header.id().to_owned());
        ids.collect()
    }

    /// A file listed, then claimed into `tmp/` by another process's move before it is read:
    /// not reported, and not recorded either, so when a killed move's recovery puts it back
    /// (same name, same inode) the next claim reports it.
    #[test]
    fn a_file_gone_between_listing_and_reading_is_reported_once_back() {
        let dir = tempfile::tempdir().unwrap();
        let mailbox = Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap();
        let inbox = mailbox.folder_path(Folder::Inbox);
        let listing = || mailbox.file_entries(Folder::Inbox).unwrap().0;
        assert!(
            claim(&mailbox, listing()).is_empty(),
            "the first claim is the baseline"
        );
        store::publish_new(&mailbox.tmp(), &inbox, NAME, TEXT.as_bytes()).unwrap();
        let other = "20250101T000001-DIS-hi-00000010.md";
        let other_text = TEXT.replace("00000009", "00000010");
        store::publish_new(&mailbox.tmp(), &inbox, other, other_text.as_bytes()).unwrap();
        let listed = listing();
        let claimed = mailbox.tmp().join("claimed");
        std::fs::rename(inbox.join(NAME), &claimed).unwrap();
        assert_eq!(claim(&mailbox, listed), ["00000010-0000"]);
        std::fs::rename(&claimed, inbox.join(NAME)).unwrap();
        assert_eq!(claim(&mailbox, listing()), ["00000009-0000"]);
        assert!(claim(&mailbox, listing()).is_empty());
    }
}
