//! What the index keeps of a file for a listing (the `listed` table): the file's version
//! (`Stat`), and the header a listing computes from its bytes, or why a listing skips it.
//! `sync.rs` writes these rows as it indexes a file; `listing.rs` serves a listing from them.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use rusqlite::{Transaction, params};

use crate::error::Error;
use crate::folder::Folder;
use crate::mailbox::{listed_header, listing_time};
use crate::message::{FileName, Header, MessageIdShort};

/// What identifies a version of a file for a listing: its ctime (ns; any write or rename
/// moves it) and size.
pub(super) struct Stat {
    pub(super) ctime: i64,
    pub(super) size: i64,
}

impl Stat {
    pub(super) fn of(meta: &std::fs::Metadata) -> Stat {
        Stat {
            ctime: meta.ctime() * 1_000_000_000 + meta.ctime_nsec(),
            size: meta.len() as i64,
        }
    }
}

/// What a listing makes of a file (`mailbox::listed_header`), computed from the bytes indexed:
/// the header as JSON, or why the listing skips the file; neither when the listing must read
/// the file itself.
#[derive(Default)]
pub(super) struct Listed {
    header: Option<String>,
    problem: Option<String>,
    /// The header's Message ID, its short form and the listing's time, with `header`.
    id: Option<String>,
    short: Option<String>,
    time: Option<String>,
}

impl Listed {
    pub(super) fn insert(
        &self,
        tx: &Transaction<'_>,
        folder: Folder,
        name: &FileName,
        stat: &Stat,
    ) -> rusqlite::Result<()> {
        // A delete, then an insert (not `INSERT OR REPLACE`, whose delete fires no trigger):
        // the entry counts follow both.
        tx.prepare_cached("DELETE FROM listed WHERE folder = ?1 AND name = ?2")?
            .execute(params![folder.as_str(), name.as_str()])?;
        tx.prepare_cached(
            "INSERT INTO listed(folder, name, ctime, size, header, problem, id, short, time)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9)",
        )?
        .execute(params![
            folder.as_str(),
            name.as_str(),
            stat.ctime,
            stat.size,
            self.header,
            self.problem,
            self.id,
            self.short,
            self.time,
        ])?;
        Ok(())
    }

    pub(super) fn of(path: &Path, name: &FileName, bytes: &[u8]) -> Listed {
        // As `store::read_prefix` reads a regular file: one read of at most `limit` bytes.
        let prefix = |limit: usize, buffer: &mut Vec<u8>| {
            let n = limit.min(bytes.len());
            buffer.clear();
            buffer.extend_from_slice(&bytes[..n]);
            Ok(n < limit)
        };
        match listed_header(path, prefix, &mut Vec::new()) {
            Ok(header) => Listed {
                header: encode_header(&header),
                problem: None,
                id: Some(header.id().to_owned()),
                short: Some(MessageIdShort::of(header.id())),
                time: Some(listing_time(name, &header)),
            },
            Err(Error::Malformed { reason, .. }) => Listed {
                problem: Some(reason),
                ..Listed::default()
            },
            Err(_) => Listed::default(),
        }
    }
}

/// A listed header as the index keeps it: `[type, title, [[key, value], ...]]` in JSON.
fn encode_header(header: &Header) -> Option<String> {
    serde_json::to_string(&(&header.kind, &header.title, header.fields())).ok()
}

pub(super) fn decode_header(json: &str) -> Option<Header> {
    let (kind, title, fields): (String, String, Vec<(String, String)>) =
        serde_json::from_str(json).ok()?;
    Some(Header::from_parts(kind, title, fields))
}
