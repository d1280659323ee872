//! Group commit of directory fsyncs: threads of one process that publish into the same folder
//! at the same time share the directory fsync that makes their new names durable.
//!
//! A publisher stages its file, fsyncs it and links it into the folder on its own (in
//! parallel with the others), then calls [`sync_dir`]. That call returns only after an fsync
//! of the directory that *started after the call began* has succeeded, so what the caller
//! linked before calling is on disk when it returns, exactly as with a private fsync. While
//! one fsync of a folder runs, every caller that arrives joins the next batch; when the fsync
//! ends, one of them runs the next fsync for the whole batch, and each member is answered
//! with that fsync's outcome (an error reaches every member of the failed batch, never a
//! later one). One fsync at a time per folder: under load each covers many publications, and
//! a lone caller (the CLI, one send per process) pays one uncontended lock more than a plain
//! fsync.
//!
//! Folders are told apart by the path given; the registry keeps one small entry per folder
//! this process has synced (a hub: the configured mailboxes' folders).

use std::collections::HashMap;
use std::fs::File;
use std::io;
use std::path::{Path, PathBuf};
use std::sync::{Arc, Condvar, LazyLock, Mutex, MutexGuard, OnceLock};

/// fsync `dir`, sharing the fsync with the threads of this process syncing it at the same
/// time. Returns when everything linked into `dir` before the call is durable.
pub fn sync_dir(dir: &Path) -> io::Result<()> {
    group(dir).sync(|| File::open(dir)?.sync_all())
}

/// The group of one folder, created on first use.
fn group(dir: &Path) -> Arc<DirSync> {
    static GROUPS: LazyLock<Mutex<HashMap<PathBuf, Arc<DirSync>>>> =
        LazyLock::new(Default::default);
    let mut groups = GROUPS.lock().unwrap_or_else(|e| e.into_inner());
    Arc::clone(groups.entry(dir.to_owned()).or_default())
}

/// The fsyncs of one folder: at most one running, and the batch that waits for the next.
#[derive(Default)]
struct DirSync {
    state: Mutex<State>,
    /// Signalled whenever a batch is answered.
    answered: Condvar,
}

#[derive(Default)]
struct State {
    /// The batch the next fsync will answer: callers join it until that fsync starts.
    open: Arc<Batch>,
    /// Whether an fsync is running (for an earlier batch).
    syncing: bool,
}

/// Callers answered by one fsync.
#[derive(Default)]
struct Batch {
    outcome: OnceLock<Result<(), SyncFailure>>,
}

/// An fsync error, kept so that every member of the batch gets it.
#[derive(Clone)]
struct SyncFailure {
    kind: io::ErrorKind,
    os_code: Option<i32>,
    message: String,
}

impl SyncFailure {
    fn of(error: &io::Error) -> SyncFailure {
        SyncFailure {
            kind: error.kind(),
            os_code: error.raw_os_error(),
            message: error.to_string(),
        }
    }

    fn to_error(&self) -> io::Error {
        match self.os_code {
            // The OS error itself (ENOSPC, EIO, ...), as a private fsync would have returned.
            Some(code) => io::Error::from_raw_os_error(code),
            None => io::Error::new(self.kind, self.message.clone()),
        }
    }
}

