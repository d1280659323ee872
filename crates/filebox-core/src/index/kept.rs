//! The indexes this process keeps open between uses. Opening one is SQLite's work: the schema
//! check and, when no other connection has the database open, reading the whole write-ahead
//! log into its shared index; a reply by id looks in five folders twice, and the hub answers
//! thousands of calls. Kept open, a use is the sync's few `stat`s (and the catching up with
//! what changed) and the query. At most [`KEPT`] are kept, the least recently used closed
//! first; a database replaced under its path (deleted as damaged and made again) is opened
//! again. Each is used by one thread at a time; the pool's own lock is never held while an
//! index is opened, built or used.

use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};
use std::time::SystemTime;

use super::Index;
use crate::error::Result;
use crate::mailbox::Mailbox;

/// How many indexes stay open: the mailboxes a hub serves most, each a SQLite connection
/// (its page cache is 2 MiB, `index::CACHE_KIB`; a command's catch-up takes more, a hub's not).
pub(super) const KEPT: usize = 8;

/// A database file: device, inode and birth time (an inode number is reused once freed).
type FileIdentity = (u64, u64, Option<SystemTime>);

/// One open index and the file it has open.
struct Kept {
    path: PathBuf,
    file: FileIdentity,
    index: Arc<Mutex<Index>>,
}

/// Most recently used last.
static OPEN: Mutex<Vec<Kept>> = Mutex::new(Vec::new());

/// Run `use_index` on the mailbox's index, brought up to date, when the mailbox has one
/// (`None` when it has none: a listing or a look-up never builds one).
pub(crate) fn with_existing<T>(
    mailbox: &Mailbox,
    use_index: impl FnOnce(&Index) -> Result<T>,
) -> Result<Option<T>> {
    let path = super::database_path(mailbox);
    let Some(file) = identity(&path) else {
        return Ok(None);
    };
    let index = kept(mailbox, &path, file)?;
    synced(&index, use_index).map(Some)
}

/// Run `use_index` on the mailbox's index, brought up to date, creating and building it when
/// there is none (`search`, `threads`, a fork; the hub for the mailboxes it serves).
pub fn with_index<T>(mailbox: &Mailbox, use_index: impl FnOnce(&Index) -> Result<T>) -> Result<T> {
    let path = super::database_path(mailbox);
    let index = match identity(&path) {
        Some(file) => kept(mailbox, &path, file)?,
        None => keep(&path, Index::open(mailbox)?),
    };
    synced(&index, use_index)
}

/// Run `use_index` on `index`, locked for this thread and caught up with the files.
fn synced<T>(index: &Mutex<Index>, use_index: impl FnOnce(&Index) -> Result<T>) -> Result<T> {
    let mut index = lock(index);
    index.sync()?;
    use_index(&index)
}

/// The kept index of the database `file` at `path`, opened (and kept) when it is not.
fn kept(mailbox: &Mailbox, path: &Path, file: FileIdentity) -> Result<Arc<Mutex<Index>>> {
    {
        let mut open = lock(&OPEN);
        if let Some(at) = open.iter().position(|k| k.path == path) {
            let found = open.remove(at);
            if found.file == file {
                let index = Arc::clone(&found.index);
                open.push(found);
                return Ok(index);
            }
            // Replaced under its path: the connection reads a deleted file.
        }
    }
    Ok(keep(path, Index::open(mailbox)?))
}

/// Keep `index` (the newest of two opened at once wins), closing the least recently used
/// beyond [`KEPT`].
fn keep(path: &Path, index: Index) -> Arc<Mutex<Index>> {
    let index = Arc::new(Mutex::new(index));
    // Opening created the file; one that cannot be stat'ed now is not kept.
    let Some(file) = identity(path) else {
        return index;
    };
    let mut open = lock(&OPEN);
    open.retain(|k| k.path != path);
    if open.len() >= KEPT {
        open.remove(0);
    }
    open.push(Kept {
        path: path.to_owned(),
        file,
        index: Arc::clone(&index),
    });
    index
}

/// Which database file is at `path`, if there is one.
fn identity(path: &Path) -> Option<FileIdentity> {
    std::fs::symlink_metadata(path)
        .ok()
        .map(|meta| (meta.dev(), meta.ino(), meta.created().ok()))
}

/// A lock whose holder panicked still guards a usable value: an index is a cache whose next
/// sync repairs what a panic interrupted (SQLite rolled back its transaction).
fn lock<T>(mutex: &Mutex<T>) -> MutexGuard<'_, T> {
    mutex.lock().unwrap_or_else(PoisonError::into_inner)
}

/// How many indexes are kept, and whether the one of `path` is kept open on the file now there.
#[cfg(test)]
pub(super) fn kept_now(path: &Path) -> (usize, bool) {
    let open = lock(&OPEN);
    let current = identity(path);
    let kept = open
        .iter()
        .any(|k| k.path == path && Some(k.file) == current);
    (open.len(), kept)
}
