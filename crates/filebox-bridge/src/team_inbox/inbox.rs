//! Reading and changing one agent's inbox file the way Claude Code does, and safer: writes
//! take Claude Code's lock, re-read under it, and publish by write-to-temp + fsync + rename,
//! so a reader never sees a torn file. A file that is not a JSON array is never overwritten,
//! and no entry Claude Code's schema would refuse is written.
//!
//! A good neighbour to Claude Code, which gives up on a lock held for about 0.65 s: the new
//! content is prepared and flushed to disk *before* the lock is taken, and under the lock
//! FileBox only checks that the file is still what it read and renames (a file changed
//! meanwhile is done again under the lock); the folder's fsync comes after the release.
//!
//! Every read goes through [`team_file::read`], beneath the teams folder: an inbox that is a
//! link or reached through one, a FIFO, a device or larger than [`MAX_TEAM_FILE_BYTES`] is
//! refused, and no change makes an inbox larger than that.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use filebox_core::confined::{self, ConfinedFile, NewFolders, Staged};

use super::inbox_error::{InboxError, MAX_TEAM_FILE_BYTES};
use super::lock::InboxLock;
use super::marking::MarkStyle;
use super::message::InboxFile;
use super::schema;
use super::team_file;
use super::teammate_message::{Identity, TeammateMessage};

/// One agent's inbox file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inbox {
    /// The teams folder the inbox is read beneath, never through a link.
    teams: PathBuf,
    path: PathBuf,
    /// A session team's name and folder, which must still be there for a write.
    team_folder: Option<(String, PathBuf)>,
}

impl Inbox {
    /// The inbox at `path`, beneath the teams folder `teams`.
    pub fn at(teams: &Path, path: PathBuf) -> Inbox {
        Inbox {
            teams: teams.to_path_buf(),
            path,
            team_folder: None,
        }
    }

    /// An inbox written only while the team's folder `folder` is there (a session team's:
    /// Claude Code removes it when the session exits, and a write must not recreate it).
    pub fn in_team_folder(teams: &Path, path: PathBuf, team: &str, folder: &Path) -> Inbox {
        Inbox {
            teams: teams.to_path_buf(),
            path,
            team_folder: Some((team.to_owned(), folder.to_path_buf())),
        }
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `{inbox}.json.lock`, the directory proper-lockfile creates.
    pub fn lock_path(&self) -> PathBuf {
        let mut name = self.path.as_os_str().to_owned();
        name.push(".lock");
        PathBuf::from(name)
    }

    fn io_error(&self) -> impl Fn(io::Error) -> InboxError + '_ {
        |source| InboxError::Io {
            path: self.path.clone(),
            source,
        }
    }

    /// Read without the lock, as Claude Code's reader does. A missing file is an empty inbox.
    /// A file that is empty or does not parse is read again under the lock (Claude Code
    /// truncates and rewrites in place, so an unlocked reader can catch it half-written); if
    /// it still does not parse, it is an error, never "no messages".
    pub fn read(&self) -> Result<InboxFile, InboxError> {
        let Some(bytes) = team_file::read(&self.teams, &self.path)? else {
            return Ok(InboxFile::default());
        };
        let whole = !bytes.iter().all(u8::is_ascii_whitespace);
        match InboxFile::parse(&bytes) {
            Ok(inbox) if whole => Ok(inbox),
            _ => {
                let _lock = InboxLock::acquire(&self.lock_path())?;
                self.read_locked()
            }
        }
    }

    /// Read while holding the lock: what is there now is whole.
    fn read_locked(&self) -> Result<InboxFile, InboxError> {
        self.parse(&self.bytes()?)
    }

    /// The file's bytes; a missing file is an empty inbox.
    fn bytes(&self) -> Result<Vec<u8>, InboxError> {
        Ok(team_file::read(&self.teams, &self.path)?.unwrap_or_else(|| b"[]".to_vec()))
    }

    fn parse(&self, bytes: &[u8]) -> Result<InboxFile, InboxError> {
        InboxFile::parse(bytes).map_err(|reason| InboxError::Unreadable {
            path: self.path.clone(),
            reason,
        })
    }

    /// Append messages (Claude Code's `writeToMailbox`), creating the inbox if needed.
    /// A message Claude Code's schema would refuse is not written (nor any of the others).
    pub fn append(&self, messages: &[TeammateMessage]) -> Result<(), InboxError> {
        self.check_schema(messages)?;
        self.change(|inbox| {
            for message in messages {
                inbox.push(message.clone());
            }
            !messages.is_empty()
        })
    }

