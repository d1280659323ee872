//! The search index of one mailbox: a SQLite database (FTS5) at `.filebox/index.db`, derived
//! from the files and brought up to date before every query (see `sync.rs`), so it can be
//! deleted at any time and never hides a message that a listing shows; and what runs through
//! it: search over one or every mailbox (`search.rs`), finding a message by reference
//! (`find.rs`) and the copy that speaks for it (`copies.rs`).
//!
//! # Sync
//! Before every query, a folder whose mtime is unchanged is skipped. A changed folder is first
//! caught up from its change journal (`store/journal.rs`): when the journal's new lines form a
//! chain from the mtime the index recorded to the folder's mtime now (each line starts at the
//! mtime the previous one ended at, and moved it), they explain every change, and only the
//! files they name are read: a delivery into a folder of 100,000 files costs its own file, not
//! a listing. Anything else breaks the chain — a file another tool or a person wrote, renamed
//! or deleted, a writer killed between its change and its line, a torn line, a deleted journal,
//! or a file system whose timestamps cannot tell two changes apart (a line whose mtime did not
//! move) — and the folder is listed and compared by file name and inode (as sorted hashed keys
//! against the rows' `entry` column, read in order from its index; every rewrite is a rename,
//! so a new inode). A journal line is applied by looking its key up in that index, so catching
//! up costs what changed, however many files the folder holds (the keys used to be one blob per
//! folder, read and decoded whole at every catch-up: 8 MiB and a third of a second at 1,000,000
//! files). After such a listing, a folder changed within the last 100 ms (2 s on a file system
//! that keeps whole seconds) is listed again next time, since more could land within the same
//! mtime tick; an mtime reached through the journal is trusted at once, because a change after
//! the writer's `stat` moves it (Linux's fine-grained timestamps, ext4/xfs/btrfs/tmpfs since
//! 6.13). `reindex` first waits until each folder's last change is that old (at most once per
//! folder: a bulk import that just ended would otherwise leave a million-file folder to be
//! listed again by the next command). A damaged or old-schema database is deleted and rebuilt;
//! `reindex` also deletes the journals. Not seen without `reindex`: a file edited in place by
//! hand (same inode), a file another tool links into a folder during the microseconds of a
//! FileBox change there (between the writer's two `stat`s), and, on a file system with coarse
//! timestamps, one written in the same clock tick right after a FileBox change. Journals grow
//! by one line (~100 bytes) per change until `reindex`.
//!
//! # Durability
//! The index is SQLite in WAL mode with `synchronous=NORMAL`: a commit appends to the
//! write-ahead log without an fsync, and the log is not checkpointed when a process closes it
//! (every command is a short-lived process, and checkpointing, deleting and recreating the log
//! cost four fsyncs per delivery); a writer that finds the log past 4 MiB (about fifty
//! deliveries) checkpoints it into the database, empties it and writes the new log's header
//! (whose fsync SQLite requires), without waiting for readers. A process killed at any instant
//! loses nothing (the log is written before the commit returns). A power cut may lose the last
//! commits, never tear one: SQLite's log frames are checksummed and salted, and recovery keeps
//! the longest prefix of whole transactions, so the index comes back as it was after some
//! earlier sync, with that sync's folder mtimes, journal positions and entry keys, all
//! consistent with one another. Nothing it records can be ahead of the files: it records a
//! folder's mtime only after reading that mtime from the folder, and a message file and its
//! folder are fsynced before a send is acknowledged, while the index and the journals are not
//! fsynced at all. So after the cut each folder is in one of three states: its mtime equals the
//! recorded one (unchanged since that sync: the rows are right); the journal lines after the
//! recorded position chain from the recorded mtime to the current one (they name every change
//! since; a line lost with the journal's unsynced tail, or a torn or zero-filled one, breaks
//! the chain); or the folder is listed and compared by name and inode. A change that the cut
//! undid (a file linked but its folder not yet fsynced: a send not yet acknowledged) takes the
//! folder's mtime back or elsewhere, so no recorded mtime or journal line ends where the folder
//! now is, and the folder is listed. The index is therefore never wrong about the files after a
//! power cut; it may only redo work.

