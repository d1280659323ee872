//! Bringing the index up to date with the files, cheaply enough to do before every query: one
//! `stat` per folder, compared with the mtimes recorded in the index without taking the write
//! lock, and when nothing changed that is all. A folder whose directory mtime changed has its
//! file names and inode numbers (one `readdir`, no `stat` per file) compared with the index,
//! and only files that appeared, vanished or were replaced (every store rewrite is a rename: a
//! new inode) are read. The comparison is of sorted numbers, one per (name, inode), kept as
//! one blob per folder, so a delivery into a folder of 100,000 files costs its `readdir` and a
//! merge, not 100,000 rows read back from the database. A file edited in place, keeping its inode and its folder's mtime, needs
//! `reindex`.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::time::{Duration, SystemTime};

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};

use super::record::{ACTIVITY_SHIFT, Record, activity_key};
use super::{Index, segment};
use crate::error::{Error, IoContext, Result};
use crate::folder::Folder;
use crate::mailbox::{Mailbox, parse_bytes};
use crate::message::FileName;
use crate::store;

/// A directory changed this recently may change again within the same mtime tick after it was
/// listed (the kernel stamps files from a clock that advances once per scheduler tick, 1-10
/// ms): such an mtime is not trusted, and the next sync lists the folder again.
const RACY: Duration = Duration::from_millis(100);
/// The same for a file system that keeps whole seconds (a zero nanosecond part).
const RACY_WHOLE_SECONDS: Duration = Duration::from_secs(2);

impl Index {
    /// Bring the index up to date with the mailbox's folders.
    pub fn sync(&mut self) -> Result<()> {
        let path = self.path.clone();
        let sql = |e| super::index_error(&path, e);
        // The common case, nothing changed, is five `stat`s and one read.
        let mut stale = Vec::new();
        {
            let mut select = self
                .conn
                .prepare_cached("SELECT folder, mtime FROM dirs")
                .map_err(sql)?;
            let stored: HashMap<String, Option<i64>> = select
                .query_map([], |r| Ok((r.get(0)?, r.get(1)?)))
                .and_then(|rows| rows.collect())
                .map_err(sql)?;
            for folder in Folder::ALL {
                let stamp = trusted_mtime(&self.mailbox.folder_path(folder))?;
                if stamp.is_none() || stored.get(folder.as_str()) != Some(&stamp) {
                    stale.push(folder);
                }
            }
        }
        if stale.is_empty() {
            return Ok(());
        }
        let tx = self
            .conn
            .transaction_with_behavior(TransactionBehavior::Immediate)
            .map_err(sql)?;
        for folder in stale {
            sync_folder(&tx, &self.mailbox, folder).map_err(|e| match e {
                Failure::Sql(e) => sql(e),
                Failure::Core(e) => e,
            })?;
        }
        tx.commit().map_err(sql)
    }
}

enum Failure {
    Sql(rusqlite::Error),
    Core(Error),
}

impl From<rusqlite::Error> for Failure {
    fn from(e: rusqlite::Error) -> Self {
        Failure::Sql(e)
    }
}

impl From<Error> for Failure {
    fn from(e: Error) -> Self {
        Failure::Core(e)
    }
}

