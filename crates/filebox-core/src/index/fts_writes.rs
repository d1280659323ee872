//! A sync's transaction with its full-text writes held back and written together. FTS5 keeps
//! the text it is given in memory and writes it out as a segment whenever a savepoint opens,
//! and SQLite opens one for every statement that fires triggers (each `listed` insert). Written
//! as each message is indexed, the full-text index would write one segment per message (and
//! journal the pages it touches); held back, it writes one per batch.

use std::cell::RefCell;
use std::ops::Deref;

use rusqlite::Transaction;

/// How many full-text writes are held at most.
const HELD_WRITES: usize = 512;
/// How much text is held at most (a batch of large bodies goes sooner).
const HELD_BYTES: usize = 4 << 20;

enum FtsWrite {
    Insert {
        rowid: i64,
        title: String,
        body: String,
    },
    Delete {
        rowid: i64,
    },
}

/// The full-text writes held, and the bytes of text they carry.
#[derive(Default)]
struct Held {
    writes: Vec<FtsWrite>,
    bytes: usize,
}

/// The transaction a sync writes in; it reads as the transaction itself.
pub(super) struct SyncWrites<'c> {
    tx: Transaction<'c>,
    held: RefCell<Held>,
}

impl<'c> Deref for SyncWrites<'c> {
    type Target = Transaction<'c>;
    fn deref(&self) -> &Transaction<'c> {
        &self.tx
    }
}

impl<'c> SyncWrites<'c> {
    pub(super) fn new(tx: Transaction<'c>) -> SyncWrites<'c> {
        SyncWrites {
            tx,
            held: RefCell::default(),
        }
    }

    /// Index `title` and `body` under `rowid` (written with the batch).
    pub(super) fn insert_text(
        &self,
        rowid: i64,
        title: String,
        body: String,
    ) -> rusqlite::Result<()> {
        let size = title.len() + body.len();
        self.hold(FtsWrite::Insert { rowid, title, body }, size)
    }

    /// Remove the text of `rowid` (after any insert held before it).
    pub(super) fn delete_text(&self, rowid: i64) -> rusqlite::Result<()> {
        self.hold(FtsWrite::Delete { rowid }, 0)
    }

    fn hold(&self, write: FtsWrite, size: usize) -> rusqlite::Result<()> {
        let full = {
            let mut held = self.held.borrow_mut();
            held.writes.push(write);
            held.bytes += size;
            held.writes.len() >= HELD_WRITES || held.bytes >= HELD_BYTES
        };
        if full { self.write_held() } else { Ok(()) }
    }

    /// Write what is held, in the order it came.
    fn write_held(&self) -> rusqlite::Result<()> {
        let held = std::mem::take(&mut *self.held.borrow_mut());
        for write in held.writes {
            match write {
                FtsWrite::Insert { rowid, title, body } => self
                    .tx
                    .prepare_cached("INSERT INTO fts(rowid, title, body) VALUES (?1, ?2, ?3)")?
                    .execute(rusqlite::params![rowid, title, body])?,
                FtsWrite::Delete { rowid } => self
                    .tx
                    .prepare_cached("DELETE FROM fts WHERE rowid = ?1")?
                    .execute([rowid])?,
            };
        }
        Ok(())
    }

    /// Write what is held and commit.
    pub(super) fn commit(self) -> rusqlite::Result<()> {
        self.write_held()?;
        self.tx.commit()
    }
}
