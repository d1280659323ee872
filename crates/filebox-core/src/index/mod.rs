//! The search index of one mailbox: a SQLite database (FTS5) at `.filebox/index.db`, derived
//! from the files and brought up to date before every query (see `sync.rs`), so it can be
//! deleted at any time and never hides a message that a listing shows.

mod listing;
mod query;
mod record;
mod segment;
mod sync;

use std::path::{Path, PathBuf};
use std::time::Duration;

use rusqlite::{Connection, ErrorCode, TransactionBehavior};

use crate::error::{Error, Result};
use crate::mailbox::Mailbox;
use crate::store;

pub use listing::list;
pub use query::{Hit, SearchQuery, ThreadActivity};
#[cfg(feature = "fuzzing")]
pub(crate) use record::Record;
pub(crate) use record::Row;

/// Bump when the schema or what is indexed changes: an older database is rebuilt.
const SCHEMA_VERSION: i64 = 6;

/// Held while the database files are deleted, so two processes never rebuild at once.
const LOCK: &str = "index.lock";

/// How much of the database file SQLite may map into memory instead of reading it.
const MMAP_BYTES: i64 = 256 * 1024 * 1024;

// Architecture Invariant: a row's rowid orders rows by activity (see `record::activity_key`),
// so "newest activity first" is rowid order, which both the table and FTS5's doclists walk
// natively: a query stops after LIMIT hits instead of sorting every match.
const SCHEMA: &str = "
CREATE TABLE dirs(
    folder TEXT PRIMARY KEY, mtime INTEGER, journal_ino INTEGER, journal_len INTEGER,
    skipped INTEGER, entries BLOB
);
CREATE TABLE messages(
    rowid INTEGER PRIMARY KEY,
    folder TEXT NOT NULL,
    name TEXT NOT NULL,
    entry INTEGER NOT NULL,
    id TEXT, thread TEXT, kind TEXT, title TEXT, sender TEXT, receiver TEXT, cc TEXT,
    timestamp TEXT, activity TEXT, status TEXT, in_reply_to TEXT, forked_from TEXT,
    fork_reason TEXT, authors TEXT, replies INTEGER, text TEXT, problem TEXT,
    UNIQUE(folder, name)
);
-- What a listing shows of each file, apart from the bulky rows above and in name order, so a
-- listing served from the index reads these small rows only (see listing.rs).
CREATE TABLE listed(
    folder TEXT NOT NULL, name TEXT NOT NULL, ctime INTEGER, size INTEGER, header TEXT,
    problem TEXT,
    PRIMARY KEY(folder, name)
) WITHOUT ROWID;
CREATE INDEX messages_entry ON messages(folder, entry);
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
        let conn = match connect(&path)? {
            Opened::Ready(conn) => conn,
            // A damaged file, or another version's schema: it is only a cache, start again.
            // Any other error (busy, I/O, cannot open) is reported: the file may be fine and
            // open in another process.
            Opened::Stale => replace_stale(&mailbox.state_dir().join(LOCK), &path)?,
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

/// An index database as [`connect`] found it.
enum Opened {
    Ready(Connection),
    /// Damaged, not a database, or another version's schema: to be deleted and rebuilt.
    Stale,
}

/// Open the database, creating this version's schema in a new one.
fn connect(path: &Path) -> Result<Opened> {
    store::create_private_file(path)?;
    let setup = || -> rusqlite::Result<Opened> {
        let mut conn = Connection::open(path)?;
        conn.busy_timeout(Duration::from_secs(10))?;
        // A derived index may lose its last transactions in a power cut: the next sync redoes
        // them from the files.
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        conn.pragma_update(None, "mmap_size", MMAP_BYTES)?;
        // The common case, an existing index, is a read: no write lock on every open.
        let version: i64 = conn.query_row("PRAGMA user_version", [], |r| r.get(0))?;
        match version {
            SCHEMA_VERSION => return Ok(Opened::Ready(conn)),
            0 => {}
            _ => return Ok(Opened::Stale),
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
            _ => return Ok(Opened::Stale),
        }
        tx.commit()?;
        Ok(Opened::Ready(conn))
    };
    match setup() {
        Ok(opened) => Ok(opened),
        Err(e) if is_damaged(&e) => Ok(Opened::Stale),
        Err(e) => Err(index_error(path, e)),
    }
}

/// Delete a stale database and create a new one, under `lock`: rebuilders take turns, and
/// the one that comes second finds the index already rebuilt.
fn replace_stale(lock: &Path, path: &Path) -> Result<Connection> {
    store::with_lock(lock, || {
        if let Opened::Ready(conn) = connect(path)? {
            return Ok(conn);
        }
        remove_database(path)?;
        match connect(path)? {
            Opened::Ready(conn) => Ok(conn),
            Opened::Stale => Err(Error::Index {
                path: path.to_owned(),
                reason: "a new index is unreadable or has an unexpected schema".into(),
            }),
        }
    })
}

/// Whether SQLite says the file itself is bad (rather than busy, unreadable or full).
fn is_damaged(error: &rusqlite::Error) -> bool {
    matches!(
        error.sqlite_error_code(),
        Some(ErrorCode::DatabaseCorrupt | ErrorCode::NotADatabase)
    )
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

/// Empty a mailbox's index and build it again from the files.
///
/// A readable database is emptied in one transaction rather than deleted: other processes may
/// have it open, and deleting a WAL database's files under them breaks their connections
/// ("disk I/O error"). Only a damaged one is deleted (see [`replace_stale`]).
pub fn rebuild(mailbox: &Mailbox) -> Result<Index> {
    let state = mailbox.state_dir();
    let path = state.join("index.db");
    store::create_private_dir(&state)?;
    store::with_lock(&state.join(LOCK), || {
        match connect(&path)? {
            Opened::Ready(mut conn) => empty(&mut conn).map_err(|e| index_error(&path, e))?,
            Opened::Stale => remove_database(&path)?,
        }
        // The emptied index lists every folder; the journals start again from there.
        crate::journal::remove_all(&state).map_err(|e| Error::io(&state, e))
    })?;
    Index::open(mailbox)
}

/// Delete every row, so the next sync lists and indexes every folder again.
fn empty(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(
        "DELETE FROM dirs; DELETE FROM messages; DELETE FROM listed;
         INSERT INTO fts(fts) VALUES('delete-all');",
    )?;
    tx.commit()
}

fn index_error(path: &Path, error: rusqlite::Error) -> Error {
    Error::Index {
        path: path.to_owned(),
        reason: error.to_string(),
    }
}

#[cfg(test)]
mod tests;