fn sync_folder(tx: &Transaction<'_>, mailbox: &Mailbox, folder: Folder) -> Result<(), Failure> {
    let dir = mailbox.folder_path(folder);
    // Taken before listing: a change after this point moves the mtime past it.
    let stamp = trusted_mtime(&dir)?;
    let stored: Option<i64> = tx
        .query_row(
            "SELECT mtime FROM dirs WHERE folder = ?1",
            [folder.as_str()],
            |r| r.get(0),
        )
        .optional()?
        .flatten();
    if stamp.is_some() && stored == stamp {
        return Ok(());
    }
    let (entries, _problems) = mailbox.file_entries_unsorted(folder)?;
    let mut now: Vec<(i64, usize)> = entries
        .iter()
        .enumerate()
        .map(|(n, (name, ino))| (entry_key(name.as_str(), *ino), n))
        .collect();
    now.sort_unstable();
    let indexed = decode_entries(
        tx.query_row(
            "SELECT entries FROM dirs WHERE folder = ?1",
            [folder.as_str()],
            |r| r.get::<_, Option<Vec<u8>>>(0),
        )
        .optional()?
        .flatten()
        .as_deref(),
    );
    // Both sorted: one merge finds what vanished (or was replaced) and what appeared.
    let (mut at_now, mut at_indexed) = (0, 0);
    let mut appeared = Vec::new();
    let mut kept = Vec::with_capacity(now.len());
    while at_now < now.len() || at_indexed < indexed.len() {
        let next_now = now.get(at_now).map(|(key, _)| *key);
        let next_indexed = indexed.get(at_indexed).copied();
        match (next_now, next_indexed) {
            (Some(a), Some(b)) if a == b => {
                kept.push(a);
                at_now += 1;
                at_indexed += 1;
            }
            (Some(a), b) if b.is_none_or(|b| a < b) => {
                appeared.push(now[at_now].1);
                at_now += 1;
            }
            _ => {
                vanished(tx, folder, indexed[at_indexed])?;
                at_indexed += 1;
            }
        }
    }
    let mut complete = true;
    for n in appeared {
        let (name, ino) = &entries[n];
        let key = entry_key(name.as_str(), *ino);
        // The same name with another inode: a replaced file, whose old row goes.
        let old: Option<i64> = tx
            .prepare_cached("SELECT rowid FROM messages WHERE folder = ?1 AND name = ?2")?
            .query_row(params![folder.as_str(), name.as_str()], |r| r.get(0))
            .optional()?;
        if let Some(rowid) = old {
            delete(tx, rowid)?;
        }
        if insert(tx, mailbox, folder, name, key)? {
            kept.push(key);
        } else {
            complete = false; // not recorded: it appears again at the next sync
        }
    }
    kept.sort_unstable();
    let stamp = stamp.filter(|_| complete);
    tx.prepare_cached("INSERT OR REPLACE INTO dirs(folder, mtime, entries) VALUES (?1, ?2, ?3)")?
        .execute(params![folder.as_str(), stamp, encode_entries(&kept)])?;
    Ok(())
}

/// A folder entry's identity in the index: its name and inode, hashed (FNV-1a) to one number.
/// Every store rewrite is a rename, so a new inode and a new key; a file renamed by hand keeps
/// its inode but not its name, so it gets a new key too.
fn entry_key(name: &str, ino: u64) -> i64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for byte in name.bytes().chain(ino.to_le_bytes()) {
        hash ^= u64::from(byte);
        hash = hash.wrapping_mul(0x0100_0000_01b3);
    }
    hash as i64
}

/// The sorted entry keys of a folder as last indexed, stored as one blob per folder: reading
/// them is one row however many files the folder holds.
fn encode_entries(keys: &[i64]) -> Vec<u8> {
    keys.iter().flat_map(|k| k.to_le_bytes()).collect()
}

fn decode_entries(blob: Option<&[u8]>) -> Vec<i64> {
    blob.unwrap_or_default()
        .chunks_exact(8)
        .map(|c| i64::from_le_bytes(c.try_into().unwrap_or_default()))
        .collect()
}

