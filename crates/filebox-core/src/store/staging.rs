//! Staging in a mailbox's `tmp/`: a file created exclusively, owner-only, written and fsynced
//! before any name points at it, and locked (`flock`) by the process writing it for as long as
//! it works, so the next process can tell a dead writer's leftovers (lock free) from a live
//! one's (locked). Also owner-only directories and files, whatever the umask.

use std::fs::{self, File, OpenOptions};
use std::io::{self, ErrorKind, Write};
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use rustix::fs::OFlags;

use super::read::refuse_link;
use crate::error::{Error, IoContext, Result};
use crate::fs::beneath::Place;
use crate::store::held_here::HeldHere;

/// The extension of a file being staged.
pub(super) const STAGED: &str = "part";

/// Create a directory (and missing parents) readable by the owner only: each directory this
/// creates is 0700 whatever the umask (which can only take bits away from the mode asked for).
pub(crate) fn create_private_dir(path: &Path) -> Result<()> {
    let missing: Vec<&Path> = path
        .ancestors()
        .take_while(|dir| !dir.as_os_str().is_empty() && fs::symlink_metadata(dir).is_err())
        .collect();
    fs::DirBuilder::new()
        .recursive(true)
        .mode(0o700)
        .create(path)
        .at(path)?;
    for dir in missing.into_iter().rev() {
        fs::set_permissions(dir, fs::Permissions::from_mode(0o700)).at(dir)?;
    }
    Ok(())
}

/// Make an open file owner-only (0600) whatever the umask the process was started with.
pub(crate) fn make_private(file: &File, path: &Path) -> Result<()> {
    file.set_permissions(fs::Permissions::from_mode(0o600))
        .at(path)
}

/// [`make_private`] for a file this process just created with mode 0600: only where the umask
/// took bits away from that mode (a system call a send saves under the usual umasks).
pub(super) fn make_new_private(file: &File, path: &Path) -> Result<()> {
    static UMASK_KEEPS_0600: LazyLock<bool> = LazyLock::new(|| {
        let status = fs::read_to_string("/proc/self/status").unwrap_or_default();
        let umask = status
            .lines()
            .find_map(|line| line.strip_prefix("Umask:"))
            .and_then(|octal| u32::from_str_radix(octal.trim(), 8).ok());
        umask.is_some_and(|umask| umask & 0o600 == 0)
    });
    match *UMASK_KEEPS_0600 {
        true => Ok(()),
        false => make_private(file, path),
    }
}

pub(super) fn op_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// The mailbox whose `tmp/` is `tmp`.
pub(super) fn mailbox_of_tmp(tmp: &Path) -> &Path {
    tmp.parent().unwrap_or(tmp)
}

/// A file being written in `tmp/`: created exclusively, owner-only, locked until dropped.
pub(super) struct Staged {
    pub(super) path: PathBuf,
    pub(super) file: File,
    /// Dropped after `file`: this process's recovery passes the file by while it is locked.
    /// A caller that keeps only `file` gives the registration back early; that is harmless
    /// for a move's staged versions (`.new`), which recovery reaches only through their
    /// intent, never by scanning.
    _held: HeldHere,
}

impl Staged {
    /// Stage `bytes` at `path`, resolved beneath the folder `mailbox`.
    pub(super) fn create(mailbox: &Path, path: PathBuf, bytes: &[u8]) -> Result<Staged> {
        let held = HeldHere::new(&path);
        let mut file = Staged::create_locked(Place::new(mailbox, &path))?;
        file.write_all(bytes).at(&path)?;
        // The data must be on disk before any name points at it.
        file.sync_all().at(&path)?;
        Ok(Staged {
            path,
            file,
            _held: held,
        })
    }

    /// Create `path` and lock it. Between the create and the lock, another process's
    /// [`recover`] can see the file unlocked, take it for a dead writer's and remove it; so
    /// after locking, check that the name still points at our file, and start again if not.
    fn create_locked(place: Place) -> Result<File> {
        let path = place.path;
        loop {
            let file = place
                .open(OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL, 0o600)
                .map_err(|e| refuse_link(path, e))?;
            make_new_private(&file, path)?;
            file.lock().at(path)?;
            if names_file(path, &file) {
                return Ok(file);
            }
            match fs::symlink_metadata(path) {
                Ok(_) => {
                    return Err(Error::io(
                        path,
                        io::Error::new(ErrorKind::AlreadyExists, "staging name taken"),
                    ));
                }
                Err(e) if e.kind() == ErrorKind::NotFound => continue,
                Err(e) => return Err(Error::io(path, e)),
            }
        }
    }
}

/// Whether two paths name one file, neither followed if a symlink.
pub(super) fn same_file(a: &Path, b: &Path) -> bool {
    same_inode(fs::symlink_metadata(a), fs::symlink_metadata(b))
}

/// Whether `path` still names the open `file`.
pub(super) fn names_file(path: &Path, file: &File) -> bool {
    same_inode(fs::symlink_metadata(path), file.metadata())
}

/// Whether both stats succeeded and are of one file (same device and inode).
fn same_inode(a: io::Result<fs::Metadata>, b: io::Result<fs::Metadata>) -> bool {
    matches!((a, b), (Ok(a), Ok(b)) if a.dev() == b.dev() && a.ino() == b.ino())
}

/// Create an empty owner-only file unless one exists: derived state (the index) that a library
/// opens would otherwise get the umask's permissions.
pub(crate) fn create_private_file(path: &Path) -> Result<()> {
    match OpenOptions::new()
        .write(true)
        .create_new(true)
        .mode(0o600)
        .open(path)
    {
        Ok(file) => make_new_private(&file, path),
        Err(e) if e.kind() == ErrorKind::AlreadyExists => Ok(()),
        Err(e) => Err(Error::io(path, e)),
    }
}
