//! Publishing a file under its final name: a new one (`link(2)`, which never replaces), a new
//! version replacing an older one (`rename(2)`), one message under one name in several folders
//! (a send's copies, one staged file linked into each), and small files written atomically
//! beside their final path (the config).

use std::collections::BTreeSet;
use std::fs::File;
use std::io::{self, ErrorKind, Write};
use std::path::{Path, PathBuf};
use std::sync::LazyLock;

use rustix::fs::OFlags;

use super::read::refuse_link;
use super::rewrite::take_turn;
use super::staging::{STAGED, Staged, create_private_dir, mailbox_of_tmp, make_new_private, op_id};
use crate::error::{IoContext, Result};
use crate::fs::beneath::{self, Place};
use crate::fs::durable_names::{NameChanges, sync_dir};
use crate::store::journal::{Kind, changing};

/// A file's bytes written and fsynced, to be published under new names by `link(2)`, which
/// never replaces (unlike `rename(2)`). Where the file system makes unnamed files (`O_TMPFILE`)
/// and `/proc` is there to link one, the file never has a name in `tmp/`: nothing to create
/// and remove there (sends to one mailbox contended for its `tmp/`), nothing for a recovery to
/// find after a crash (the file system frees an unnamed file), so `tmp/` stays untouched and
/// its recovery is skipped (`checked_dirs`). Elsewhere it is a [`Staged`] file in `tmp/`,
/// whose name goes when this is dropped.
pub(super) enum Linkable {
    Unnamed(File),
    Named { mailbox: PathBuf, staged: Staged },
}

impl Linkable {
    /// Write `bytes` in the mailbox folder `tmp`, durable before any name points at them.
    pub(super) fn stage(tmp: &Path, bytes: &[u8]) -> Result<Linkable> {
        let mailbox = mailbox_of_tmp(tmp);
        if let Some(file) = Linkable::unnamed(mailbox, tmp, bytes)? {
            return Ok(Linkable::Unnamed(file));
        }
        Linkable::named(tmp, bytes)
    }

    /// A [`Staged`] file in the mailbox folder `tmp` holding `bytes`.
    fn named(tmp: &Path, bytes: &[u8]) -> Result<Linkable> {
        let mailbox = mailbox_of_tmp(tmp);
        let path = tmp.join(format!("{}.{STAGED}", op_id()));
        Ok(Linkable::Named {
            mailbox: mailbox.to_owned(),
            staged: Staged::create(mailbox, path, bytes)?,
        })
    }

    /// Publish the file as `dest` (`to`), recorded in its folder's journal. A file without a
    /// name whose link is refused for another reason than the name being taken or another
    /// file system (a security policy or a sandbox that forbids linking through `/proc`) is
    /// written again with a name in `tmp` (`bytes`), which the next folders link too.
    pub(super) fn publish(
        &mut self,
        tmp: &Path,
        bytes: &[u8],
        dest: &Path,
        to: Place,
    ) -> Result<io::Result<()>> {
        let linked = changing(dest, Kind::Added, || self.link(to));
        match linked {
            Err(e) if matches!(self, Linkable::Unnamed(_)) && !taken_or_elsewhere(&e) => {
                *self = Linkable::named(tmp, bytes)?;
                Ok(changing(dest, Kind::Added, || self.link(to)))
            }
            linked => Ok(linked),
        }
    }

    /// An unnamed file in `tmp` holding `bytes`, or `None` where there can be none.
    fn unnamed(mailbox: &Path, tmp: &Path, bytes: &[u8]) -> Result<Option<File>> {
        static PROC_FDS: LazyLock<bool> =
            LazyLock::new(|| Path::new("/proc/thread-self/fd").is_dir());
        if !*PROC_FDS {
            return Ok(None);
        }
        let mut file = match Place::new(mailbox, tmp).open(OFlags::WRONLY | OFlags::TMPFILE, 0o600)
        {
            Ok(file) => file,
            // No `O_TMPFILE` on this file system (or kernel).
            Err(e) if matches!(e.raw_os_error(), Some(libc::EOPNOTSUPP | libc::EISDIR)) => {
                return Ok(None);
            }
            Err(e) => return Err(refuse_link(tmp, e)),
        };
        make_new_private(&file, tmp)?;
        file.write_all(bytes).at(tmp)?;
        // The data must be on disk before any name points at it.
        file.sync_all().at(tmp)?;
        Ok(Some(file))
    }

    /// Give the file the name `to` (`AlreadyExists` if taken).
    pub(super) fn link(&self, to: Place) -> io::Result<()> {
        match self {
            Linkable::Unnamed(file) => beneath::link_unnamed(file, to),
            Linkable::Named { mailbox, staged } => {
                beneath::link(Place::new(mailbox, &staged.path), to)
            }
        }
    }
}

/// Whether a link failed because its name is taken or its folder is on another file system
/// (not because of what was linked).
fn taken_or_elsewhere(error: &io::Error) -> bool {
    error.kind() == ErrorKind::AlreadyExists || error.raw_os_error() == Some(libc::EXDEV)
}

impl Drop for Linkable {
    /// A staged name goes once the folders have their links (the file stays as theirs).
    fn drop(&mut self) {
        if let Linkable::Named { mailbox, staged } = self {
            let _ = beneath::remove(Place::new(mailbox, &staged.path));
        }
    }
}

