//! Recovery of what killed processes left in a mailbox's `tmp/`: staged files of dead writers
//! removed, uncommitted moves rolled back, committed ones rolled forward, files a live process
//! holds left alone; and waiting for the moves live processes are making.

use std::ffi::OsStr;
use std::fs::{self};
use std::io::{ErrorKind, Read};
use std::path::Path;

use super::moves::{COMMIT, INTENT, Intent, roll_back, roll_forward};
use super::read::open_no_follow;
use super::staging::{STAGED, names_file};
use crate::error::{Error, IoContext, Result};
use crate::fs::beneath::{self, Place};
use crate::fs::durable_names::NameChanges;
use crate::store::checked_dirs::{DirSeen, RECOVERED};
use crate::store::held_here::is_held_here;

/// What [`recover`] did.
#[derive(Debug, Default, PartialEq, Eq)]
pub struct Recovery {
    /// Staged files of dead writers, removed.
    pub removed: usize,
    /// Uncommitted moves undone.
    pub rolled_back: usize,
    /// Committed moves completed.
    pub rolled_forward: usize,
}

/// Clean a mailbox's `tmp/` of what dead processes left. Files locked by a live process are
/// left alone. A `tmp/` this process found empty is not read again until its entries change
/// (`checked_dirs`): a send names nothing there ([`Linkable`]).
pub(crate) fn recover(tmp: &Path) -> Result<Recovery> {
    let mut report = Recovery::default();
    let seen = DirSeen::of(tmp);
    if RECOVERED.still(tmp, seen) {
        return Ok(report);
    }
    let entries = match fs::read_dir(tmp) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(report),
        Err(e) => return Err(Error::io(tmp, e)),
    };
    let mut empty = true;
    for entry in entries {
        empty = false;
        let Ok(entry) = entry else {
            continue;
        };
        let path = entry.path();
        let Some(ext) = path.extension().and_then(OsStr::to_str) else {
            continue;
        };
        // Claims and staged versions belong to an intent; they are handled through it. A file
        // this process is staging is a live writer's.
        if !matches!(ext, STAGED | INTENT | COMMIT) || is_held_here(&path) {
            continue;
        }
        let Ok(file) = open_no_follow(&path) else {
            continue;
        };
        if file.try_lock().is_err() {
            continue; // a live process holds it
        }
        // The name may have been given to a new file since we opened it (a writer whose first
        // staging file was removed starts again under the same name): act only on what we
        // locked.
        if !names_file(&path, &file) {
            continue;
        }
        match ext {
            STAGED => report.removed += 1,
            _ => {
                let mut bytes = Vec::new();
                let intent = (&file)
                    .read_to_end(&mut bytes)
                    .ok()
                    .and_then(|_| Intent::decode(&bytes));
                match (intent, ext) {
                    (Some(intent), INTENT) => {
                        if !roll_back(&intent) {
                            continue; // keep the record: try again next time
                        }
                        report.rolled_back += 1;
                    }
                    (Some(intent), _) => {
                        roll_forward(&intent, &mut NameChanges::under(tmp))?;
                        report.rolled_forward += 1;
                    }
                    (None, _) => report.removed += 1,
                }
            }
        }
        let _ = beneath::remove(Place::file(&path));
    }
    if empty {
        RECOVERED.passed(tmp, seen);
    }
    Ok(report)
}

/// Wait until the moves that live processes are making out of this `tmp/` are finished
/// (each holds the lock on its intent until done).
pub(crate) fn wait_for_moves(tmp: &Path) -> Result<()> {
    let entries = match fs::read_dir(tmp) {
        Ok(entries) => entries,
        Err(e) if e.kind() == ErrorKind::NotFound => return Ok(()),
        Err(e) => return Err(Error::io(tmp, e)),
    };
    for entry in entries.flatten() {
        let path = entry.path();
        if !matches!(
            path.extension().and_then(OsStr::to_str),
            Some(INTENT | COMMIT)
        ) {
            continue;
        }
        // Gone already: that move is over.
        let Ok(file) = open_no_follow(&path) else {
            continue;
        };
        file.lock().at(&path)?;
    }
    Ok(())
}
