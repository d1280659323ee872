//! The inbox cursor: the inbox files (name and inode) that `wait` has already reported, kept in
//! `.filebox/inbox-cursor`, so that mail arriving between two waits (or while no one waited)
//! is reported by the next one. A message that leaves and comes back (a reply moves the same
//! file name back in) has a new inode, so it counts as new. Derived state: deleting the file
//! only makes the next wait start from the inbox as it is.

use std::collections::HashSet;
use std::fmt::Write;

use crate::error::{IoContext, Result};
use crate::mailbox::Mailbox;
use crate::message::FileName;
use crate::store;

const FILE: &str = "inbox-cursor";

/// Inbox files (name and inode) already reported: what [`Mailbox::watch_new_mail`] compares
/// the inbox against. `wait` loads and saves it as the cursor; `watch` keeps its own in memory,
/// so it never moves `wait`'s cursor.
#[derive(Debug, Clone, Default)]
pub struct InboxBaseline(pub(crate) HashSet<(String, u64)>);

impl InboxBaseline {
    /// The inbox as these entries show it.
    pub(crate) fn of(entries: &[(FileName, u64)]) -> InboxBaseline {
        InboxBaseline(
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

/// The files already reported; `None` when no wait ever ran (or the cursor was deleted).
pub(crate) fn load(mailbox: &Mailbox) -> Result<Option<InboxBaseline>> {
    let path = mailbox.state_dir().join(FILE);
    let text = match std::fs::read_to_string(&path) {
        Ok(text) => text,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).at(&path),
    };
    Ok(Some(InboxBaseline(
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

/// Record what has been reported.
pub(crate) fn save(mailbox: &Mailbox, reported: &InboxBaseline) -> Result<()> {
    let mut text = String::new();
    for (name, ino) in &reported.0 {
        let _ = writeln!(text, "{ino}\t{name}");
    }
    store::write_file_atomic(&mailbox.state_dir().join(FILE), text.as_bytes())
}