    /// Append `message` unless a message with its identity is already there (so a retried
    /// delivery is not duplicated); `true` if it was appended.
    pub fn append_once(&self, message: &TeammateMessage) -> Result<bool, InboxError> {
        self.check_schema(std::slice::from_ref(message))?;
        let mut appended = false;
        self.change(|inbox| {
            appended = !inbox.contains(&message.identity());
            if appended {
                inbox.push(message.clone());
            }
            appended
        })?;
        Ok(appended)
    }

    /// Mark read exactly the unread messages with these identities (never "all": a message
    /// that arrived meanwhile stays unread), as the Claude Code polling the inbox does
    /// ([`MarkStyle`]: flip `read`, or remove them); returns how many were marked. A message
    /// already gone was delivered by Claude Code and counts for nothing.
    pub fn mark_read(&self, identities: &[Identity]) -> Result<usize, InboxError> {
        if identities.is_empty() {
            return Ok(0);
        }
        let mut marked = 0;
        let mut refused = None;
        self.change(
            |inbox| match MarkStyle::for_inbox(inbox, || self.team_flags()) {
                Ok(style) => {
                    marked = inbox.mark_read(identities, style);
                    marked > 0
                }
                Err(reason) => {
                    refused = Some(reason);
                    false
                }
            },
        )?;
        match refused {
            Some(reason) => Err(InboxError::Setting {
                path: self.path.clone(),
                reason,
            }),
            None => Ok(marked),
        }
    }

    /// Whether another inbox of the team has a message flagged `read: true` (a Claude Code
    /// that flags polls the team). Inboxes that cannot be read say nothing.
    fn team_flags(&self) -> bool {
        let Some(dir) = self.path.parent() else {
            return false;
        };
        let Ok(entries) = fs::read_dir(dir) else {
            return false;
        };
        entries.filter_map(Result::ok).any(|entry| {
            let path = entry.path();
            path != self.path
                && path.extension().is_some_and(|e| e == "json")
                && team_file::read(&self.teams, &path)
                    .ok()
                    .flatten()
                    .and_then(|bytes| InboxFile::parse(&bytes).ok())
                    .is_some_and(|file| file.messages().any(TeammateMessage::is_read))
        })
    }

    fn check_schema(&self, messages: &[TeammateMessage]) -> Result<(), InboxError> {
        match messages.iter().find_map(schema::problem) {
            Some(reason) => Err(InboxError::Invalid {
                path: self.path.clone(),
                reason,
            }),
            None => Ok(()),
        }
    }

    /// Change the file: `edit` returns whether it changed anything (nothing is written
    /// otherwise; it may run twice, the second time on what the lock found). The new content
    /// is staged and flushed before the lock is taken; under it, a file still as it was read
    /// is replaced at once, one changed meanwhile is read, edited and staged again. A staged
    /// file that is not published is removed when it is dropped.
    fn change(&self, mut edit: impl FnMut(&mut InboxFile) -> bool) -> Result<(), InboxError> {
        self.create_if_missing()?;
        let seen = self.bytes()?;
        let prepared = match InboxFile::parse(&seen) {
            // A blank file is Claude Code's in-place rewrite caught midway: wait for the lock.
            Ok(mut inbox) if !seen.iter().all(u8::is_ascii_whitespace) => {
                if !edit(&mut inbox) {
                    return Ok(());
                }
                Some(self.stage(&inbox)?)
            }
            _ => None,
        };
        let mut lock = InboxLock::acquire(&self.lock_path())?;
        let staged = match prepared {
            Some(staged) if self.bytes().is_ok_and(|now| now == seen) => staged,
            stale => {
                drop(stale);
                let mut inbox = self.read_locked()?;
                if !edit(&mut inbox) {
                    return Ok(());
                }
                self.stage(&inbox)?
            }
        };
        let published = lock
            .confirm()
            .map_err(InboxError::from)
            .and_then(|()| staged.publish().map_err(team_file::refused));
        drop(lock);
        published?.sync().map_err(team_file::refused)
    }

    /// The inbox as a file beneath the teams folder.
    fn file(&self) -> ConfinedFile {
        ConfinedFile::new(&self.teams, &self.path)
    }

