//! Read marks: which messages I have read, for `list --unread`. Kept in `.filebox/read-marks`,
//! one line per read (`<inode>\t<Message ID>`), appended with `O_APPEND` so that processes
//! reading at once never clobber each other's marks. Derived state: deleting the file makes
//! every message unread again, which loses no message.
//!
//! A mark names the copy's inode as well as its Message ID: every rewrite the store makes is a
//! rename (a new inode), so a message that comes back with a reply appended, or whose status
//! changed, is unread again.

use std::collections::{HashMap, HashSet};
use std::io::Write;
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};

use crate::error::{IoContext, Result};
use crate::folder::Folder;
use crate::mailbox::{Envelope, Mailbox};
use crate::store;

const FILE: &str = "read-marks";

impl Mailbox {
    /// Record that I read this copy of a message. Call it before reading the file: if the file
    /// is replaced in between, the mark names the old copy and the new one stays unread (a
    /// read message may show as unread, an unread one never as read).
    pub fn mark_read(&self, envelope: &Envelope) -> Result<()> {
        let ino = std::fs::metadata(&envelope.path).at(&envelope.path)?.ino();
        let dir = self.state_dir();
        store::create_private_dir(&dir)?;
        let path = dir.join(FILE);
        let mut file = std::fs::OpenOptions::new()
            .append(true)
            .create(true)
            .mode(0o600)
            .open(&path)
            .at(&path)?;
        // One write of one short line: with O_APPEND it lands whole at the end.
        let line = format!("{ino}\t{}\n", envelope.header.id());
        file.write_all(line.as_bytes()).at(&path)
    }

    /// The messages among `messages` (of `folder`) that I have not read.
    pub fn unread(&self, folder: Folder, messages: Vec<Envelope>) -> Result<Vec<Envelope>> {
        let marks = self.read_marks()?;
        if marks.is_empty() {
            return Ok(messages);
        }
        // One readdir for every file's inode, not a stat per message.
        let (entries, _problems) = self.file_entries(folder)?;
        let inodes: HashMap<_, _> = entries.into_iter().collect();
        Ok(messages
            .into_iter()
            .filter(|m| {
                inodes
                    .get(&m.file)
                    .is_none_or(|ino| !marks.contains(&(*ino, m.header.id().to_owned())))
            })
            .collect())
    }

    fn read_marks(&self) -> Result<HashSet<(u64, String)>> {
        let path = self.state_dir().join(FILE);
        let text = match std::fs::read_to_string(&path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(HashSet::new()),
            Err(e) => return Err(e).at(&path),
        };
        Ok(text
            .lines()
            .filter_map(|line| {
                let (ino, id) = line.split_once('\t')?;
                Some((ino.parse().ok()?, id.to_owned()))
            })
            .collect())
    }
}
