//! Bringing the index up to date with the files, cheaply enough to do before every query: one
//! `stat` per folder, compared with the mtimes recorded in the index without taking the write
//! lock, and when nothing changed that is all. A folder whose mtime changed is caught up from
//! its change journal (`journal.rs`) when the journal explains every change since the recorded
//! mtime (FileBox's own deliveries and moves): only the files named there are read, and the
//! folder is not listed, however many files it holds. Otherwise (a file another tool wrote,
//! renamed or deleted; a writer killed before its journal line) the folder's file names and
//! inode numbers (one `readdir`, no `stat` per file) are compared with the index, and only
//! files that appeared, vanished or were replaced (every store rewrite is a rename: a new
//! inode) are read. That comparison is of sorted numbers, one per (name, inode) (`entry_key`).
//! A file edited in place, keeping its inode and its folder's mtime, needs `reindex`.

use std::collections::HashMap;
use std::path::Path;

use rusqlite::{OptionalExtension, Transaction, TransactionBehavior, params};

use super::fts_writes::SyncWrites;
use super::listed::{Listed, Stat};
use super::record::{ACTIVITY_SHIFT, Record, activity_key};
use super::{CACHE_KIB, Index, SYNC_CACHE_KIB, segment};
use crate::error::{Error, IoContext, Result};
use crate::folder::Folder;
use crate::mailbox::{Mailbox, parse_bytes};
use crate::message::FileName;
use crate::store;
use crate::store::journal::{self, Entry, Kind, Since};

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
                // A recorded mtime was trusted when recorded; equal now means unchanged.
                let stamp = current_mtime(&self.mailbox.folder_path(folder))?;
                if stamp.is_none() || stored.get(folder.as_str()) != Some(&stamp) {
                    stale.push(folder);
                }
            }
        }
        if stale.is_empty() {
            return Ok(());
        }
        if super::long_lived() {
            self.sync_folders(&stale)?;
        } else {
            LargerCache::of(self, SYNC_CACHE_KIB)
                .map_err(sql)?
                .index
                .sync_folders(&stale)?;
        }
        self.checkpoint_if_large()
    }

    /// Bring the `stale` folders up to date, in one transaction.
    fn sync_folders(&mut self, stale: &[Folder]) -> Result<()> {
        let path = self.path.clone();
        let sql = |e| super::index_error(&path, e);
        let tx = SyncWrites::new(
            self.conn
                .transaction_with_behavior(TransactionBehavior::Immediate)
                .map_err(sql)?,
        );
        for &folder in stale {
            sync_folder(&tx, &self.mailbox, folder).map_err(|e| match e {
                Failure::Sql(e) => sql(e),
                Failure::Core(e) => e,
            })?;
        }
        tx.commit().map_err(sql)
    }
}

/// The index with a larger SQLite page cache until dropped, then back at [`CACHE_KIB`] (also
/// when the sync failed or panicked: a kept index is used again).
struct LargerCache<'a> {
    index: &'a mut Index,
}

impl LargerCache<'_> {
    fn of(index: &mut Index, kib: i64) -> rusqlite::Result<LargerCache<'_>> {
        index.set_cache_kib(kib)?;
        Ok(LargerCache { index })
    }
}

