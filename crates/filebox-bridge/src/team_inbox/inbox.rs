//! Reading and changing one agent's inbox file the way Claude Code does, and safer: writes
//! take Claude Code's lock, re-read under it, and publish by write-to-temp + fsync + rename,
//! so a reader never sees a torn file. A file that is not a JSON array is never overwritten.

use std::fs::{self, OpenOptions};
use std::io::{self, Write};
use std::path::{Path, PathBuf};

use super::lock::{InboxLock, LockError};
use super::message::{Identity, InboxFile, InboxParseError, TeammateMessage};

/// Why an inbox operation failed; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum InboxError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error(
        "{path}: the inbox is not readable ({reason}); it was left as it is, fix or remove it by hand"
    )]
    Unreadable {
        path: PathBuf,
        reason: InboxParseError,
    },
    #[error(transparent)]
    Lock(#[from] LockError),
}

/// One agent's inbox file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Inbox {
    path: PathBuf,
}

impl Inbox {
    pub fn at(path: PathBuf) -> Inbox {
        Inbox { path }
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
        let bytes = match fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(InboxFile::default()),
            Err(e) => return Err(self.io_error()(e)),
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
        let bytes = match fs::read(&self.path) {
            Ok(bytes) => bytes,
            Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(InboxFile::default()),
            Err(e) => return Err(self.io_error()(e)),
        };
        InboxFile::parse(&bytes).map_err(|reason| InboxError::Unreadable {
            path: self.path.clone(),
            reason,
        })
    }

    /// Append messages (Claude Code's `writeToMailbox`), creating the inbox if needed.
    pub fn append(&self, messages: &[TeammateMessage]) -> Result<(), InboxError> {
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
    /// that arrived meanwhile stays unread); returns how many were marked.
    pub fn mark_read(&self, identities: &[Identity]) -> Result<usize, InboxError> {
        if identities.is_empty() {
            return Ok(0);
        }
        let mut marked = 0;
        self.change(|inbox| {
            marked = inbox.mark_read(identities);
            marked > 0
        })?;
        Ok(marked)
    }

    /// The critical section: ensure the file exists, lock, re-read, change, publish.
    /// `edit` returns whether it changed anything (nothing is written otherwise).
    fn change(&self, edit: impl FnOnce(&mut InboxFile) -> bool) -> Result<(), InboxError> {
        self.create_if_missing()?;
        let mut lock = InboxLock::acquire(&self.lock_path())?;
        let mut inbox = self.read_locked()?;
        if !edit(&mut inbox) {
            return Ok(());
        }
        let staged = self.stage(inbox.render().as_bytes())?;
        let published = lock
            .confirm()
            .map_err(InboxError::from)
            .and_then(|()| fs::rename(&staged, &self.path).map_err(self.io_error()));
        if let Err(e) = published {
            let _ = fs::remove_file(&staged);
            return Err(e);
        }
        self.sync_dir()
    }

    /// Claude Code creates the inbox with `[]` exclusively before locking (proper-lockfile's
    /// `realpath` needs the file to exist).
    fn create_if_missing(&self) -> Result<(), InboxError> {
        if let Some(dir) = self.path.parent() {
            fs::create_dir_all(dir).map_err(self.io_error())?;
        }
        match OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&self.path)
        {
            Ok(mut file) => file.write_all(b"[]").map_err(self.io_error()),
            Err(e) if e.kind() == io::ErrorKind::AlreadyExists => Ok(()),
            Err(e) => Err(self.io_error()(e)),
        }
    }

    /// Write the new content beside the inbox and flush it to disk.
    fn stage(&self, bytes: &[u8]) -> Result<PathBuf, InboxError> {
        let name = self
            .path
            .file_name()
            .map(|n| n.to_string_lossy().into_owned())
            .unwrap_or_default();
        let staged = self.path.with_file_name(format!(
            ".{name}.{}.{}.tmp",
            std::process::id(),
            uuid::Uuid::new_v4().simple()
        ));
        let written = (|| {
            let mut file = OpenOptions::new()
                .write(true)
                .create_new(true)
                .open(&staged)?;
            file.write_all(bytes)?;
            file.sync_all()
        })();
        if let Err(e) = written {
            let _ = fs::remove_file(&staged);
            return Err(self.io_error()(e));
        }
        Ok(staged)
    }

    fn sync_dir(&self) -> Result<(), InboxError> {
        match self.path.parent() {
            Some(dir) => fs::File::open(dir)
                .and_then(|d| d.sync_all())
                .map_err(self.io_error()),
            None => Ok(()),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn append_creates_and_mark_read_flips_only_the_named_messages() {
        let dir = tempfile::tempdir().unwrap();
        let inbox = Inbox::at(dir.path().join("inboxes/tester.json"));
        let first = TeammateMessage::new("team-lead", "one");
        let second = TeammateMessage::new("team-lead", "two");
        inbox.append(std::slice::from_ref(&first)).unwrap();
        assert!(inbox.append_once(&second).unwrap());
        assert!(!inbox.append_once(&second).unwrap(), "same identity");
        assert_eq!(inbox.mark_read(&[first.identity()]).unwrap(), 1);
        let read: Vec<_> = inbox.read().unwrap().messages().map(|m| m.read).collect();
        assert_eq!(read, [true, false]);
        assert!(!inbox.lock_path().exists());
    }

    #[test]
    fn an_unreadable_inbox_is_never_overwritten() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("tester.json");
        fs::write(&path, "[{\"from\": \"x\"").unwrap();
        let inbox = Inbox::at(path.clone());
        let error = inbox
            .append(&[TeammateMessage::new("team-lead", "hi")])
            .unwrap_err();
        assert!(matches!(error, InboxError::Unreadable { .. }), "{error}");
        assert!(inbox.read().is_err());
        assert_eq!(fs::read_to_string(&path).unwrap(), "[{\"from\": \"x\"");
    }
}
