//! Locks between processes: an exclusive `flock` on a lock file or on a folder itself, held
//! while work runs (or until dropped), and whether another process holds one now.

use std::fs::{File, OpenOptions};
use std::io::ErrorKind;
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

use rustix::fs::OFlags;

use super::read::refuse_link;
use super::staging::{create_private_dir, make_private};
use crate::error::{Error, IoContext, Result};
use crate::fs::beneath::{self, Place};

/// Hold an exclusive lock on the lock file `place` (created if needed) while `f` runs.
pub(crate) fn with_lock<T>(place: Place, f: impl FnOnce() -> Result<T>) -> Result<T> {
    let lock = Lock::take(place)?;
    let result = f();
    drop(lock);
    result
}

/// An exclusive `flock` on a lock file, held until dropped (or until the process dies).
#[derive(Debug)]
pub(crate) struct Lock {
    held: File,
}

impl Lock {
    /// Wait for and take the lock on the lock file `place` (created if needed, with its
    /// folders, beneath its mailbox).
    pub(crate) fn take(place: Place) -> Result<Lock> {
        let path = place.path;
        if let Some(dir) = path.parent() {
            beneath::create_dir(place.mailbox, dir).map_err(|e| refuse_link(dir, e))?;
        }
        let file = place
            .open(OFlags::RDWR | OFlags::CREATE, 0o600)
            .map_err(|e| refuse_link(path, e))?;
        make_private(&file, path)?;
        file.lock().at(path)?;
        Ok(Lock { held: file })
    }

    /// The locked file, open for reading and writing: a lock may keep a small record of what
    /// its holder did (`mail::key_record`), read and written only while it is held.
    pub(crate) fn file(&self) -> &File {
        &self.held
    }
}

/// Whether some process holds the lock on the lock file `place` now: `false` when the file is
/// missing or nobody holds it (the kernel drops a lock with the process that held it). Taking
/// it to find out releases it at once; a holder that is taking it meanwhile just waits.
pub(crate) fn lock_is_held(place: Place) -> Result<bool> {
    let path = place.path;
    let file = match place.open(OFlags::RDONLY, 0) {
        Ok(file) => file,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(false),
        Err(e) => return Err(refuse_link(path, e)),
    };
    match file.try_lock_shared() {
        Ok(()) => Ok(false),
        Err(std::fs::TryLockError::WouldBlock) => Ok(true),
        Err(std::fs::TryLockError::Error(e)) => Err(Error::io(path, e)),
    }
}

/// Wait until nobody holds the lock on the lock file `place` (at once when it is missing).
pub(crate) fn wait_for_release(place: Place) -> Result<()> {
    let path = place.path;
    let file = match place.open(OFlags::RDONLY, 0) {
        Ok(file) => file,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(refuse_link(path, e)),
    };
    file.lock_shared().at(path)
}

/// Hold an exclusive lock on the folder `dir` itself (created if needed) while `f` runs: for a
/// file replaced by rename, whose folder must not fill up with lock files (the config).
pub(crate) fn with_folder_lock<T>(dir: &Path, f: impl FnOnce() -> Result<T>) -> Result<T> {
    create_private_dir(dir)?;
    let folder = OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_DIRECTORY | libc::O_NOFOLLOW)
        .open(dir)
        .at(dir)?;
    folder.lock().at(dir)?;
    let result = f();
    drop(folder);
    result
}
