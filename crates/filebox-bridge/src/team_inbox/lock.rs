//! The lock Claude Code takes on an inbox, spoken from Rust: npm `proper-lockfile`'s protocol.
//! Acquiring is `mkdir("{inbox}.lock")` (atomic); a lock whose mtime is older than
//! [`STALE`] belongs to a dead holder and is removed; a holder refreshes the mtime so it does
//! not look stale, and checks before publishing that nobody took the lock over.

use std::fs;
use std::io;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant, SystemTime};

/// proper-lockfile's default `stale`: a lock untouched this long is taken over.
const STALE: Duration = Duration::from_secs(10);
/// proper-lockfile's default `update` (stale / 2): how often a holder refreshes the mtime.
const REFRESH: Duration = Duration::from_secs(5);
/// The first and the longest pause between attempts. Claude Code retries 5 ms to 100 ms apart
/// and gives up after ten retries (about 0.65 s, dropping its message); FileBox starts later
/// and slows to twice that, so when a lock is freed a waiting Claude Code writer takes it
/// first, and FileBox, which would rather wait than fail, waits its turn.
const FIRST_PAUSE: Duration = Duration::from_millis(10);
const LONGEST_PAUSE: Duration = Duration::from_millis(200);
/// How long FileBox waits at most, then fails with nothing written (safe to retry). Beyond
/// [`STALE`], so a dead holder's lock is taken over; a live holder refreshes its lock and
/// finishes in milliseconds, so reaching this means a writer is stuck.
const PATIENCE: Duration = Duration::from_secs(30);

/// Why a lock could not be had or kept.
#[derive(Debug, thiserror::Error)]
pub enum LockError {
    #[error("{path}: still locked by another writer after {waited:?}")]
    Busy { path: PathBuf, waited: Duration },
    #[error("{path}: the lock was taken over while held (it looked stale to another writer)")]
    Compromised { path: PathBuf },
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
}

/// A held lock; released (`rmdir`) on drop.
#[derive(Debug)]
pub struct InboxLock {
    path: PathBuf,
    /// The mtime this holder last gave the lock directory.
    mtime: SystemTime,
    refreshed: Instant,
}

impl InboxLock {
    /// Take the lock `lock_path` (a directory), waiting with exponential backoff.
    pub fn acquire(lock_path: &Path) -> Result<InboxLock, LockError> {
        let started = Instant::now();
        let mut pause = FIRST_PAUSE;
        loop {
            match fs::create_dir(lock_path) {
                Ok(()) => return InboxLock::held(lock_path),
                Err(e) if e.kind() == io::ErrorKind::AlreadyExists => {
                    if remove_if_stale(lock_path)? {
                        continue;
                    }
                }
                Err(source) => {
                    return Err(LockError::Io {
                        path: lock_path.to_path_buf(),
                        source,
                    });
                }
            }
            if started.elapsed() > PATIENCE {
                return Err(LockError::Busy {
                    path: lock_path.to_path_buf(),
                    waited: started.elapsed(),
                });
            }
            std::thread::sleep(pause);
            pause = (pause * 2).min(LONGEST_PAUSE);
        }
    }

    fn held(path: &Path) -> Result<InboxLock, LockError> {
        let mut lock = InboxLock {
            path: path.to_path_buf(),
            mtime: SystemTime::UNIX_EPOCH,
            refreshed: Instant::now(),
        };
        lock.mtime = lock.touch()?;
        Ok(lock)
    }

    /// Give the lock directory a fresh mtime (proper-lockfile's `update`).
    fn touch(&self) -> Result<SystemTime, LockError> {
        let io_error = |source| LockError::Io {
            path: self.path.clone(),
            source,
        };
        let now = SystemTime::now();
        let dir = fs::File::open(&self.path).map_err(io_error)?;
        dir.set_modified(now).map_err(io_error)?;
        // The file system may round the time: remember what it kept.
        dir.metadata().and_then(|m| m.modified()).map_err(io_error)
    }

    /// Check the lock is still mine (its mtime is the one I gave it) and refresh it when it is
    /// old enough to need it. Call between the steps of a critical section and right before
    /// publishing: a holder that lost its lock must not write.
    pub fn confirm(&mut self) -> Result<(), LockError> {
        let compromised = || LockError::Compromised {
            path: self.path.clone(),
        };
        let mtime = fs::metadata(&self.path)
            .and_then(|m| m.modified())
            .map_err(|_| compromised())?;
        if mtime != self.mtime {
            return Err(compromised());
        }
        if self.refreshed.elapsed() >= REFRESH {
            self.mtime = self.touch()?;
            self.refreshed = Instant::now();
        }
        Ok(())
    }
}

impl Drop for InboxLock {
    fn drop(&mut self) {
        // Only remove a lock that is still mine: after a takeover it is someone else's.
        if self.confirm().is_ok() {
            let _ = fs::remove_dir(&self.path);
        }
    }
}

/// Remove the lock if its holder stopped refreshing it; `true` if it was removed (or vanished).
fn remove_if_stale(lock_path: &Path) -> Result<bool, LockError> {
    let mtime = match fs::metadata(lock_path).and_then(|m| m.modified()) {
        Ok(mtime) => mtime,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(true),
        Err(source) => {
            return Err(LockError::Io {
                path: lock_path.to_path_buf(),
                source,
            });
        }
    };
    let age = SystemTime::now().duration_since(mtime).unwrap_or_default();
    if age <= STALE {
        return Ok(false);
    }
    match fs::remove_dir(lock_path) {
        Ok(()) => Ok(true),
        Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(true),
        Err(source) => Err(LockError::Io {
            path: lock_path.to_path_buf(),
            source,
        }),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_stale_lock_is_taken_over_and_a_live_one_detected_as_lost() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json.lock");
        fs::create_dir(&path).unwrap();
        let old = SystemTime::now() - Duration::from_secs(60);
        fs::File::open(&path).unwrap().set_modified(old).unwrap();
        let mut lock = InboxLock::acquire(&path).unwrap();
        lock.confirm().unwrap();
        // Another writer judged it stale and took it: this holder must notice.
        fs::File::open(&path)
            .unwrap()
            .set_modified(SystemTime::now() + Duration::from_secs(1))
            .unwrap();
        assert!(matches!(lock.confirm(), Err(LockError::Compromised { .. })));
        drop(lock);
        assert!(path.exists(), "a lost lock is left to its new holder");
    }

    #[test]
    fn release_removes_the_directory() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("a.json.lock");
        drop(InboxLock::acquire(&path).unwrap());
        assert!(!path.exists());
    }
}