mod copies;
mod find;
mod fts_writes;
mod kept;
mod listed;
mod listing;
mod lookup;
mod page;
mod query;
mod record;
mod search;
mod segment;
mod sync;

use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::Duration;

use rusqlite::config::DbConfig;
use rusqlite::{Connection, ErrorCode, TransactionBehavior};

use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::fs::beneath::Place;
use crate::mailbox::Mailbox;
use crate::store;

pub(crate) use kept::with_existing;
pub use kept::with_index;
pub use listing::list;
pub(crate) use lookup::with_short;
pub use page::{Page, PageListing, page};
pub use query::{Hit, SearchQuery, ThreadActivity};
#[cfg(feature = "fuzzing")]
pub(crate) use record::Record;
pub(crate) use record::Row;

/// Bump when the schema or what is indexed changes: an older database is rebuilt.
const SCHEMA_VERSION: i64 = 10;

/// Held while the database files are deleted, so two processes never rebuild at once.
const LOCK: &str = "index.lock";

/// How long a connection waits for another process's write lock, in steps of [`BUSY_STEP`].
const BUSY: Duration = Duration::from_secs(10);

/// How often a waiting connection tries the lock again. SQLite's own busy timeout tries at
/// growing intervals (1, 2, 5, 10 … 100 ms apart), so a reader that found a hub's sync
/// holding the lock for a millisecond came back 10–50 ms later; a sync holds it for a few.
const BUSY_STEP: Duration = Duration::from_millis(1);

/// The busy handler: wait a step and try again, until [`BUSY`] has passed.
fn wait_for_lock(attempts: i32) -> bool {
    let waited = BUSY_STEP * u32::try_from(attempts).unwrap_or(u32::MAX);
    if waited >= BUSY {
        return false;
    }
    std::thread::sleep(BUSY_STEP);
    true
}

/// How large the write-ahead log may grow before the writer that finds it so checkpoints it
/// into the database and empties it. A checkpoint costs fsyncs, while every process that opens
/// the index first reads the whole log (SQLite rebuilds its in-memory index of it): 4 MiB is
/// about fifty deliveries and a few milliseconds of reading at most.
const WAL_LIMIT: u64 = 4 * 1024 * 1024;

/// SQLite's page cache of a connection (KiB; SQLite's default), and while a sync's transaction
/// runs: the pages a catch-up changes then stay in memory until its commit instead of spilling
/// into the log and being read back (at 2 MiB, 1,000 new messages in an index of 100,000
/// wrote 6,200 pages into the log and read 9,300 back; 3,650 and 3,650 with the larger
/// cache, each changed page once and the checkpoint's copy).
const CACHE_KIB: i64 = 2 * 1024;
const SYNC_CACHE_KIB: i64 = 32 * 1024;

/// Whether this process keeps indexes open for days (the hub, `filebox mcp`): its catch-ups
/// keep the small cache, as the pages a larger one frees stay in the process's heap (a hub's
/// memory went from 11 to 169 MiB over one bench run with them); a command gives them back
/// when it exits.
static LONG_LIVED: AtomicBool = AtomicBool::new(false);

/// Declare this process long-lived (the hub, `filebox mcp`): see [`LONG_LIVED`].
pub fn keep_caches_small() {
    LONG_LIVED.store(true, Ordering::Relaxed);
}

/// Whether this process declared itself long-lived ([`keep_caches_small`]).
fn long_lived() -> bool {
    LONG_LIVED.load(Ordering::Relaxed)
}