impl Drop for LargerCache<'_> {
    fn drop(&mut self) {
        // A failure leaves the larger cache: SQLite refuses this pragma only when the
        // connection itself is broken.
        let _ = self.index.set_cache_kib(CACHE_KIB);
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

/// What the index recorded of a folder when it last caught up with it.
struct Seen {
    mtime: Option<i64>,
    since: Since,
    /// Entries of the folder a listing skips (symlinks, odd names), at the last listing.
    skipped: i64,
}

fn seen(tx: &Transaction<'_>, folder: Folder) -> rusqlite::Result<Seen> {
    let row = tx
        .query_row(
            "SELECT mtime, journal_ino, journal_len, skipped FROM dirs WHERE folder = ?1",
            [folder.as_str()],
            |r| {
                Ok((
                    r.get::<_, Option<i64>>(0)?,
                    r.get::<_, Option<i64>>(1)?,
                    r.get::<_, Option<i64>>(2)?,
                    r.get::<_, Option<i64>>(3)?,
                ))
            },
        )
        .optional()?;
    let Some((mtime, ino, len, skipped)) = row else {
        return Ok(Seen {
            mtime: None,
            since: Since::Unread,
            skipped: 0,
        });
    };
    let since = match mtime {
        None => Since::Unread, // listed again anyway
        Some(_) => Since::after(ino.zip(len).map(|(ino, len)| (ino as u64, len as u64))),
    };
    Ok(Seen {
        mtime,
        since,
        skipped: skipped.unwrap_or_default(),
    })
}

fn sync_folder(tx: &SyncWrites<'_>, mailbox: &Mailbox, folder: Folder) -> Result<(), Failure> {
    let dir = mailbox.folder_path(folder);
    let seen = seen(tx, folder)?;
    // Taken before listing: a change after this point moves the mtime past it.
    let snapshot = journal::snapshot(&dir, seen.since).at(&dir)?;
    let now = snapshot.folder.as_ref().map(journal::mtime_ns);
    if now.is_some() && now == seen.mtime {
        return Ok(()); // another process caught up meanwhile
    }
    if let (Some(from), Some(to), Some(entries)) = (seen.mtime, now, &snapshot.entries)
        && journal::explains(entries, from, to)
    {
        let complete = apply(tx, mailbox, folder, entries)?;
        // Every change since the last trusted mtime is explained, and each moved the mtime,
        // so a later change moves it again: this one can be trusted however recent.
        let seen_now = Recorded {
            mtime: now.filter(|_| complete),
            journal: snapshot.journal,
            skipped: seen.skipped,
        };
        return Ok(record(tx, folder, &seen_now)?);
    }
    let stamp = snapshot.folder.as_ref().and_then(journal::trusted_mtime);
    let (entries, problems) = mailbox.file_entries_unsorted(folder)?;
    let mut now: Vec<(i64, usize)> = entries
        .iter()
        .enumerate()
        .map(|(n, (name, ino))| (entry_key(name.as_str(), *ino), n))
        .collect();
    now.sort_unstable();
    let indexed = indexed_entries(tx, folder)?;
    // Both sorted: one merge finds what vanished (or was replaced) and what appeared.
    let (mut at_now, mut at_indexed) = (0, 0);
    let mut appeared = Vec::new();
    while at_now < now.len() || at_indexed < indexed.len() {
        let next_now = now.get(at_now).map(|(key, _)| *key);
        let next_indexed = indexed.get(at_indexed).copied();
        match (next_now, next_indexed) {
            (Some(a), Some(b)) if a == b => {
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
        replaced(tx, folder, name)?;
        if !insert(tx, mailbox, folder, name, key)? {
            complete = false; // not recorded: it appears again at the next sync
        }
    }
    let seen_now = Recorded {
        mtime: stamp.filter(|_| complete),
        journal: snapshot.journal,
        skipped: problems.len() as i64,
    };
    Ok(record(tx, folder, &seen_now)?)
}

/// Apply journal entries to the index; `false` when a file could not be read (the folder is
/// then listed again at the next sync). Each entry is looked up by its key: the work follows
/// the changes, however many files the folder holds.
fn apply(
    tx: &SyncWrites<'_>,
    mailbox: &Mailbox,
    folder: Folder,
    entries: &[Entry],
) -> Result<bool, Failure> {
    let mut complete = true;
    for entry in entries {
        // What a listing would skip (see `Mailbox::file_entries`).
        if !entry.name.ends_with(".md") || entry.name.starts_with('.') {
            continue;
        }
        let Ok(name) = FileName::new(&entry.name) else {
            continue;
        };
        let key = entry_key(name.as_str(), entry.ino);
        match entry.kind {
            Kind::Removed => vanished(tx, folder, key)?,
            Kind::Added | Kind::Rewritten => {
                if is_indexed(tx, folder, key)? {
                    continue; // indexed already (the listing that recorded the position saw it)
                }
                replaced(tx, folder, &name)?;
                if !insert(tx, mailbox, folder, &name, key)? {
                    complete = false;
                }
            }
        }
    }
    Ok(complete)
}

/// Remove the rows of whatever file the index holds under `name` (a file replaced under its
/// name).
fn replaced(tx: &SyncWrites<'_>, folder: Folder, name: &FileName) -> rusqlite::Result<()> {
    let old: Vec<i64> = tx
        .prepare_cached("SELECT rowid FROM messages WHERE folder = ?1 AND name = ?2")?
        .query_map(params![folder.as_str(), name.as_str()], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for rowid in old {
        delete(tx, rowid)?;
    }
    Ok(())
}

/// Whether the index holds the folder entry `key` (that file name with that inode).
fn is_indexed(tx: &Transaction<'_>, folder: Folder, key: i64) -> rusqlite::Result<bool> {
    tx.prepare_cached(
        "SELECT 1 FROM messages INDEXED BY messages_entry WHERE folder = ?1 AND entry = ?2",
    )?
    .query_row(params![folder.as_str(), key], |_| Ok(()))
    .optional()
    .map(|found| found.is_some())
}

/// The entry keys of the folder's rows, sorted: what the index holds, to compare with a
/// listing of the folder (the one pass over every row, only when the journal cannot explain
/// a change).
fn indexed_entries(tx: &Transaction<'_>, folder: Folder) -> rusqlite::Result<Vec<i64>> {
    tx.prepare_cached(
        "SELECT entry FROM messages INDEXED BY messages_entry WHERE folder = ?1 ORDER BY entry",
    )?
    .query_map([folder.as_str()], |r| r.get(0))?
    .collect()
}

/// How far the index caught up with a folder: the folder's mtime then (`None`: list it again
/// next time), the journal's position, and how many entries a listing skips.
struct Recorded {
    mtime: Option<i64>,
    journal: Option<(u64, u64)>,
    skipped: i64,
}

fn record(tx: &Transaction<'_>, folder: Folder, seen: &Recorded) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "INSERT OR REPLACE INTO dirs(folder, mtime, journal_ino, journal_len, skipped)
         VALUES (?1, ?2, ?3, ?4, ?5)",
    )?
    .execute(params![
        folder.as_str(),
        seen.mtime,
        seen.journal.map(|(ino, _)| ino as i64),
        seen.journal.map(|(_, len)| len as i64),
        seen.skipped,
    ])?;
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

/// Remove the rows of an entry that left the folder.
fn vanished(tx: &SyncWrites<'_>, folder: Folder, key: i64) -> rusqlite::Result<()> {
    let rowids: Vec<i64> = tx
        .prepare_cached("SELECT rowid FROM messages WHERE folder = ?1 AND entry = ?2")?
        .query_map(params![folder.as_str(), key], |r| r.get(0))?
        .collect::<rusqlite::Result<_>>()?;
    for rowid in rowids {
        delete(tx, rowid)?;
    }
    Ok(())
}

/// The directory's mtime in nanoseconds (`None`: the folder is not there yet; a reader's open
/// creates none, and the next sync looks again).
fn current_mtime(dir: &Path) -> Result<Option<i64>> {
    match std::fs::symlink_metadata(dir) {
        Ok(meta) => Ok(Some(journal::mtime_ns(&meta))),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => Ok(None),
        Err(e) => Err(e).at(dir),
    }
}

fn delete(tx: &SyncWrites<'_>, rowid: i64) -> rusqlite::Result<()> {
    tx.prepare_cached(
        "DELETE FROM listed WHERE (folder, name) IN
            (SELECT folder, name FROM messages WHERE rowid = ?1)",
    )?
    .execute([rowid])?;
    tx.delete_text(rowid)?;
    tx.prepare_cached("DELETE FROM messages WHERE rowid = ?1")?
        .execute([rowid])?;
    Ok(())
}

/// Index one file. `false` when it could not be read for a reason that may pass (it is then
/// looked at again by the next sync); a file that is not a message is recorded as a problem.
fn insert(
    tx: &SyncWrites<'_>,
    mailbox: &Mailbox,
    folder: Folder,
    name: &FileName,
    entry: i64,
) -> Result<bool, Failure> {
    let path = mailbox.folder_path(folder).join(name.as_str());
    // Before reading: a change after this moves the file's ctime past what is recorded, so a
    // listing served from the index reads that file again (`listing.rs`).
    let stat = match std::fs::symlink_metadata(&path) {
        Ok(meta) => Stat::of(&meta),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(true), // moved on
        Err(_) => return Ok(false),
    };
    let (parsed, listed) = match store::read_regular(&path) {
        Ok(bytes) => (parse_bytes(&path, &bytes), Listed::of(&path, name, &bytes)),
        Err(e) if store::is_not_found(&e) => return Ok(true), // moved on meanwhile
        Err(Error::Io { .. }) => return Ok(false),
        Err(e) => (Err(e), Listed::default()),
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
            listed.insert(tx, folder, name, &stat)?;
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
    listed.insert(tx, folder, name, &stat)?;
    tx.insert_text(
        rowid,
        segment::for_index(&row.title),
        segment::for_index(&record.body),
    )?;
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
