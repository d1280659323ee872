//! Paths inside a mailbox, resolved beneath it: no symlink is followed at any component below
//! the mailbox folder, and nothing resolves outside it.
//!
//! A link planted at `inbox`, `tmp`, `.filebox`, `attachments` or `attachments/<id>` would
//! otherwise take a read (an attachment served over HTTP, a message returned to a caller) or a
//! write (a staged file, an answer's attachment) out of the mailbox; `O_NOFOLLOW` guards only
//! the last component. Every open goes through `openat2(RESOLVE_BENEATH | RESOLVE_NO_SYMLINKS)`
//! from the anchor folder (Linux 5.6 and later); where the kernel or a seccomp filter refuses
//! `openat2`, the same walk is made one component at a time with `O_NOFOLLOW`. Links, renames
//! and removals are then made relative to the folder opened so (`linkat`, `renameat`,
//! `unlinkat`), so a folder swapped for a link between a check and a use changes nothing.
//!
//! The anchor itself (the mailbox folder, named by the config) is opened as given.

use std::ffi::OsStr;
use std::fs::File;
use std::io;
use std::os::fd::{AsRawFd, OwnedFd};
use std::path::{Component, Path};

use rustix::fs::{
    AtFlags, CWD, Mode, OFlags, RenameFlags, ResolveFlags, fchmod, linkat, mkdirat, openat,
    openat2, renameat, renameat_with, unlinkat,
};
use rustix::io::Errno;

/// A path inside a mailbox, with the mailbox folder it is resolved beneath.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Place<'a> {
    pub(crate) mailbox: &'a Path,
    pub(crate) path: &'a Path,
}

impl<'a> Place<'a> {
    pub(crate) fn new(mailbox: &'a Path, path: &'a Path) -> Place<'a> {
        Place { mailbox, path }
    }

    /// A file FileBox keeps at `<mailbox>/<folder>/<name>` (a message, a staged file in
    /// `tmp/`, a record in `.filebox/`): its mailbox is its grandparent.
    pub(crate) fn file(path: &'a Path) -> Place<'a> {
        let mailbox = path
            .parent()
            .and_then(Path::parent)
            .unwrap_or(Path::new("/"));
        Place { mailbox, path }
    }

    /// Open with `flags` (and `mode` when it creates); see [`open`].
    pub(crate) fn open(self, flags: OFlags, mode: u32) -> io::Result<File> {
        open(self.mailbox, self.path, flags, mode)
    }

    /// The folder holding the place, opened beneath its mailbox, and its name in that folder.
    fn folder(self) -> io::Result<(OwnedFd, &'a OsStr)> {
        let (Some(folder), Some(name)) = (self.path.parent(), self.path.file_name()) else {
            return Err(io::Error::new(
                io::ErrorKind::InvalidInput,
                "not a file in a folder",
            ));
        };
        let folder = open(self.mailbox, folder, OFlags::DIRECTORY | OFlags::RDONLY, 0)?;
        Ok((folder.into(), name))
    }
}

/// `link(2)`: give the file at `from` the new name `to`; an existing `to` is `AlreadyExists`.
pub(crate) fn link(from: Place, to: Place) -> io::Result<()> {
    let ((from_folder, from_name), (to_folder, to_name)) = (from.folder()?, to.folder()?);
    Ok(linkat(
        &from_folder,
        from_name,
        &to_folder,
        to_name,
        AtFlags::empty(),
    )?)
}

/// `link(2)` of an open file that has no name (made with `O_TMPFILE`), through its entry in
/// `/proc/thread-self/fd` (`linkat` of the descriptor itself needs a privilege): it gets the name
/// `to`; an existing `to` is `AlreadyExists`.
pub(crate) fn link_unnamed(file: &File, to: Place) -> io::Result<()> {
    let (to_folder, to_name) = to.folder()?;
    let source = format!("/proc/thread-self/fd/{}", file.as_raw_fd());
    Ok(linkat(
        CWD,
        source.as_str(),
        &to_folder,
        to_name,
        AtFlags::SYMLINK_FOLLOW,
    )?)
}