// Architecture Invariant: a row's rowid orders rows by activity (see `record::activity_key`),
// so "newest activity first" is rowid order, which both the table and FTS5's doclists walk
// natively: a query stops after LIMIT hits instead of sorting every match.
const SCHEMA: &str = "
CREATE TABLE dirs(
    folder TEXT PRIMARY KEY, mtime INTEGER, journal_ino INTEGER, journal_len INTEGER,
    skipped INTEGER
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
-- listing served from the index reads these small rows only (see listing.rs). `id`, `short`
-- (its first 8 characters, lower case) and `time` (the listing's `YYYYMMDDTHHMMSS`) are the
-- header's, for a page of a listing and a look-up by id (page.rs, lookup.rs).
CREATE TABLE listed(
    folder TEXT NOT NULL, name TEXT NOT NULL, ctime INTEGER, size INTEGER, header TEXT,
    problem TEXT, id TEXT, short TEXT, time TEXT,
    PRIMARY KEY(folder, name)
) WITHOUT ROWID;
-- Named in the queries (`INDEXED BY`): without statistics SQLite's planner prefers the primary
-- key's `folder` and scans a folder's rows for every insert. `time` and `short` are set
-- exactly when `header` is, so `time IS NULL` finds the rows without a header.
CREATE INDEX listed_order ON listed(folder, time, name);
CREATE INDEX listed_short ON listed(folder, short);
-- How many entries each folder's listing has (one per Message ID among the files with a
-- header), kept by the triggers below as rows come and go, so a page knows the total
-- without counting a million rows.
CREATE TABLE counts(folder TEXT PRIMARY KEY, entries INTEGER NOT NULL) WITHOUT ROWID;
CREATE TRIGGER listed_in AFTER INSERT ON listed WHEN NEW.header IS NOT NULL BEGIN
    INSERT OR IGNORE INTO counts(folder, entries) VALUES (NEW.folder, 0);
    UPDATE counts SET entries = entries + 1 WHERE folder = NEW.folder AND NOT EXISTS
        (SELECT 1 FROM listed INDEXED BY listed_short WHERE folder = NEW.folder AND short = NEW.short
            AND id = NEW.id AND name <> NEW.name);
END;
CREATE TRIGGER listed_out AFTER DELETE ON listed WHEN OLD.header IS NOT NULL BEGIN
    UPDATE counts SET entries = entries - 1 WHERE folder = OLD.folder AND NOT EXISTS
        (SELECT 1 FROM listed INDEXED BY listed_short WHERE folder = OLD.folder AND short = OLD.short
            AND id = OLD.id);
END;
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
        let path = database_path(mailbox);
        mailbox.create_state_dir()?;
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

    /// Let SQLite's page cache of this connection hold up to `kib` KiB (a smaller limit frees
    /// what is above it).
    fn set_cache_kib(&self, kib: i64) -> rusqlite::Result<()> {
        self.conn.pragma_update(None, "cache_size", -kib)
    }

    /// After a write: when the write-ahead log is past [`WAL_LIMIT`], copy it into the
    /// database and empty it. Never waits for readers of other processes: a checkpoint they
    /// keep from finishing is done by a later writer.
    fn checkpoint_if_large(&mut self) -> Result<()> {
        let wal = PathBuf::from(format!("{}-wal", self.path.display()));
        if std::fs::metadata(&wal).map_or(true, |meta| meta.len() < WAL_LIMIT) {
            return Ok(());
        }
        self.conn
            .busy_timeout(Duration::ZERO)
            .map_err(|e| self.error(e))?;
        // A row (busy, log frames, checkpointed frames): busy when readers kept it from
        // emptying the log, which is not an error.
        let checkpoint = self
            .conn
            .query_row("PRAGMA wal_checkpoint(TRUNCATE)", [], |r| {
                r.get::<_, i64>(0)
            });
        self.conn
            .busy_handler(Some(wait_for_lock))
            .map_err(|e| self.error(e))?;
        match checkpoint {
            // The first write into an empty log writes its header and fsyncs it (and, the first
            // time in a process, its folder): done here, by the process that already paid for
            // the checkpoint, rather than by the next delivery's search.
            Ok(0) => self
                .conn
                .pragma_update(None, "user_version", SCHEMA_VERSION)
                .map_err(|e| self.error(e)),
            Err(e) if e.sqlite_error_code() != Some(ErrorCode::DatabaseBusy) => Err(self.error(e)),
            _ => Ok(()),
        }
    }
}