/// Publish `bytes` as the new file `dir/name`. Never replaces: an existing name is
/// `ErrorKind::AlreadyExists`. Returns the published path.
pub(crate) fn publish_new(tmp: &Path, dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf> {
    let mailbox = mailbox_of_tmp(tmp);
    let dest = dir.join(name);
    let mut staged = Linkable::stage(tmp, bytes)?;
    let to = Place::new(mailbox, &dest);
    staged
        .publish(tmp, bytes, &dest, to)?
        .map_err(|e| refuse_link(&dest, e))?;
    drop(staged);
    sync_dir(dir)?;
    Ok(dest)
}

/// Publish `bytes` as `dir/name`, atomically replacing an older version of the same file.
pub(crate) fn publish_replace(tmp: &Path, dir: &Path, name: &str, bytes: &[u8]) -> Result<PathBuf> {
    let mut unsynced = Unsynced::default();
    let dest = publish_replace_unsynced(tmp, dir, name, bytes, &mut unsynced)?;
    unsynced.sync()?;
    Ok(dest)
}

/// Folders holding new names that are not durable yet: a batch of publications shares one
/// fsync per folder, run by [`Unsynced::sync`] before anything acknowledges them. Each file's
/// bytes are durable before its name is (a name never points at a half-written file); until
/// the folder's fsync, only the name can be lost, by a crash of the machine (not of the
/// process).
#[derive(Debug, Default)]
pub struct Unsynced(BTreeSet<PathBuf>);

impl Unsynced {
    /// fsync every folder recorded, once each: what was published before is durable.
    pub fn sync(&mut self) -> Result<()> {
        for dir in std::mem::take(&mut self.0) {
            sync_dir(&dir)?;
        }
        Ok(())
    }

    /// Take over the folders `other` holds unsynced.
    pub fn merge(&mut self, other: Unsynced) {
        self.0.extend(other.0);
    }
}

/// [`publish_replace`], with the folder's fsync left to `unsynced`.
pub(crate) fn publish_replace_unsynced(
    tmp: &Path,
    dir: &Path,
    name: &str,
    bytes: &[u8],
    unsynced: &mut Unsynced,
) -> Result<PathBuf> {
    let mailbox = mailbox_of_tmp(tmp);
    let dest = dir.join(name);
    let staged = Staged::create(mailbox, tmp.join(format!("{}.{STAGED}", op_id())), bytes)?;
    let (from, to) = (
        Place::new(mailbox, &staged.path),
        Place::new(mailbox, &dest),
    );
    // Replaced in turn with its rewriters (`rewrite_in_place`), so none of them undoes this.
    let _turn = take_turn(&dest)?;
    changing(&dest, Kind::Added, || beneath::rename(from, to))
        .map_err(|e| refuse_link(&dest, e))?;
    drop(staged.file);
    unsynced.0.insert(dir.to_owned());
    Ok(dest)
}

/// One message published under one name in several folders (a send: each recipient's inbox,
/// then the sender's outbox). Its bytes are staged and fsynced once, in the `tmp/` of the
/// first folder's mailbox, and each folder gets a link to that one file (files are never
/// modified in place, so sharing the inode is safe); a folder the link cannot reach (another
/// file system) gets a file of its own. The names become durable together, by
/// [`Copies::sync`], before anything acknowledges them ([`NameChanges`]).
pub(crate) struct Copies<'a> {
    name: &'a str,
    bytes: &'a [u8],
    /// The file every folder links, once the first folder is tried.
    pub(super) staged: Option<Linkable>,
    names: Option<NameChanges>,
}

impl<'a> Copies<'a> {
    pub(crate) fn new(name: &'a str, bytes: &'a [u8]) -> Copies<'a> {
        Copies {
            name,
            bytes,
            staged: None,
            names: None,
        }
    }

    /// Publish the message as the new file `dir/<name>` (`tmp` is the `tmp/` of `dir`'s
    /// mailbox). Never replaces: an existing name is `ErrorKind::AlreadyExists`.
    pub(crate) fn publish(&mut self, tmp: &Path, dir: &Path) -> Result<PathBuf> {
        let mailbox = mailbox_of_tmp(tmp);
        let dest = dir.join(self.name);
        let staged = match &mut self.staged {
            Some(staged) => staged,
            None => self.staged.insert(Linkable::stage(tmp, self.bytes)?),
        };
        let to = Place::new(mailbox, &dest);
        match staged.publish(tmp, self.bytes, &dest, to)? {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::AlreadyExists => return Err(refuse_link(&dest, e)),
            // Out of the link's reach: a file of its own, durable before this returns.
            Err(_) => return publish_new(tmp, dir, self.name, self.bytes),
        }
        self.names
            .get_or_insert_with(|| NameChanges::under(dir))
            .changed(dir)?;
        Ok(dest)
    }

    /// Make every copy published so far durable.
    pub(crate) fn sync(mut self) -> Result<()> {
        self.names.as_mut().map_or(Ok(()), NameChanges::sync)
    }
}

/// Write a small file (the config) atomically next to its final path.
pub(crate) fn write_file_atomic(path: &Path, bytes: &[u8]) -> Result<()> {
    let dir = path.parent().unwrap_or(Path::new("."));
    create_private_dir(dir)?;
    let name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let staged = Staged::create(
        dir,
        dir.join(format!(".{name}.{}.{STAGED}", op_id())),
        bytes,
    )?;
    beneath::rename(Place::new(dir, &staged.path), Place::new(dir, path)).at(path)?;
    sync_dir(dir)
}