/// `rename(2)`: move the name `from` to `to`, replacing what `to` named.
pub(crate) fn rename(from: Place, to: Place) -> io::Result<()> {
    let ((from_folder, from_name), (to_folder, to_name)) = (from.folder()?, to.folder()?);
    Ok(renameat(&from_folder, from_name, &to_folder, to_name)?)
}

/// `renameat2(RENAME_EXCHANGE)`: the names `a` and `b` swap the files they name, in one step
/// (`EINVAL` where the file system cannot).
pub(crate) fn exchange(a: Place, b: Place) -> io::Result<()> {
    let ((a_folder, a_name), (b_folder, b_name)) = (a.folder()?, b.folder()?);
    Ok(renameat_with(
        &a_folder,
        a_name,
        &b_folder,
        b_name,
        RenameFlags::EXCHANGE,
    )?)
}

/// Move the name `from` to `to` unless `to` exists (`AlreadyExists`), so the file never has
/// two names: `renameat2(RENAME_NOREPLACE)`, or where the file system lacks it a link that the
/// caller's removal of `from` completes.
pub(crate) fn rename_no_replace(from: Place, to: Place) -> io::Result<()> {
    let ((from_folder, from_name), (to_folder, to_name)) = (from.folder()?, to.folder()?);
    match renameat_with(
        &from_folder,
        from_name,
        &to_folder,
        to_name,
        RenameFlags::NOREPLACE,
    ) {
        Err(Errno::INVAL | Errno::NOSYS) => Ok(linkat(
            &from_folder,
            from_name,
            &to_folder,
            to_name,
            AtFlags::empty(),
        )?),
        other => Ok(other?),
    }
}

/// `unlink(2)` of the name.
pub(crate) fn remove(place: Place) -> io::Result<()> {
    let (folder, name) = place.folder()?;
    Ok(unlinkat(&folder, name, AtFlags::empty())?)
}

/// Open `path`, which lies under `anchor`, with `flags` (and `mode` when it creates), resolved
/// beneath `anchor` without following any symlink. A symlink on the way is `ELOOP`.
pub(crate) fn open(anchor: &Path, path: &Path, flags: OFlags, mode: u32) -> io::Result<File> {
    let relative = relative(anchor, path)?;
    let flags = flags | OFlags::CLOEXEC | OFlags::NOFOLLOW;
    // openat2 refuses a mode without `O_CREAT` or `O_TMPFILE` (EINVAL).
    let mode = match flags.contains(OFlags::CREATE) || flags.contains(OFlags::TMPFILE) {
        true => Mode::from_raw_mode(mode),
        false => Mode::empty(),
    };
    let root = open_anchor(anchor)?;
    let resolve = ResolveFlags::BENEATH | ResolveFlags::NO_SYMLINKS | ResolveFlags::NO_MAGICLINKS;
    let fd = match openat2(&root, relative, flags, mode, resolve) {
        Err(Errno::NOSYS | Errno::PERM) => walk(root, relative, flags, mode),
        other => other,
    }?;
    Ok(File::from(fd))
}

/// Create the folder `path` and its missing parents below `anchor` (which must exist),
/// owner-only (0700 whatever the umask), never through a symlink; folders already there are
/// kept as they are.
pub(crate) fn create_dir(anchor: &Path, path: &Path) -> io::Result<()> {
    let mut folder = open_anchor(anchor)?;
    for component in components(relative(anchor, path)?)? {
        let created = match mkdirat(&folder, component, Mode::from_raw_mode(0o700)) {
            Ok(()) => true,
            Err(Errno::EXIST) => false,
            Err(e) => return Err(e.into()),
        };
        folder = openat(&folder, component, directory(), Mode::empty())?;
        if created {
            fchmod(&folder, Mode::from_raw_mode(0o700))?;
        }
    }
    Ok(())
}

fn directory() -> OFlags {
    OFlags::DIRECTORY | OFlags::RDONLY | OFlags::NOFOLLOW | OFlags::CLOEXEC
}

fn open_anchor(anchor: &Path) -> io::Result<OwnedFd> {
    Ok(rustix::fs::open(
        anchor,
        OFlags::DIRECTORY | OFlags::RDONLY | OFlags::CLOEXEC,
        Mode::empty(),
    )?)
}