/// Where a mailbox's index is.
fn database_path(mailbox: &Mailbox) -> PathBuf {
    mailbox.state_dir().join("index.db")
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
        // SQLite opens by path: `.filebox` was just checked to be a real folder of the mailbox
        // (`create_state_dir`) and the database file itself is never a link.
        let flags = rusqlite::OpenFlags::default() | rusqlite::OpenFlags::SQLITE_OPEN_NOFOLLOW;
        let mut conn = Connection::open_with_flags(path, flags)?;
        conn.busy_handler(Some(wait_for_lock))?;
        // A derived index may lose its last transactions in a power cut: the next sync redoes
        // them from the files (the module doc, "Durability"). In WAL mode a commit then
        // writes the log without an fsync.
        conn.pragma_update(None, "synchronous", "NORMAL")?;
        // Every command is a short-lived process whose connection is the last to close: SQLite
        // would checkpoint the log into the database and delete it on every close (two
        // fsyncs), and the next writer would create it again (two more: the new log and its
        // folder). The log stays instead, and is checkpointed when it grows past `WAL_LIMIT`
        // (`Index::checkpoint_if_large`), not by SQLite's automatic checkpoints: those leave
        // the log full, and each next process would copy all of it again.
        conn.set_db_config(DbConfig::SQLITE_DBCONFIG_NO_CKPT_ON_CLOSE, true)?;
        conn.pragma_update(None, "wal_autocheckpoint", 0)?;
        // Statement journals (a statement inside a sync's transaction that may fail keeps the
        // pages it changes, to undo itself) stay in memory: in a temporary file they were a
        // write system call per page, 15,600 of them for 1,000 new messages.
        conn.pragma_update(None, "temp_store", "MEMORY")?;
        // No memory map: pages are read into SQLite's own cache ([`CACHE_KIB`]) and the
        // kernel's, so a process that keeps indexes open (the hub) holds a bounded amount
        // however large they grow; a map's touched pages would count as its own, up to the
        // whole file.
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
    store::with_lock(Place::file(lock), || {
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
    let path = database_path(mailbox);
    mailbox.create_state_dir()?;
    let lock = state.join(LOCK);
    store::with_lock(Place::new(mailbox.root(), &lock), || {
        match connect(&path)? {
            Opened::Ready(mut conn) => empty(&mut conn).map_err(|e| index_error(&path, e))?,
            Opened::Stale => remove_database(&path)?,
        }
        // The emptied index lists every folder; the journals start again from there.
        crate::store::journal::remove_all(&state).map_err(|e| Error::io(&state, e))
    })?;
    // A folder changed a moment ago (a bulk import just ended) would be listed now, but its
    // mtime recorded as untrusted, and every later command would list it again until a change
    // came: a wait of at most a moment spares a listing of the whole folder later.
    crate::store::journal::wait_until_settled(
        Folder::ALL.map(|folder| mailbox.folder_path(folder)),
    );
    Index::open(mailbox)
}

/// Delete every row, so the next sync lists and indexes every folder again.
fn empty(conn: &mut Connection) -> rusqlite::Result<()> {
    let tx = conn.transaction_with_behavior(TransactionBehavior::Immediate)?;
    tx.execute_batch(
        "DELETE FROM dirs; DELETE FROM messages; DELETE FROM listed;
         DELETE FROM counts; INSERT INTO fts(fts) VALUES('delete-all');",
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