/// Remove the rows of an entry that left the folder.
fn vanished(tx: &Transaction<'_>, folder: Folder, key: i64) -> rusqlite::Result<()> {
    let rowids: Vec<i64> = tx
        .prepare_cached("SELECT rowid FROM messages WHERE folder = ?1 AND entry = ?2")?
        .query_map(params![folder.as_str(), key], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for rowid in rowids {
        delete(tx, rowid)?;
    }
    Ok(())
}

/// The directory's mtime in nanoseconds, unless it is too recent to trust (or the folder is
/// not there yet: a reader's open creates none, and the next sync looks again).
fn trusted_mtime(dir: &Path) -> Result<Option<i64>> {
    let meta = match std::fs::metadata(dir) {
        Ok(meta) => meta,
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(None),
        Err(e) => return Err(e).at(dir),
    };
    let modified = meta.modified().at(dir)?;
    let age = SystemTime::now()
        .duration_since(modified)
        .unwrap_or_default();
    let racy = if meta.mtime_nsec() == 0 {
        RACY_WHOLE_SECONDS
    } else {
        RACY
    };
    Ok((age >= racy).then(|| meta.mtime() * 1_000_000_000 + meta.mtime_nsec()))
}

fn delete(tx: &Transaction<'_>, rowid: i64) -> rusqlite::Result<()> {
    tx.prepare_cached("DELETE FROM fts WHERE rowid = ?1")?
        .execute([rowid])?;
    tx.prepare_cached("DELETE FROM messages WHERE rowid = ?1")?
        .execute([rowid])?;
    Ok(())
}

/// Index one file. `false` when it could not be read for a reason that may pass (it is then
/// looked at again by the next sync); a file that is not a message is recorded as a problem.
fn insert(
    tx: &Transaction<'_>,
    mailbox: &Mailbox,
    folder: Folder,
    name: &FileName,
    entry: i64,
) -> Result<bool, Failure> {
    let path = mailbox.folder_path(folder).join(name.as_str());
    let parsed = match store::read_regular(&path) {
        Ok(bytes) => parse_bytes(&path, &bytes),
        Err(e) if store::is_not_found(&e) => return Ok(true), // moved on meanwhile
        Err(Error::Io { .. }) => return Ok(false),
        Err(e) => Err(e),
    };
    let message = match parsed {
        Ok(message) => message,
        Err(problem) => {
            tx.prepare_cached(
                "INSERT INTO messages(folder, name, entry, problem) VALUES (?1, ?2, ?3, ?4)",
            )?
            .execute(params![
                folder.as_str(),
                name.as_str(),
                entry,
                problem.to_string()
            ])?;
            return Ok(true);
        }
    };
    let record = Record::new(folder, name.as_str(), mailbox.owner().as_str(), &message);
    let row = &record.row;
    let rowid = next_rowid(tx, activity_key(&row.activity))?;
    tx.prepare_cached(
        "INSERT INTO messages(rowid, folder, name, entry, id, thread, kind, title, sender, receiver,
            cc, timestamp, activity, status, in_reply_to, forked_from, fork_reason, authors,
            replies, text)
         VALUES (?20, ?1, ?2, ?3, ?4, ?5, ?6, ?7, ?8, ?9, ?10, ?11, ?12, ?13, ?14, ?15, ?16, ?17,
            ?18, ?19)",
    )?
    .execute(params![
        folder.as_str(),
        name.as_str(),
        entry,
        row.id,
        row.thread,
        row.kind,
        row.title,
        row.sender,
        row.receiver,
        record.cc,
        row.timestamp,
        row.activity,
        row.status.as_str(),
        row.in_reply_to,
        row.forked_from,
        row.fork_reason,
        record.authors,
        record.replies as i64,
        record.snippet_source(),
        rowid,
    ])?;
    tx.prepare_cached("INSERT INTO fts(rowid, title, body) VALUES (?1, ?2, ?3)")?
        .execute(params![
            rowid,
            segment::for_index(&row.title),
            segment::for_index(&record.body)
        ])?;
    Ok(true)
}

/// The rowid for a new row whose activity key is `key`: after the rows of the same second (so
/// among equal activities the later indexed comes first).
fn next_rowid(tx: &Transaction<'_>, key: i64) -> rusqlite::Result<i64> {
    let end = key + (1 << ACTIVITY_SHIFT);
    let last: Option<i64> = tx
        .prepare_cached("SELECT MAX(rowid) FROM messages WHERE rowid >= ?1 AND rowid < ?2")?
        .query_row([key, end], |r| r.get(0))?;
    match last {
        None => Ok(key),
        Some(last) if last + 1 < end => Ok(last + 1),
        // A million rows in one second: past every rowid, still unique.
        Some(_) => tx
            .prepare_cached("SELECT MAX(rowid) + 1 FROM messages")?
            .query_row([], |r| r.get(0)),
    }
}