/// `path` relative to `anchor`; the anchor itself is `.`.
fn relative<'a>(anchor: &Path, path: &'a Path) -> io::Result<&'a Path> {
    let relative = path.strip_prefix(anchor).map_err(|_| {
        io::Error::new(
            io::ErrorKind::InvalidInput,
            format!("{} is not inside {}", path.display(), anchor.display()),
        )
    })?;
    Ok(if relative.as_os_str().is_empty() {
        Path::new(".")
    } else {
        relative
    })
}

/// The plain names of a relative path; `..`, `.` or a root is refused (`EXDEV`, as
/// `RESOLVE_BENEATH` refuses an escape).
fn components(relative: &Path) -> io::Result<Vec<&OsStr>> {
    relative
        .components()
        .map(|component| match component {
            Component::Normal(name) => Ok(Some(name)),
            Component::CurDir => Ok(None),
            _ => Err(Errno::XDEV.into()),
        })
        .filter_map(Result::transpose)
        .collect()
}

/// [`open`] without `openat2`: one component at a time, each folder with `O_NOFOLLOW`.
fn walk(root: OwnedFd, relative: &Path, flags: OFlags, mode: Mode) -> rustix::io::Result<OwnedFd> {
    let names = components(relative).map_err(|_| Errno::XDEV)?;
    let Some((last, folders)) = names.split_last() else {
        return openat(&root, ".", flags, mode);
    };
    let mut folder = root;
    for name in folders {
        folder = openat(&folder, *name, directory(), Mode::empty())?;
    }
    openat(&folder, *last, flags, mode)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::io::Read;
    use std::os::unix::fs::symlink;

    fn mailbox_with_outside() -> (tempfile::TempDir, std::path::PathBuf, std::path::PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let mailbox = root.path().join("dev");
        let outside = root.path().join("outside");
        fs::create_dir_all(&mailbox).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret.md"), b"secret").unwrap();
        (root, mailbox, outside)
    }

    fn loops(result: io::Result<impl Sized>) -> bool {
        matches!(result, Err(e) if e.raw_os_error() == Some(libc::ELOOP))
    }

    #[test]
    fn a_linked_folder_is_never_read_through() {
        let (_root, mailbox, outside) = mailbox_with_outside();
        symlink(&outside, mailbox.join("inbox")).unwrap();
        let path = mailbox.join("inbox/secret.md");
        assert!(loops(open(&mailbox, &path, OFlags::RDONLY, 0)));
        let root = open_anchor(&mailbox).unwrap();
        let walked = walk(
            root,
            Path::new("inbox/secret.md"),
            OFlags::RDONLY,
            Mode::empty(),
        );
        // `O_DIRECTORY | O_NOFOLLOW` on a link to a folder is "not a folder".
        assert_eq!(walked.unwrap_err(), Errno::NOTDIR);
    }

    #[test]
    fn a_real_folder_reads_and_an_escape_is_refused() {
        let (_root, mailbox, _outside) = mailbox_with_outside();
        fs::create_dir(mailbox.join("inbox")).unwrap();
        fs::write(mailbox.join("inbox/a.md"), b"hello").unwrap();
        let mut text = String::new();
        open(&mailbox, &mailbox.join("inbox/a.md"), OFlags::RDONLY, 0)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        assert_eq!(text, "hello");
        let escape = mailbox.join("inbox/../../outside/secret.md");
        assert!(open(&mailbox, &escape, OFlags::RDONLY, 0).is_err());
        let root = open_anchor(&mailbox).unwrap();
        let walked = walk(
            root,
            Path::new("../outside/secret.md"),
            OFlags::RDONLY,
            Mode::empty(),
        );
        assert_eq!(walked.unwrap_err(), Errno::XDEV);
    }

    #[test]
    fn folders_are_created_but_never_through_a_link() {
        let (_root, mailbox, outside) = mailbox_with_outside();
        create_dir(&mailbox, &mailbox.join("attachments/m1")).unwrap();
        assert!(mailbox.join("attachments/m1").is_dir());
        symlink(&outside, mailbox.join("attachments/m2")).unwrap();
        assert!(create_dir(&mailbox, &mailbox.join("attachments/m2/deeper")).is_err());
        assert!(!outside.join("deeper").exists());
    }
}
