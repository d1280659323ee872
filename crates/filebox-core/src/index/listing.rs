//! A folder's listing served from the index: the same [`Listing`] as `Mailbox::list`, without
//! opening every file. The index is used only when it exists (a listing never builds one) and
//! is current for the folder after its sync: the folder's mtime and name set were caught up
//! (through its change journal or a listing of its names), no entry was left unread, and no
//! entry is one a listing skips (a symlink, an odd name). Each file is then `stat`ed: one
//! whose ctime or size differs from what was indexed (edited in place by hand, rewritten)
//! is read from disk like any listing reads it; the others are listed from the header the
//! index computed from their bytes exactly as a listing would (`mailbox::listed_header`).
//! Whatever goes wrong with the index, the files are read instead.

use std::path::Path;

use rusqlite::{OptionalExtension, params};

use super::Index;
use super::listed::{Stat, decode_header};
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::{Envelope, Listing, Mailbox};
use crate::message::FileName;

/// List a folder (oldest first, one entry per Message ID, problems reported): from the index
/// when it is current, else by reading the files. The result is the same either way.
pub fn list(mailbox: &Mailbox, folder: Folder) -> Result<Listing> {
    match from_index(mailbox, folder) {
        Ok(Some(listing)) => Ok(listing),
        // No index, one not current for this folder, or one that cannot be used: the files.
        Ok(None) | Err(_) => mailbox.list(folder),
    }
}

pub(super) fn from_index(mailbox: &Mailbox, folder: Folder) -> Result<Option<Listing>> {
    let rows = super::with_existing(mailbox, |index| index.listed_rows(folder))?;
    let Some(rows) = rows.flatten() else {
        return Ok(None);
    };
    let dir = mailbox.folder_path(folder);
    // One `stat` per file, on a few threads as a listing reads (the time is system calls).
    let reads = crate::mailbox::parallel::map_chunks(&rows, |part| {
        part.iter()
            .map(|row| row.read(mailbox, folder, &dir))
            .collect()
    });
    Ok(Some(Listing::of(reads, Vec::new())))
}

/// What the index holds of one file for a listing.
pub(super) struct Row {
    pub(super) file: FileName,
    pub(super) stat: Option<Stat>,
    pub(super) header: Option<String>,
    pub(super) problem: Option<String>,
}

impl Row {
    /// The listing's entry for this file, as `Mailbox::envelope` would read it.
    pub(super) fn read(
        &self,
        mailbox: &Mailbox,
        folder: Folder,
        dir: &Path,
    ) -> Result<Option<Envelope>> {
        let path = dir.join(self.file.as_str());
        let unchanged = match (std::fs::symlink_metadata(&path), &self.stat) {
            (Ok(meta), Some(indexed)) => {
                let now = Stat::of(&meta);
                meta.is_file() && now.ctime == indexed.ctime && now.size == indexed.size
            }
            _ => false,
        };
        if unchanged {
            if let Some(header) = self.header.as_deref().and_then(decode_header) {
                return Ok(Some(Envelope {
                    folder,
                    file: self.file.clone(),
                    path,
                    header,
                }));
            }
            if let Some(reason) = &self.problem {
                return Err(Error::Malformed {
                    path,
                    reason: reason.clone(),
                });
            }
        }
        mailbox.envelope(folder, &self.file)
    }
}

impl Index {
    /// Whether the last sync left the folder current: its mtime and name set caught up, no
    /// entry left unread and none a listing skips (see the module doc).
    pub(super) fn is_current(&self, folder: Folder) -> Result<bool> {
        let current: Option<(Option<i64>, Option<i64>)> = self
            .conn
            .query_row(
                "SELECT mtime, skipped FROM dirs WHERE folder = ?1",
                [folder.as_str()],
                |r| Ok((r.get(0)?, r.get(1)?)),
            )
            .optional()
            .map_err(|e| self.error(e))?;
        Ok(matches!(current, Some((Some(_), Some(0)))))
    }

    /// The rows of a folder in name order, when the index is current for it (see the module
    /// doc); `None` otherwise.
    fn listed_rows(&self, folder: Folder) -> Result<Option<Vec<Row>>> {
        let sql = |e| super::index_error(&self.path, e);
        if !self.is_current(folder)? {
            return Ok(None);
        }
        let mut select = self
            .conn
            .prepare_cached(
                "SELECT name, ctime, size, header, problem FROM listed
                 WHERE folder = ?1 ORDER BY name",
            )
            .map_err(sql)?;
        let rows = select
            .query_map(params![folder.as_str()], |r| {
                Ok((
                    r.get::<_, String>(0)?,
                    r.get::<_, Option<i64>>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, Option<String>>(3)?,
                    r.get::<_, Option<String>>(4)?,
                ))
            })
            .and_then(|rows| rows.collect::<rusqlite::Result<Vec<_>>>())
            .map_err(sql)?;
        let mut listed = Vec::with_capacity(rows.len());
        for (name, ctime, size, header, problem) in rows {
            // Every indexed name was a `FileName` when indexed.
            let Ok(file) = FileName::new(&name) else {
                return Ok(None);
            };
            listed.push(Row {
                file,
                stat: ctime.zip(size).map(|(ctime, size)| Stat { ctime, size }),
                header,
                problem,
            });
        }
        Ok(Some(listed))
    }
}
