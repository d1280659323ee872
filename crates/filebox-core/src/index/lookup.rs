//! Finding a message's files by its short id through the index (`listed.short`), so a
//! `read`, `status` or reply by id in a folder of a million files reads the few files that
//! can match instead of listing the folder. Used only when the index exists and is current for
//! the folder (as for a listing served from it); the caller reads each candidate's header
//! from disk, so the index can only narrow the search, never answer it.

use super::Index;
use crate::error::Result;
use crate::folder::Folder;
use crate::mailbox::Mailbox;
use crate::message::FileName;

/// The files of `folder` whose header's Message ID starts with `short` (lower case), or `None`
/// when the index cannot say (none, not current for the folder, unusable): the caller then
/// lists the folder.
pub(crate) fn with_short(mailbox: &Mailbox, folder: Folder, short: &str) -> Option<Vec<FileName>> {
    super::with_existing(mailbox, |index| index.with_short(folder, short))
        .ok()
        .flatten()
        .flatten()
}

impl Index {
    fn with_short(&self, folder: Folder, short: &str) -> Result<Option<Vec<FileName>>> {
        if !self.is_current(folder)? {
            return Ok(None);
        }
        let names: Vec<String> = self
            .conn
            .prepare_cached(
                "SELECT name FROM listed INDEXED BY listed_short
                 WHERE folder = ?1 AND short = ?2 ORDER BY name",
            )
            .and_then(|mut select| {
                select
                    .query_map([folder.as_str(), short], |r| r.get(0))?
                    .collect()
            })
            .map_err(|e| self.error(e))?;
        // Every indexed name was a `FileName` when indexed.
        Ok(names
            .iter()
            .map(|name| FileName::new(name))
            .collect::<Result<Vec<_>>>()
            .ok())
    }
}