impl DirSync {
    fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|e| e.into_inner())
    }

    /// Join the open batch and return its outcome, running `fsync` for it if no fsync is
    /// running when it is this caller's turn.
    fn sync(&self, fsync: impl FnOnce() -> io::Result<()>) -> io::Result<()> {
        let mut fsync = Some(fsync);
        let mut state = self.lock();
        let mine = Arc::clone(&state.open);
        loop {
            if let Some(outcome) = mine.outcome.get() {
                return outcome.clone().map_err(|failure| failure.to_error());
            }
            // A batch is closed only by the caller that runs its fsync, which answers it before
            // clearing `syncing`: unanswered with no fsync running means `mine` is still open.
            if !state.syncing
                && let Some(fsync) = fsync.take()
            {
                state.syncing = true;
                let batch = std::mem::take(&mut state.open);
                drop(state);
                let outcome = fsync().map_err(|e| SyncFailure::of(&e));
                let _ = batch.outcome.set(outcome);
                state = self.lock();
                state.syncing = false;
                self.answered.notify_all();
                continue;
            }
            state = self.answered.wait(state).unwrap_or_else(|e| e.into_inner());
        }
    }

    /// How many callers wait in the open batch.
    #[cfg(test)]
    fn waiting(&self) -> usize {
        Arc::strong_count(&self.lock().open) - 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicUsize, Ordering};
    use std::sync::mpsc;

    /// Wait until `n` callers have joined the open batch (they block there: no sleep needed).
    fn until_waiting(group: &DirSync, n: usize) {
        while group.waiting() < n {
            std::thread::yield_now();
        }
    }

    #[test]
    fn callers_arriving_during_an_fsync_share_the_next_one() {
        let group = Arc::new(DirSync::default());
        let fsyncs = Arc::new(AtomicUsize::new(0));
        let (started, first_started) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let first = {
            let (group, fsyncs) = (Arc::clone(&group), Arc::clone(&fsyncs));
            std::thread::spawn(move || {
                group.sync(|| {
                    fsyncs.fetch_add(1, Ordering::SeqCst);
                    started.send(()).unwrap();
                    released.recv().unwrap();
                    Ok(())
                })
            })
        };
        first_started.recv().unwrap();
        // Eight callers arrive while the first fsync runs: it began before them, so it must
        // not answer them; one more fsync must, for all eight.
        let later: Vec<_> = (0..8)
            .map(|_| {
                let (group, fsyncs) = (Arc::clone(&group), Arc::clone(&fsyncs));
                std::thread::spawn(move || {
                    group.sync(|| {
                        fsyncs.fetch_add(1, Ordering::SeqCst);
                        Ok(())
                    })?;
                    Ok::<_, io::Error>(fsyncs.load(Ordering::SeqCst))
                })
            })
            .collect();
        until_waiting(&group, 8);
        release.send(()).unwrap();
        first.join().unwrap().unwrap();
        for caller in later {
            let fsyncs_seen = caller.join().unwrap().unwrap();
            assert_eq!(
                fsyncs_seen, 2,
                "answered only by an fsync that began after it"
            );
        }
        assert_eq!(fsyncs.load(Ordering::SeqCst), 2);
    }

    #[test]
    fn a_failed_fsync_fails_its_whole_batch_and_only_it() {
        let group = Arc::new(DirSync::default());
        let (started, first_started) = mpsc::channel();
        let (release, released) = mpsc::channel::<()>();
        let first = {
            let group = Arc::clone(&group);
            std::thread::spawn(move || {
                group.sync(|| {
                    started.send(()).unwrap();
                    released.recv().unwrap();
                    Ok(())
                })
            })
        };
        first_started.recv().unwrap();
        let batch: Vec<_> = (0..4)
            .map(|_| {
                let group = Arc::clone(&group);
                std::thread::spawn(move || {
                    group.sync(|| Err(io::Error::from_raw_os_error(libc::ENOSPC)))
                })
            })
            .collect();
        until_waiting(&group, 4);
        release.send(()).unwrap();
        first.join().unwrap().unwrap();
        for caller in batch {
            let error = caller.join().unwrap().unwrap_err();
            assert_eq!(error.raw_os_error(), Some(libc::ENOSPC));
        }
        group.sync(|| Ok(())).unwrap();
    }

    #[test]
    fn a_lone_caller_syncs_the_real_folder() {
        let dir = tempfile::tempdir().unwrap();
        sync_dir(dir.path()).unwrap();
        let missing = dir.path().join("missing");
        assert_eq!(
            sync_dir(&missing).unwrap_err().kind(),
            io::ErrorKind::NotFound
        );
    }
}
