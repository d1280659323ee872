//! Read marks: which messages I have read, for `list --unread`. Kept in `.filebox/read-marks`,
//! one line per read (`<inode>\t<Message ID>`), appended with `O_APPEND` so that processes
//! reading at once never clobber each other's marks. Derived state: deleting the file makes
//! every message unread again, which loses no message.
//!
//! A mark names the copy's inode as well as its Message ID: every rewrite the store makes is a
//! rename (a new inode), so a message that comes back with a reply appended, or whose status
//! changed, is unread again.

use std::collections::{HashMap, HashSet};
use std::io::{Read, Write};
use std::os::unix::fs::MetadataExt;

use rustix::fs::OFlags;

use crate::error::{IoContext, Result};
use crate::feed::cursor;
use crate::folder::Folder;
use crate::fs::beneath::{self, Place};
use crate::mailbox::{Envelope, Mailbox};
use crate::store;

const FILE: &str = "read-marks";

/// Up to this many messages (a page), their unread marks take a `stat` each; more (a whole
/// listing), one `readdir` of the folder.
const STAT_EACH_UP_TO: usize = 1_000;

impl Mailbox {
    /// Record that I read this copy of a message. Call it before reading the file: if the file
    /// is replaced in between, the mark names the old copy and the new one stays unread (a
    /// read message may show as unread, an unread one never as read).
    pub fn mark_read(&self, envelope: &Envelope) -> Result<()> {
        let ino = std::fs::metadata(&envelope.path).at(&envelope.path)?.ino();
        let dir = self.state_dir();
        beneath::create_dir(self.root(), &dir).map_err(|e| store::refuse_link(&dir, e))?;
        let path = dir.join(FILE);
        let mut file = Place::new(self.root(), &path)
            .open(OFlags::WRONLY | OFlags::APPEND | OFlags::CREATE, 0o600)
            .map_err(|e| store::refuse_link(&path, e))?;
        store::make_private(&file, &path)?;
        // One write of one short line: with O_APPEND it lands whole at the end.
        let line = format!("{ino}\t{}\n", envelope.header.id());
        file.write_all(line.as_bytes()).at(&path)
    }

    /// The messages among `messages` (of `folder`) that I have not read.
    pub fn unread(&self, folder: Folder, messages: Vec<Envelope>) -> Result<Vec<Envelope>> {
        let flags = self.unread_flags(folder, &messages)?;
        Ok(messages
            .into_iter()
            .zip(flags)
            .filter_map(|(message, unread)| unread.then_some(message))
            .collect())
    }

    /// For each of `messages` (of `folder`), whether I have not read it.
    pub fn unread_flags(&self, folder: Folder, messages: &[Envelope]) -> Result<Vec<bool>> {
        let marks = self.read_marks()?;
        if marks.is_empty() {
            return Ok(vec![true; messages.len()]);
        }
        let unread = |m: &Envelope, ino: Option<u64>| {
            ino.is_none_or(|ino| !marks.contains(&(ino, m.header.id().to_owned())))
        };
        if messages.len() <= STAT_EACH_UP_TO {
            // A page: a stat per message costs less than listing a folder of a million.
            return Ok(messages
                .iter()
                .map(|m| {
                    unread(
                        m,
                        std::fs::symlink_metadata(&m.path)
                            .ok()
                            .map(|meta| meta.ino()),
                    )
                })
                .collect());
        }
        // A whole listing: one readdir for every file's inode, not a stat per message.
        let (entries, _problems) = self.file_entries(folder)?;
        let inodes: HashMap<_, _> = entries.into_iter().collect();
        Ok(messages
            .iter()
            .map(|m| unread(m, inodes.get(&m.file).copied()))
            .collect())
    }

    fn read_marks(&self) -> Result<HashSet<(u64, String)>> {
        let path = self.state_dir().join(FILE);
        let file = Place::new(self.root(), &path).open(OFlags::RDONLY, 0);
        let mut text = String::new();
        match file {
            Ok(mut file) => file.read_to_string(&mut text).at(&path)?,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashSet::new()),
            Err(e) => return Err(store::refuse_link(&path, e)),
        };
        Ok(cursor::inode_lines(&text)
            .map(|(ino, id)| (ino, id.to_owned()))
            .collect())
    }
}

/// The error for opening the read marks: a symlink in their place is refused, not followed
/// (appending through it would write wherever it points).
#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::AgentId;

    #[test]
    fn a_symlinked_read_marks_file_is_refused_not_followed() {
        let dir = tempfile::tempdir().unwrap();
        let mb = Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap();
        let elsewhere = dir.path().join("elsewhere");
        std::fs::write(&elsewhere, "1\tplanted\n").unwrap();
        std::os::unix::fs::symlink(&elsewhere, mb.state_dir().join(FILE)).unwrap();
        let error = mb.read_marks().unwrap_err();
        assert!(
            matches!(error, crate::error::Error::Malformed { .. }),
            "{error}"
        );
        let envelope = Envelope {
            folder: Folder::Inbox,
            file: crate::message::FileName::new("20250101T000000-DIS-hi-00000001.md").unwrap(),
            path: elsewhere.clone(),
            header: crate::message::Header::new(
                &crate::message::MessageType::new("DIS").unwrap(),
                "hi",
            ),
        };
        let error = mb.mark_read(&envelope).unwrap_err();
        assert!(
            matches!(error, crate::error::Error::Malformed { .. }),
            "{error}"
        );
        assert_eq!(std::fs::read_to_string(&elsewhere).unwrap(), "1\tplanted\n");
    }
}