    /// Claude Code creates the inbox with `[]` exclusively before locking (proper-lockfile's
    /// `realpath` needs the file to exist). Never through a link, and a session team's inbox
    /// folder only inside its team's folder, which must still be there.
    fn create_if_missing(&self) -> Result<(), InboxError> {
        let folders = match self.team_folder {
            None => NewFolders::All,
            Some(_) => NewFolders::Last,
        };
        match self.file().create_new(b"[]", folders) {
            Ok(_) => Ok(()),
            Err(confined::Refused::Io { source, .. })
                if source.kind() == io::ErrorKind::NotFound =>
            {
                match &self.team_folder {
                    Some((name, folder)) => Err(InboxError::TeamGone {
                        name: name.clone(),
                        teams: folder.parent().unwrap_or(folder).to_path_buf(),
                    }),
                    None => Err(self.io_error()(source)),
                }
            }
            Err(refused) => Err(team_file::refused(refused)),
        }
    }

    /// Write the new content beside the inbox and flush it to disk; content larger than a team
    /// file FileBox reads is not written.
    fn stage(&self, inbox: &InboxFile) -> Result<Staged, InboxError> {
        let rendered = inbox.render();
        let bytes = rendered.as_bytes();
        if bytes.len() as u64 > MAX_TEAM_FILE_BYTES {
            return Err(InboxError::Full {
                path: self.path.clone(),
                size: bytes.len(),
            });
        }
        self.file().stage(bytes, None).map_err(team_file::refused)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_creates_and_mark_read_flips_only_the_named_messages() {
        let dir = tempfile::tempdir().unwrap();
        let inbox = Inbox::at(dir.path(), dir.path().join("inboxes/tester.json"));
        let first = TeammateMessage::new("team-lead", "one");
        let second = TeammateMessage::new("team-lead", "two");
        inbox.append(std::slice::from_ref(&first)).unwrap();
        assert!(inbox.append_once(&second).unwrap());
        assert!(!inbox.append_once(&second).unwrap(), "same identity");
        // FileBox's own entries are in the current shape: marking read prunes.
        assert_eq!(inbox.mark_read(&[first.identity()]).unwrap(), 1);
        let left: Vec<_> = inbox.read().unwrap().messages().cloned().collect();
        assert_eq!(left, std::slice::from_ref(&second));
        assert_eq!(inbox.mark_read(&[first.identity()]).unwrap(), 0, "gone");
        assert!(!inbox.lock_path().exists());
        let leftovers = fs::read_dir(dir.path().join("inboxes")).unwrap().count();
        assert_eq!(leftovers, 1, "no staged file left behind");
    }

    #[test]
    fn an_older_inbox_is_marked_by_flag_and_a_refused_entry_not_written() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tester.json");
        let old = r#"[
  {
    "from": "team-lead",
    "text": "one",
    "timestamp": "2026-04-01T10:30:00.000Z",
    "read": true
  },
  {
    "from": "team-lead",
    "text": "two",
    "timestamp": "2026-04-01T10:31:00.000Z",
    "read": false
  }
]"#;
        fs::write(&path, old).unwrap();
        let inbox = Inbox::at(dir.path(), path.clone());
        let two = inbox.read().unwrap().messages().nth(1).unwrap().identity();
        assert_eq!(inbox.mark_read(&[two]).unwrap(), 1);
        assert_eq!(
            fs::read_to_string(&path).unwrap(),
            old.replace("\"read\": false", "\"read\": true")
        );
        let refused = TeammateMessage::new("", "hi");
        let error = inbox.append(&[refused]).unwrap_err();
        assert!(matches!(error, InboxError::Invalid { .. }), "{error}");
        assert_eq!(inbox.read().unwrap().messages().count(), 2);
    }

    #[test]
    fn no_change_makes_an_inbox_larger_than_a_team_file_filebox_reads() {
        let dir = tempfile::tempdir().unwrap();
        let inbox = Inbox::at(dir.path(), dir.path().join("tester.json"));
        let text = "x".repeat(MAX_TEAM_FILE_BYTES as usize);
        let error = inbox
            .append(&[TeammateMessage::new("team-lead", &text)])
            .unwrap_err();
        assert!(matches!(error, InboxError::Full { .. }), "{error}");
        assert!(
            error.to_string().contains("more than the 16 MiB"),
            "{error}"
        );
        assert_eq!(fs::read_to_string(inbox.path()).unwrap(), "[]");
        assert_eq!(
            fs::read_dir(dir.path()).unwrap().count(),
            1,
            "nothing staged"
        );
    }

    #[test]
    fn an_unreadable_inbox_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tester.json");
        fs::write(&path, "[{\"from\": \"x\"").unwrap();
        let inbox = Inbox::at(dir.path(), path.clone());
        let error = inbox
            .append(&[TeammateMessage::new("team-lead", "hi")])
            .unwrap_err();
        assert!(matches!(error, InboxError::Unreadable { .. }), "{error}");
        assert!(inbox.read().is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), "[{\"from\": \"x\"");
    }
}
