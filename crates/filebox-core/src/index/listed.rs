//! What the index keeps of a file for a listing (the `listed` table): the file's version
//! (`Stat`), and the header a listing computes from its bytes, or why a listing skips it.
//! `sync.rs` writes these rows as it indexes a file; `listing.rs` serves a listing from them.

use std::os::unix::fs::MetadataExt;
use std::path::Path;

use rusqlite::{Transaction, params};

use crate::error::Error;
use crate::folder::Folder;
use crate::mailbox::listed_header;
use crate::message::{FileName, Header};

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
}

impl Listed {
    pub(super) fn insert(
        &self,
        tx: &Transaction<'_>,
        folder: Folder,
        name: &FileName,
        stat: &Stat,
    ) -> rusqlite::Result<()> {
        tx.prepare_cached(
            "INSERT OR REPLACE INTO listed(folder, name, ctime, size, header, problem)
             VALUES (?1, ?2, ?3, ?4, ?5, ?6)",
        )?
        .execute(params![
            folder.as_str(),
            name.as_str(),
            stat.ctime,
            stat.size,
            self.header,
            self.problem
        ])?;
        Ok(())
    }

    pub(super) fn of(path: &Path, bytes: &[u8]) -> Listed {
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
            },
            Err(Error::Malformed { reason, .. }) => Listed {
                header: None,
                problem: Some(reason),
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
