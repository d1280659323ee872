//! A new version of a published message under its own name (a line added to its history, a
//! status set), swapped in by one exchange of names: rewriters of one message take turns by a
//! lock on the file they read, and where the file system cannot exchange names the rewrite is
//! a move of the message onto its own name.

use std::collections::HashSet;
use std::fs::File;
use std::io::ErrorKind;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::{LazyLock, Mutex};

use super::moves::{Destination, Moved, move_message, put_back, recovered_name};
use super::read::{open_message, read_open, refuse_link};
use super::staging::{STAGED, Staged, mailbox_of_tmp, names_file, op_id};
use crate::error::{Error, IoContext, Result};
use crate::fs::beneath::{self, Place};
use crate::fs::durable_names::sync_dir;
use crate::store::journal::{Kind, changing};

/// The outcome of [`rewrite_in_place`].
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Rewritten {
    Done,
    /// The message moved on (or was replaced) before the new version was in: nothing written.
    Gone,
    /// The rewrite returned the bytes it was given: nothing to write.
    Unchanged,
}

impl From<Moved> for Rewritten {
    fn from(moved: Moved) -> Rewritten {
        match moved {
            Moved::Done => Rewritten::Done,
            Moved::Gone => Rewritten::Gone,
        }
    }
}

/// Replace a published message with a new version of itself under the same name (a line added
/// to its history, a status set): the file is never lost, never duplicated, never
/// half-written, and a concurrent move either takes it before (this returns `Gone`) or takes
/// the new version. The new version is staged and fsynced, then swapped with the current one
/// in one step (`renameat2(RENAME_EXCHANGE)`); rewriters of one message take turns by a lock on
/// the file they read, and a version someone replaced meanwhile without taking a turn (a
/// travelled copy delivered again) is swapped back: `Gone`. A rewrite that returns the bytes
/// it was given writes nothing: `Unchanged`. Two fsyncs (the new file, the folder), where a
/// move takes three to seven. On a file system that cannot exchange names, the rewrite is a
/// move of the message onto its own name.
pub(crate) fn rewrite_in_place(
    tmp: &Path,
    path: &Path,
    rewrite: impl Fn(&[u8]) -> Result<Vec<u8>>,
) -> Result<Rewritten> {
    if let Some(rewritten) = exchange_in_place(tmp, path, &rewrite)? {
        return Ok(rewritten);
    }
    let (Some(dir), Some(name)) = (path.parent(), path.file_name()) else {
        return Err(Error::Malformed {
            path: path.to_owned(),
            reason: "not a file in a folder".into(),
        });
    };
    let destination = Destination {
        tmp: tmp.to_owned(),
        dir: dir.to_owned(),
        name: name.to_string_lossy().into_owned(),
    };
    move_message(tmp, path, &[destination], |bytes| Ok(vec![rewrite(bytes)?])).map(Into::into)
}

/// [`rewrite_in_place`] by exchanging names; `None` when the file system cannot.
fn exchange_in_place(
    tmp: &Path,
    path: &Path,
    rewrite: &impl Fn(&[u8]) -> Result<Vec<u8>>,
) -> Result<Option<Rewritten>> {
    let Some(dir) = path.parent() else {
        return Ok(None);
    };
    let mailbox = mailbox_of_tmp(tmp);
    // The current version, locked: the rewriter before us is done with it.
    let Some(current) = take_turn(path)? else {
        return Ok(Some(Rewritten::Gone));
    };
    let before = read_open(&current, path)?;
    let bytes = rewrite(&before)?;
    if bytes == before {
        return Ok(Some(Rewritten::Unchanged));
    }
    let device = current.metadata().at(path)?.dev();
    if exchange_unsupported(device) {
        return Ok(None);
    }
    let staged = Staged::create(mailbox, tmp.join(format!("{}.{STAGED}", op_id())), &bytes)?;
    let (ours, published) = (Place::new(mailbox, &staged.path), Place::new(mailbox, path));
    let swap = || changing(path, Kind::Rewritten, || beneath::exchange(ours, published));
    if let Err(e) = swap() {
        let _ = beneath::remove(ours);
        return match e.raw_os_error() {
            Some(libc::ENOENT) => Ok(Some(Rewritten::Gone)),
            Some(libc::EINVAL | libc::ENOSYS | libc::EOPNOTSUPP) => {
                exchange_unsupported_on(device);
                Ok(None)
            }
            _ => Err(refuse_link(path, e)),
        };
    }
    // `ours` now names the version we displaced.
    if !names_file(&staged.path, &current) {
        // Replaced between our read and our swap by a writer that takes no turn (another
        // tool): that version goes back. Should the name be gone meanwhile (a move took our
        // version), it is kept beside it rather than lost.
        match swap() {
            Ok(()) => {
                let _ = beneath::remove(ours);
            }
            Err(_) => {
                let _ = put_back(&staged.path, &recovered_name(path, &staged.path));
            }
        }
        return Ok(Some(Rewritten::Gone));
    }
    let _ = beneath::remove(ours);
    sync_dir(dir)?;
    Ok(Some(Rewritten::Done))
}

/// The devices whose file system refused to exchange names, learnt once per process, so a
/// rewrite there stages its file once, for the move.
static NO_EXCHANGE: LazyLock<Mutex<HashSet<u64>>> = LazyLock::new(Default::default);

fn exchange_unsupported(device: u64) -> bool {
    NO_EXCHANGE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .contains(&device)
}

pub(super) fn exchange_unsupported_on(device: u64) {
    NO_EXCHANGE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(device);
}

/// The file at `path`, opened and locked: a writer's turn to replace it (rewriters of one
/// message take turns by this lock). Once locked, the name must still hold it (the writer
/// before may have replaced it meanwhile: then its new file is taken in turn). `None` when
/// nothing is at the name.
pub(super) fn take_turn(path: &Path) -> Result<Option<File>> {
    loop {
        let file = match open_message(Place::file(path)) {
            Ok(file) => file,
            Err(Error::Io { source, .. }) if source.kind() == ErrorKind::NotFound => {
                return Ok(None);
            }
            Err(e) => return Err(e),
        };
        file.lock().at(path)?;
        if names_file(path, &file) {
            return Ok(Some(file));
        }
    }
}
