//! One page of a folder's listing served from the index: the newest (or oldest) entries after
//! an offset, reading only the page's files, however many the folder holds. The entries are
//! exactly those of the same page of the whole listing (`Listing::of`): rows are walked in
//! the listing's order (`listed.time`, then the name) one second at a time, each second's
//! files put in the listing's order (`Envelope::sort_oldest_first`: by mtime within a second),
//! and a Message ID with several copies in the folder stands where its oldest copy stands, as
//! its most complete copy (`mailbox::most_complete`). Each file read is `stat`ed as for a
//! listing from the index (`listing.rs`): one changed since it was indexed is read again, one
//! gone is skipped. The total comes from `counts`, the problems from the rows that have none
//! of a header. Used when the index is current for the folder and holds no row a listing
//! must read itself; `None` otherwise, and the caller lists the folder.

use std::collections::HashSet;
use std::path::{Path, PathBuf};

use rusqlite::{OptionalExtension, params};

use super::Index;
use super::listed::Stat;
use super::listing::Row;
use crate::error::Result;
use crate::folder::Folder;
use crate::mailbox::{Envelope, Mailbox, Problem, most_complete};
use crate::message::FileName;

/// Which page of a listing.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct Page {
    /// Entries skipped first.
    pub offset: usize,
    /// Entries on the page (at least one).
    pub limit: usize,
    pub newest_first: bool,
}

/// A page of a folder's listing.
#[derive(Debug, Default)]
pub struct PageListing {
    /// In the page's order.
    pub messages: Vec<Envelope>,
    /// The entries of the whole listing (one per Message ID).
    pub total: usize,
    /// Every file of the folder a listing skips, with the reason.
    pub problems: Vec<Problem>,
}

/// The page of `folder`'s listing, from the index when it is there and current for the
/// folder; `None` when it cannot serve it (the caller lists the folder).
pub fn page(mailbox: &Mailbox, folder: Folder, page: &Page) -> Result<Option<PageListing>> {
    super::with_existing(mailbox, |index| page_of(index, mailbox, folder, page))
        .map(Option::flatten)
}

fn page_of(
    index: &Index,
    mailbox: &Mailbox,
    folder: Folder,
    page: &Page,
) -> Result<Option<PageListing>> {
    if !index.is_current(folder)? {
        return Ok(None);
    }
    let dir = mailbox.folder_path(folder);
    let Some(problems) = index.problems(folder, &dir)? else {
        return Ok(None);
    };
    let total = index.total(folder)?;
    let mut walk = Walk {
        index,
        mailbox,
        folder,
        dir: &dir,
        page,
        seen: 0,
        shown: HashSet::new(),
        messages: Vec::with_capacity(page.limit.min(1_000)),
        problems,
    };
    walk.run()?;
    Ok(Some(PageListing {
        messages: walk.messages,
        total,
        problems: walk.problems,
    }))
}

/// A row of the walk: the listing's row and the second it sorts in.
struct Timed {
    row: Row,
    time: String,
}

/// The walk through a folder's rows in listing order, one second at a time.
struct Walk<'a> {
    index: &'a Index,
    mailbox: &'a Mailbox,
    folder: Folder,
    dir: &'a Path,
    page: &'a Page,
    /// Entries passed so far (skipped by the offset or shown).
    seen: usize,
    /// The Message IDs shown or skipped already (a duplicate's copies share one entry).
    shown: HashSet<String>,
    messages: Vec<Envelope>,
    problems: Vec<Problem>,
}

