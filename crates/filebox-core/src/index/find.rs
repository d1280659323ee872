//! Finding a message of a mailbox by reference (a file name, a Message ID, a short id): in
//! the folders asked, in order; by id through the index's short ids where the index is current
//! for the folder, else by reading the folder's names; and waiting out the moves in flight, so
//! the loser of a race learns where the message went.

use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::{Envelope, Mailbox, MessageRef, describe_folders, most_complete};
use crate::message::{FileName, Message, MessageIdShort};
use crate::store;

impl Mailbox {
    /// Find a message in the given folders, searched in order.
    pub fn find(&self, reference: &MessageRef, folders: &[Folder]) -> Result<Envelope> {
        for &folder in folders {
            if let Some(found) = self.find_in(reference, folder)? {
                return Ok(found);
            }
        }
        Err(Error::NotFound {
            reference: reference.text().to_owned(),
            searched: describe_folders(self, folders),
        })
    }

    /// Like [`Mailbox::find`], but a message that another process is moving right now (claimed
    /// into `tmp/`, in no folder for a moment) is waited for rather than missed, so the loser
    /// of a race learns where the message went.
    pub fn find_settled(&self, reference: &MessageRef, folders: &[Folder]) -> Result<Envelope> {
        match self.find(reference, folders) {
            // Look again even if no move is in flight now: one may have ended since the look.
            Err(Error::NotFound { .. }) => {
                store::wait_for_moves(&self.tmp())?;
                self.find(reference, folders)
            }
            other => other,
        }
    }

    /// Find a message (as [`Mailbox::find_settled`]) and read it. A file that another process
    /// moved or rewrote between the look and the read (a transition, a webhook attempt
    /// recorded) is found again once the moves in flight have ended, rather than reported as
    /// an I/O error.
    pub fn read_settled(
        &self,
        reference: &MessageRef,
        folders: &[Folder],
    ) -> Result<(Envelope, Message)> {
        self.with_settled(reference, folders, |envelope| self.read(envelope))
    }

    /// Find a message (as [`Mailbox::find_settled`]) and run `use_file` on it; when the file
    /// was moved or rewritten under it (not found), find it again once the moves in flight
    /// have ended and run `use_file` once more.
    pub fn with_settled<T>(
        &self,
        reference: &MessageRef,
        folders: &[Folder],
        use_file: impl Fn(&Envelope) -> Result<T>,
    ) -> Result<(Envelope, T)> {
        let envelope = self.find_settled(reference, folders)?;
        match use_file(&envelope) {
            Err(e) if store::is_not_found(&e) => {
                store::wait_for_moves(&self.tmp())?;
                let envelope = self.find(reference, folders)?;
                let used = use_file(&envelope)?;
                Ok((envelope, used))
            }
            used => Ok((envelope, used?)),
        }
    }

    /// The copy `reference` names in `folder`, if any (of duplicates there, the most complete).
    pub(crate) fn find_in(
        &self,
        reference: &MessageRef,
        folder: Folder,
    ) -> Result<Option<Envelope>> {
        if let MessageRef::File(name) = reference {
            return self.envelope(folder, name).or_else(|e| match e {
                Error::Malformed { .. } => Err(e),
                e if store::is_not_found(&e) => Ok(None),
                e => Err(e),
            });
        }
        let short = reference.short();
        let indexed = short
            .as_deref()
            .and_then(|short| super::with_short(self, folder, short));
        let matches = match indexed {
            // The index knows every header's id: only its candidates are read.
            Some(names) => self.matching(reference, folder, names.iter().collect())?,
            None => self.matching_listed(reference, folder, short.as_deref())?,
        };
        let mut ids: Vec<&str> = matches.iter().map(|m| m.header.id()).collect();
        ids.sort();
        ids.dedup();
        if ids.len() > 1 {
            return Err(Error::Ambiguous {
                reference: reference.text().to_owned(),
                candidates: matches.iter().map(|m| m.file.to_string()).collect(),
            });
        }
        Ok((!matches.is_empty()).then(|| most_complete(matches)))
    }

    /// The copies `reference` names in `folder`, found by reading its directory: the files
    /// whose name ends in the short id, else (files named by other tools carry none) those
    /// without one. Only those names are kept, so a look-up in a folder of a million files
    /// costs its directory reads, not a million names held at once (the hub does one for each
    /// recipient of every send it answers, and the allocator keeps what a burst of them held).
    fn matching_listed(
        &self,
        reference: &MessageRef,
        folder: Folder,
        short: Option<&str>,
    ) -> Result<Vec<Envelope>> {
        let mut by_name = Vec::new();
        let mut unnamed = Vec::new();
        self.visit_file_entries(folder, |name, _| match name.short_id() {
            None => unnamed.push(name),
            named if short.is_some() && named == short => by_name.push(name),
            Some(_) => {}
        })?;
        // In name order, as a listing gives them: of duplicates, the first wins a tie.
        by_name.sort();
        let matches = self.matching(reference, folder, by_name.iter().collect())?;
        if !matches.is_empty() {
            return Ok(matches);
        }
        unnamed.sort();
        self.matching(reference, folder, unnamed.iter().collect())
    }

    fn matching(
        &self,
        reference: &MessageRef,
        folder: Folder,
        names: Vec<&FileName>,
    ) -> Result<Vec<Envelope>> {
        let mut found = Vec::new();
        for name in names {
            let Some(envelope) = self.envelope(folder, name).ok().flatten() else {
                continue;
            };
            let id = envelope.header.id();
            let matches = match reference {
                MessageRef::Id(want) => id.eq_ignore_ascii_case(want),
                MessageRef::Short(short) => MessageIdShort::of(id) == *short,
                MessageRef::File(_) => true,
            };
            if matches {
                found.push(envelope);
            }
        }
        Ok(found)
    }
}
