//! Safe reads of mailbox files: never through a symlink at any component below the mailbox,
//! never hanging on a FIFO, never more than [`MAX_FILE_BYTES`]; and what a store error means
//! (a name taken, a file gone).

use std::fs::{self, File};
use std::io::{self, ErrorKind, Read};
use std::path::Path;

use rustix::fs::OFlags;

use crate::error::{Error, IoContext, Result};
use crate::fs::beneath::Place;

/// Open a file of `tmp/` (a record, a claim, a staged version) to lock it: never through a
/// symlink, never hanging on a FIFO.
pub(super) fn open_no_follow(path: &Path) -> io::Result<File> {
    Place::file(path).open(OFlags::RDONLY | OFlags::NONBLOCK, 0)
}

/// Open a file inside a mailbox for reading. A symlink at any component below the mailbox is
/// refused, not followed (it could point out of the mailbox); `O_NONBLOCK` keeps a FIFO
/// planted under a message's name from hanging us.
pub(super) fn open_message(place: Place) -> Result<File> {
    place
        .open(OFlags::RDONLY | OFlags::NONBLOCK, 0)
        .map_err(|e| refuse_link(place.path, e))
}

/// The error of an operation at `path` inside a mailbox: a symlink met on the way is named.
pub(crate) fn refuse_link(path: &Path, error: io::Error) -> Error {
    match error.raw_os_error() {
        Some(libc::ELOOP | libc::EXDEV | libc::ENOTDIR) => not_regular(path),
        _ => Error::io(path, error),
    }
}

fn not_regular(path: &Path) -> Error {
    Error::Malformed {
        path: path.to_owned(),
        reason: "not a regular file in the mailbox (symlinks inside a mailbox are not followed)"
            .into(),
    }
}

/// The largest message file read: far above any body limit a config sets in practice
/// (`max_body_bytes`, 10 MiB by default), and small enough that a huge file planted in a
/// folder (a 1 GB sparse file, a log) cannot exhaust memory or stall a listing or search.
pub(crate) const MAX_FILE_BYTES: u64 = 256 << 20;

/// Read a whole message file (`<mailbox>/<folder>/<name>`); one over [`MAX_FILE_BYTES`] is
/// refused as malformed.
pub(crate) fn read_regular(path: &Path) -> Result<Vec<u8>> {
    read_regular_in(Place::file(path))
}

/// [`read_regular`] of any file inside a mailbox.
pub(crate) fn read_regular_in(place: Place) -> Result<Vec<u8>> {
    read_open(&open_message(place)?, place.path)
}

/// Read the whole message file `file`, open at `path`. Not a twin of
/// [`crate::fs::confined::ConfinedFile::read`], which reads a name (looked at, then opened) with
/// a caller's `Refused`: this reads a handle already held (locked by `take_turn` for a
/// rewrite) with the store's errors, which a listing reports as a malformed file.
pub(super) fn read_open(mut file: &File, path: &Path) -> Result<Vec<u8>> {
    let meta = file.metadata().at(path)?;
    if !meta.file_type().is_file() {
        return Err(not_regular(path));
    }
    let too_large = || Error::Malformed {
        path: path.to_owned(),
        reason: format!(
            "the file is larger than {} MiB, which no message is",
            MAX_FILE_BYTES >> 20
        ),
    };
    if meta.len() > MAX_FILE_BYTES {
        return Err(too_large());
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // Bounded even if the file grows while it is read.
    (&mut file)
        .take(MAX_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .at(path)?;
    if bytes.len() as u64 > MAX_FILE_BYTES {
        return Err(too_large());
    }
    Ok(bytes)
}

/// Read at most `limit` bytes from the start of a message file into `buffer`; `true` if that
/// was all of it. One `read`: listings call this for every file, so it costs open, read, close
/// and no more. (A short read of a regular file means its end; a file of `limit` bytes or more
/// is reported incomplete and the caller reads it whole if it needs to.)
pub(crate) fn read_prefix(path: &Path, limit: usize, buffer: &mut Vec<u8>) -> Result<bool> {
    let mut file = open_message(Place::file(path))?;
    buffer.resize(limit, 0);
    let n = loop {
        match file.read(buffer) {
            Ok(n) => break n,
            Err(e) if e.kind() == ErrorKind::Interrupted => continue,
            Err(e) if e.raw_os_error() == Some(libc::EISDIR) => return Err(not_regular(path)),
            Err(e) => return Err(Error::io(path, e)),
        }
    };
    buffer.truncate(n);
    Ok(n < limit)
}

/// When a file was last written (every store write is a new file, so: when it was published),
/// without following a symlink; `None` when it cannot be known (gone, unreadable).
pub(crate) fn modified(path: &Path) -> Option<std::time::SystemTime> {
    fs::symlink_metadata(path).and_then(|m| m.modified()).ok()
}

/// Whether an I/O error means "that name is taken" (a publication that never replaces).
pub(crate) fn already_exists(error: &Error) -> bool {
    matches!(error, Error::Io { source, .. } if source.kind() == io::ErrorKind::AlreadyExists)
}

/// Whether an I/O error means "the file is not there (any more)".
pub(crate) fn is_not_found(error: &Error) -> bool {
    matches!(error, Error::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
}