impl Walk<'_> {
    fn full(&self) -> bool {
        self.seen >= self.page.offset.saturating_add(self.page.limit)
    }

    fn run(&mut self) -> Result<()> {
        let order = if self.page.newest_first {
            "DESC"
        } else {
            "ASC"
        };
        let sql = format!(
            "SELECT name, ctime, size, header, time FROM listed INDEXED BY listed_order
             WHERE folder = ?1 AND time IS NOT NULL ORDER BY time {order}, name {order}"
        );
        let mut select = self
            .index
            .conn
            .prepare_cached(&sql)
            .map_err(|e| self.index.error(e))?;
        let mut rows = select
            .query([self.folder.as_str()])
            .map_err(|e| self.index.error(e))?;
        let mut second: Vec<Timed> = Vec::new();
        while !self.full() {
            let next = rows.next().map_err(|e| self.index.error(e))?;
            let Some(next) = next else { break };
            let timed = timed(next).map_err(|e| self.index.error(e))?;
            if second.first().is_some_and(|first| first.time != timed.time) {
                self.second(std::mem::take(&mut second))?;
            }
            second.push(timed);
        }
        if !self.full() {
            self.second(second)?;
        }
        Ok(())
    }

    /// Pass the entries of one second's rows, in the page's order.
    fn second(&mut self, rows: Vec<Timed>) -> Result<()> {
        let mut envelopes = Vec::with_capacity(rows.len());
        for timed in rows {
            match timed.row.read(self.mailbox, self.folder, self.dir) {
                Ok(Some(envelope)) => envelopes.push(envelope),
                Ok(None) => {} // gone since it was indexed
                Err(e) => self.problems.push(crate::mailbox::problem(e)),
            }
        }
        Envelope::sort_oldest_first(&mut envelopes);
        if self.page.newest_first {
            envelopes.reverse();
        }
        for envelope in envelopes {
            if self.full() {
                break;
            }
            let id = envelope.header.id().to_owned();
            if self.shown.contains(&id) {
                continue;
            }
            let entry = match self.copies(&envelope)? {
                // The only copy: the entry itself.
                None => envelope,
                // Several copies: the entry stands where the oldest stands.
                Some(copies) if copies[0].file == envelope.file => most_complete(copies),
                Some(_) => continue,
            };
            self.shown.insert(id);
            if self.seen >= self.page.offset {
                self.messages.push(entry);
            }
            self.seen += 1;
        }
        Ok(())
    }

    /// Every copy of `envelope`'s message in the folder, in listing order, when there are
    /// several; `None` when it is the only one.
    fn copies(&self, envelope: &Envelope) -> Result<Option<Vec<Envelope>>> {
        let id = envelope.header.id();
        let names: Vec<String> = self
            .index
            .conn
            .prepare_cached(
                "SELECT name FROM listed INDEXED BY listed_short
                 WHERE folder = ?1 AND short = ?2 AND id = ?3",
            )
            .and_then(|mut select| {
                select
                    .query_map(
                        params![
                            self.folder.as_str(),
                            crate::message::MessageIdShort::of(id),
                            id
                        ],
                        |r| r.get(0),
                    )?
                    .collect()
            })
            .map_err(|e| self.index.error(e))?;
        if names.len() < 2 {
            return Ok(None);
        }
        let mut copies = Vec::with_capacity(names.len());
        for name in names {
            let file = FileName::new(&name)?;
            // A copy read again from disk: it may have changed or gone since it was indexed.
            if let Some(copy) = self.mailbox.envelope(self.folder, &file)?
                && copy.header.id() == id
            {
                copies.push(copy);
            }
        }
        if copies.len() < 2 {
            return Ok(None);
        }
        Envelope::sort_oldest_first(&mut copies);
        Ok(Some(copies))
    }
}

fn timed(row: &rusqlite::Row<'_>) -> rusqlite::Result<Timed> {
    let name: String = row.get(0)?;
    // Every indexed name was a `FileName` when indexed.
    let file = FileName::new(&name).map_err(|e| {
        rusqlite::Error::FromSqlConversionFailure(0, rusqlite::types::Type::Text, Box::new(e))
    })?;
    let ctime: Option<i64> = row.get(1)?;
    let size: Option<i64> = row.get(2)?;
    Ok(Timed {
        row: Row {
            file,
            stat: ctime.zip(size).map(|(ctime, size)| Stat { ctime, size }),
            header: row.get(3)?,
            problem: None,
        },
        time: row.get::<_, Option<String>>(4)?.unwrap_or_default(),
    })
}

impl Index {
    /// The files of the folder a listing skips, with the reason; `None` when some row holds
    /// neither a header nor a reason, or such a file changed since it was indexed (the listing
    /// must read that file itself).
    fn problems(&self, folder: Folder, dir: &Path) -> Result<Option<Vec<Problem>>> {
        type Skipped = (String, Option<i64>, Option<i64>, Option<String>);
        let rows: Vec<Skipped> = self
            .conn
            .prepare_cached(
                "SELECT name, ctime, size, problem FROM listed INDEXED BY listed_order
                 WHERE folder = ?1 AND time IS NULL ORDER BY name",
            )
            .and_then(|mut select| {
                select
                    .query_map([folder.as_str()], |r| {
                        Ok((r.get(0)?, r.get(1)?, r.get(2)?, r.get(3)?))
                    })?
                    .collect()
            })
            .map_err(|e| self.error(e))?;
        let mut problems = Vec::with_capacity(rows.len());
        for (name, ctime, size, reason) in rows {
            let Some(reason) = reason else {
                return Ok(None);
            };
            let path: PathBuf = dir.join(&name);
            match std::fs::symlink_metadata(&path) {
                Ok(meta) => {
                    let now = Stat::of(&meta);
                    if !meta.is_file() || Some(now.ctime) != ctime || Some(now.size) != size {
                        return Ok(None);
                    }
                    problems.push(Problem { path, reason });
                }
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {} // gone
                Err(_) => return Ok(None),
            }
        }
        Ok(Some(problems))
    }

    /// The number of entries of the folder's listing.
    fn total(&self, folder: Folder) -> Result<usize> {
        let entries: Option<i64> = self
            .conn
            .query_row(
                "SELECT entries FROM counts WHERE folder = ?1",
                [folder.as_str()],
                |r| r.get(0),
            )
            .optional()
            .map_err(|e| self.error(e))?;
        Ok(entries.unwrap_or_default().max(0) as usize)
    }
}
