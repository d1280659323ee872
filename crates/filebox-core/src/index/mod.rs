//! The search index of one mailbox: a SQLite database (FTS5) at `.filebox/index.db`, derived
//! from the files and brought up to date before every query (see `sync.rs`), so it can be
//! deleted at any time and never hides a message that a listing shows.

mod query;
mod record;
mod segment;
mod sync;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, TransactionBehavior};

use crate::error::{Error, Result};
use crate::mailbox::Mailbox;
use crate::store;

pub use query::{Hit, SearchQuery, ThreadActivity};
pub(crate) use record::Row;

/// Bump when the schema or what is indexed changes: an older database is rebuilt.
const SCHEMA_VERSION: i64 = 2;

/// How much of the database file SQLite may map into memory instead of reading it.
const MMAP_BYTES: i64 = 256 * 1024 * 1024;

// Architecture Invariant: a row's rowid orders rows by activity (see `record::activity_key`),
// so "newest activity first" is rowid order, which both the table and FTS5's doclists walk
// natively: a query stops after LIMIT hits instead of sorting every match.
const SCHEMA: &str = "
CREATE TABLE dirs(folder TEXT PRIMARY KEY, mtime INTEGER);
CREATE TABLE messages(
    rowid INTEGER PRIMARY KEY,
    folder TEXT NOT NULL,
    name TEXT NOT NULL,
    ino INTEGER NOT NULL,
    id TEXT, thread TEXT, kind TEXT, title TEXT, sender TEXT, receiver TEXT, cc TEXT,
    timestamp TEXT, activity TEXT, status TEXT, in_reply_to TEXT, forked_from TEXT,
    fork_reason TEXT, text TEXT, problem TEXT,
    UNIQUE(folder, name)
);
CREATE INDEX messages_thread ON messages(thread);
CREATE INDEX messages_id ON messages(id);
CREATE INDEX messages_activity ON messages(activity);
CREATE VIRTUAL TABLE fts USING fts5(
    title, body, content='', contentless_delete=1, tokenize='unicode61 remove_diacritics 2'
);
";

/// One mailbox's index, open.
pub struct Index {
    conn: Connection,
    path: PathBuf,
    mailbox: Mailbox,
}

impl Index {
    /// Open (creating or rebuilding as needed) and bring up to date with the files.
    pub fn open(mailbox: &Mailbox) -> Result<Index> {
        let path = mailbox.state_dir().join("index.db");
        store::create_private_dir(&mailbox.state_dir())?;
        let conn = match connect(&path) {
            Ok(Some(conn)) => conn,
            // A damaged file, or another version's schema: it is only a cache, start again.
            Ok(None) | Err(Error::Index { .. }) => {
                remove_database(&path)?;
                connect(&path)?.ok_or_else(|| Error::Index {
                    path: path.clone(),
                    reason: "a new index has an unexpected schema".into(),
                })?
            }
            Err(e) => return Err(e),
        };
        let mut index = Index {
            conn,
            path,
            mailbox: mailbox.clone(),
        };
        index.sync()?;
        Ok(index)
    }

    /// The mailbox this indexes.
    pub fn mailbox(&self) -> &Mailbox {
        &self.mailbox
    }

    fn error(&self, error: rusqlite::Error) -> Error {
        index_error(&self.path, error)
    }
}

/// Open the database, creating this version's schema in a new one; `None` when the file
/// holds another schema.
fn connect(path: &Path) -> Result<Option<Connection>> {
    store::create_private_file(path)?;
    let setup = || -> rusqlite::Result<Option<Connection>> {
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(Duration::from_secs(10))?;
        // A derived index may lose its last transactions in a power cut: the next sync redoes
        // them from the files.
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "mmap_size", MMAP_BYTES)?;
        // The common case, an existing index, is a read: no write lock on every open.
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        match version {
            SCHEMA_VERSION => return Ok(Some(conn)),
            0 => {}
            _ => return Ok(None),
        }
        // WAL where the file system allows it (readers never wait for the writer); SQLite
        // keeps its default journal elsewhere, which is also correct. The mode is kept in
        // the file.
        conn.query_row("PRAGMA journal_mode=WAL", [], |r| r.get::<_, String>(0))?;
        let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
        // Another process may have created it meanwhile.
        let version: i64 = tx.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        match version {
            SCHEMA_VERSION => {}
            0 => {
                tx.execute_batch(SCHEMA)?;
                tx.pragma_update(None, "user_version", SCHEMA_VERSION)?;
            }
            _ => return Ok(None),
        }
        tx.commit()?;
        Ok(Some(conn))
    };
    setup().map_err(|e| index_error(path, e))
}

/// Delete the index files of a mailbox (`filebox reindex` then rebuilds them).
pub fn remove_database(path: &Path) -> Result<()> {
    for suffix in ["", "-wal", "-shm", "-journal"] {
        let file = PathBuf::from(format!("{}{suffix}", path.display()));
        match std::fs::remove_file(&file) {
            Ok(()) => {}
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
            Err(e) => return Err(Error::io(file, e)),
        }
    }
    Ok(())
}

/// Delete a mailbox's index and build it again from the files.
pub fn rebuild(mailbox: &Mailbox) -> Result<Index> {
    remove_database(&mailbox.state_dir().join("index.db"))?;
    Index::open(mailbox)
}

fn index_error(path: &Path, error: rusqlite::Error) -> Error {
    Error::Index {
        path: path.to_owned(),
        reason: error.to_string(),
    }
}

#[cfg(test)]
mod tests;
