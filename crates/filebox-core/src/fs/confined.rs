//! A file another program keeps (a host's config file), read and replaced beneath a folder the
//! caller trusts: never through a symlink, and only when it is a regular file of bounded size.
//!
//! `filebox setup` edits files in a checkout someone else wrote. There a `.mcp.json` linked to
//! `~/.docker/config.json` would be copied into the project, a `.claude` linked elsewhere would
//! take the write out of it, a backup name linked to `~/.bashrc` would be overwritten, a FIFO
//! would hang the read and a link to `/dev/zero` would fill the memory. So every folder below
//! the root is opened without following a link ([`crate::fs::beneath`]); the file is looked at
//! (`fstatat` without following) before it is opened, so a FIFO or a device is never opened at
//! all, and it is read with a bound. A replacement is a new file, created exclusively in the
//! folder opened so, flushed, then renamed over the name: a name swapped for a link after the
//! look is replaced, never written through.
//!
//! The root itself is opened as given: it is the caller's to trust (the project, a host's own
//! folder in the home).

use std::ffi::{OsStr, OsString};
use std::fs::File;
use std::io::{self, Read, Write};
use std::os::fd::OwnedFd;
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};

use rustix::fs::{
    AtFlags, FileType, Mode, OFlags, fchmod, fsync, mkdirat, openat, renameat, statat,
};
use rustix::io::Errno;

use crate::fs::beneath;

/// A file at `path`, which lies under `root`, reached from `root` without following a link.
#[derive(Debug, Clone)]
pub struct ConfinedFile {
    root: PathBuf,
    path: PathBuf,
}

/// What a confined file holds.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Contents {
    pub bytes: Vec<u8>,
    /// The permission bits (`0o644`, ...), to give a replacement or a backup.
    pub mode: u32,
}

/// Why a confined file was not read or replaced. Each names the path concerned.
#[derive(Debug, thiserror::Error)]
pub enum Refused {
    /// A symlink at the file's name or at a folder on the way to it.
    #[error(
        "{} is a symbolic link, which is not followed: replace it with a copy of what it points to (or remove it) and run again",
        path.display()
    )]
    Link { path: PathBuf },
    /// A FIFO, a device, a socket or a folder where a file is wanted.
    #[error(
        "{} is {kind}: only a regular file is read or replaced; remove it and run again",
        path.display()
    )]
    NotRegular { path: PathBuf, kind: Kind },
    /// A file (or anything else) where a folder on the way is wanted.
    #[error(
        "{} is not a folder, but the way to {}: remove it and run again",
        path.display(),
        file.display()
    )]
    NotFolder { path: PathBuf, file: PathBuf },
    /// A regular file larger than the caller's bound: `size` bytes as it was seen (or as
    /// many as were read before the bound stopped the read of a file growing meanwhile).
    #[error(
        "{} is larger than {limit} bytes, more than this file ever needs: it was not read",
        path.display()
    )]
    TooLarge {
        path: PathBuf,
        size: u64,
        limit: u64,
    },
    #[error("{}: {source}", path.display())]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

/// What is at a name where a regular file is wanted (a link is [`Refused::Link`]).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    Fifo,
    CharacterDevice,
    BlockDevice,
    Socket,
    Folder,
    Unknown,
}

impl Kind {
    /// What a file of type `file_type` is, `None` for a regular file or a link.
    fn of(file_type: FileType) -> Option<Kind> {
        match file_type {
            FileType::RegularFile | FileType::Symlink => None,
            FileType::Fifo => Some(Kind::Fifo),
            FileType::CharacterDevice => Some(Kind::CharacterDevice),
            FileType::BlockDevice => Some(Kind::BlockDevice),
            FileType::Socket => Some(Kind::Socket),
            FileType::Directory => Some(Kind::Folder),
            FileType::Unknown => Some(Kind::Unknown),
        }
    }
}

impl std::fmt::Display for Kind {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            Kind::Fifo => "a FIFO (a named pipe)",
            Kind::CharacterDevice => "a character device",
            Kind::BlockDevice => "a block device",
            Kind::Socket => "a socket",
            Kind::Folder => "a folder",
            Kind::Unknown => "of an unknown kind",
        })
    }
}

/// Which missing folders on the way to a new file may be created.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum NewFolders {
    /// Every folder below the root.
    All,
    /// Only the file's own folder: the one holding it must be there (`NotFound` otherwise),
    /// for a file whose place is gone when its owner removed it and must not come back.
    Last,
}

/// A new version of a confined file, flushed beside its name ([`ConfinedFile::stage`]).
#[derive(Debug)]
pub struct Staged {
    /// The folder opened beneath the root (`None` once published).
    folder: Option<OwnedFd>,
    temp: OsString,
    name: OsString,
    path: PathBuf,
}

impl Staged {
    /// Rename it over the name, in the folder opened when it was staged: a folder swapped
    /// for a link since changes nothing. The folder is flushed by [`Published::sync`].
    pub fn publish(mut self) -> Result<Published, Refused> {
        let folder = self.folder.take().expect("a staged file is published once");
        match renameat(&folder, &self.temp, &folder, &self.name) {
            Ok(()) => Ok(Published {
                folder,
                path: self.path.clone(),
            }),
            Err(e) => {
                let _ = rustix::fs::unlinkat(&folder, &self.temp, AtFlags::empty());
                Err(Refused::Io {
                    path: self.path.clone(),
                    source: e.into(),
                })
            }
        }
    }
}

impl Drop for Staged {
    fn drop(&mut self) {
        if let Some(folder) = &self.folder {
            let _ = rustix::fs::unlinkat(folder, &self.temp, AtFlags::empty());
        }
    }
}

/// A staged file now at its name, its folder not yet flushed.
#[derive(Debug)]
pub struct Published {
    folder: OwnedFd,
    path: PathBuf,
}

impl Published {
    /// Flush the folder, so the rename survives a crash.
    pub fn sync(self) -> Result<(), Refused> {
        fsync(&self.folder).map_err(|e| Refused::Io {
            path: self.path,
            source: e.into(),
        })
    }
}

impl ConfinedFile {
    pub fn new(root: impl Into<PathBuf>, path: impl Into<PathBuf>) -> ConfinedFile {
        ConfinedFile {
            root: root.into(),
            path: path.into(),
        }
    }

    /// Another file beneath the same root.
    pub fn with_path(&self, path: impl Into<PathBuf>) -> ConfinedFile {
        ConfinedFile::new(self.root.clone(), path)
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The file's bytes and permissions, at most `limit` bytes; `None` when neither it nor a
    /// folder on the way exists.
    pub fn read(&self, limit: u64) -> Result<Option<Contents>, Refused> {
        let Some((folder, name)) = self.folder()? else {
            return Ok(None);
        };
        let Some(seen) = self.look(&folder, name)? else {
            return Ok(None);
        };
        let too_large = |size| Refused::TooLarge {
            path: self.path.clone(),
            size,
            limit,
        };
        if seen > limit {
            return Err(too_large(seen));
        }
        let flags = OFlags::RDONLY | OFlags::NONBLOCK | OFlags::NOFOLLOW | OFlags::CLOEXEC;
        let file = File::from(openat(&folder, name, flags, Mode::empty()).map_err(|e| self.at(e))?);
        // Looked at again through the descriptor: the name may have changed since.
        let meta = file.metadata().map_err(|e| self.io(e))?;
        if let Some(kind) = Kind::of(FileType::from_raw_mode(meta.mode())) {
            return Err(self.not_regular(kind));
        }
        let mut bytes = Vec::new();
        // Bounded even if the file grows while it is read.
        (&file)
            .take(limit + 1)
            .read_to_end(&mut bytes)
            .map_err(|e| self.io(e))?;
        if bytes.len() as u64 > limit {
            return Err(too_large(bytes.len() as u64));
        }
        let mode = meta.permissions().mode() & 0o7777;
        Ok(Some(Contents { bytes, mode }))
    }

    /// Whether a regular file is at the name (`false`: nothing is); a link or anything else
    /// there, or on the way, is refused. For a name about to be replaced.
    pub fn replaceable(&self) -> Result<bool, Refused> {
        match self.folder()? {
            None => Ok(false),
            Some((folder, name)) => Ok(self.look(&folder, name)?.is_some()),
        }
    }

    /// Put `bytes` at the name, with permissions `mode` (none: the default under the umask):
    /// the missing folders created beneath the root (owner-only), the new file created
    /// exclusively beside the name, flushed and renamed over it. A link or anything but a
    /// regular file at the name, or on the way, is refused and nothing is written.
    pub fn replace(&self, bytes: &[u8], mode: Option<u32>) -> Result<(), Refused> {
        self.create_folders(NewFolders::All)?;
        self.stage(bytes, mode)?.publish()?.sync()
    }

    /// Create the file with `bytes` unless something is at its name (`false`: it was there),
    /// exclusively (`O_EXCL`: never through a link), after creating the missing folders on the
    /// way as `folders` allows. Not flushed: a file that may be lost in a crash (an empty
    /// inbox another program would make again).
    pub fn create_new(&self, bytes: &[u8], folders: NewFolders) -> Result<bool, Refused> {
        self.create_folders(folders)?;
        let Some((folder, name)) = self.folder()? else {
            return Err(self.io(io::ErrorKind::NotFound.into()));
        };
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW;
        match openat(
            &folder,
            name,
            flags | OFlags::CLOEXEC,
            Mode::from_raw_mode(0o666),
        ) {
            Ok(file) => File::from(file).write_all(bytes).map_err(|e| self.io(e))?,
            // Whatever is there is looked at by the next read, which refuses a link.
            Err(Errno::EXIST) => return Ok(false),
            Err(e) => return Err(self.at(e)),
        }
        Ok(true)
    }

    /// A new version of the file, with permissions `mode` (none: the default under the
    /// umask), created exclusively beside the name in its folder (which must exist) and
    /// flushed, to be put in place by [`Staged::publish`]; dropped unpublished, it is removed.
    /// For a writer that must publish within a short critical section (under another
    /// program's lock): everything slow is done here, before it.
    pub fn stage(&self, bytes: &[u8], mode: Option<u32>) -> Result<Staged, Refused> {
        let Some((folder, name)) = self.folder()? else {
            return Err(self.io(io::ErrorKind::NotFound.into()));
        };
        self.look(&folder, name)?;
        let name = name.to_owned();
        let (temp, file) = self.create_beside(&folder, &name, mode)?;
        let staged = Staged {
            folder: Some(folder),
            temp,
            name,
            path: self.path.clone(),
        };
        let mut file = File::from(file);
        let written = file.write_all(bytes).and_then(|()| {
            if let Some(mode) = mode {
                // The umask narrowed the mode at creation; the old file's is kept exactly.
                fchmod(&file, Mode::from_raw_mode(mode))?;
            }
            file.sync_all()
        });
        written.map_err(|e| self.io(e))?;
        Ok(staged)
    }

    /// Create the missing folders on the way to the file, owner-only, never through a link.
    fn create_folders(&self, folders: NewFolders) -> Result<(), Refused> {
        let parent = self.path.parent().unwrap_or(&self.root);
        match folders {
            NewFolders::All => beneath::create_dir(&self.root, parent),
            NewFolders::Last => {
                let (Some(above), Some(last)) = (parent.parent(), parent.file_name()) else {
                    return Err(self.io(io::ErrorKind::InvalidInput.into()));
                };
                let flags = OFlags::DIRECTORY | OFlags::RDONLY;
                beneath::open(&self.root, above, flags, 0).and_then(|above| {
                    match mkdirat(&above, last, Mode::from_raw_mode(0o700)) {
                        Ok(()) | Err(Errno::EXIST) => Ok(()),
                        Err(e) => Err(e.into()),
                    }
                })
            }
        }
        .map_err(|e| self.on_the_way(e))
    }

    /// A new file beside the name, created exclusively (`O_EXCL`: never an existing name,
    /// never through a link), and its name.
    fn create_beside(
        &self,
        folder: &OwnedFd,
        name: &OsStr,
        mode: Option<u32>,
    ) -> Result<(OsString, OwnedFd), Refused> {
        let flags = OFlags::WRONLY | OFlags::CREATE | OFlags::EXCL | OFlags::NOFOLLOW;
        let mode = Mode::from_raw_mode(mode.unwrap_or(0o666));
        let mut last = Errno::EXIST;
        for attempt in 0..16 {
            let mut temp = name.to_owned();
            temp.push(format!(".filebox-tmp-{}-{attempt}", std::process::id()));
            match openat(folder, &temp, flags | OFlags::CLOEXEC, mode) {
                Ok(file) => return Ok((temp, file)),
                Err(Errno::EXIST) => last = Errno::EXIST,
                Err(e) => {
                    last = e;
                    break;
                }
            }
        }
        Err(self.io(last.into()))
    }

    /// The folder holding the file, opened beneath the root, and the file's name in it; `None`
    /// when the folder does not exist.
    fn folder(&self) -> Result<Option<(OwnedFd, &OsStr)>, Refused> {
        let (Some(parent), Some(name)) = (self.path.parent(), self.path.file_name()) else {
            return Err(self.io(io::ErrorKind::InvalidInput.into()));
        };
        match beneath::open(&self.root, parent, OFlags::DIRECTORY | OFlags::RDONLY, 0) {
            Ok(folder) => Ok(Some((folder.into(), name))),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Ok(None),
            Err(e) => Err(self.on_the_way(e)),
        }
    }

    /// The size of the regular file at `name` in `folder`, looked at without following a link
    /// (nor opening it); `None` when there is none.
    fn look(&self, folder: &OwnedFd, name: &OsStr) -> Result<Option<u64>, Refused> {
        let stat = match statat(folder, name, AtFlags::SYMLINK_NOFOLLOW) {
            Ok(stat) => stat,
            Err(Errno::NOENT) => return Ok(None),
            Err(e) => return Err(self.io(e.into())),
        };
        let file_type = FileType::from_raw_mode(stat.st_mode);
        if let Some(kind) = Kind::of(file_type) {
            return Err(self.not_regular(kind));
        }
        match file_type {
            FileType::Symlink => Err(Refused::Link {
                path: self.path.clone(),
            }),
            _ => Ok(Some(stat.st_size.try_into().unwrap_or(0))),
        }
    }

    /// The refusal for an error met on the way from the root: the first link (or non-folder)
    /// among the folders below the root is named.
    fn on_the_way(&self, error: io::Error) -> Refused {
        if !matches!(
            error.raw_os_error(),
            Some(libc::ELOOP | libc::ENOTDIR | libc::EXDEV)
        ) {
            return self.io(error);
        }
        let below = self.path.strip_prefix(&self.root).unwrap_or(&self.path);
        let mut path = self.root.clone();
        for component in below.parent().into_iter().flat_map(Path::components) {
            path.push(component);
            match std::fs::symlink_metadata(&path) {
                Ok(meta) if meta.file_type().is_symlink() => return Refused::Link { path },
                Ok(meta) if !meta.is_dir() => {
                    return Refused::NotFolder {
                        path,
                        file: self.path.clone(),
                    };
                }
                _ => {}
            }
        }
        self.io(error)
    }

    /// An error opening the file itself: a link swapped in after the look is named as one.
    fn at(&self, error: Errno) -> Refused {
        match error {
            Errno::LOOP => Refused::Link {
                path: self.path.clone(),
            },
            e => self.io(e.into()),
        }
    }

    fn not_regular(&self, kind: Kind) -> Refused {
        Refused::NotRegular {
            path: self.path.clone(),
            kind,
        }
    }

    fn io(&self, source: io::Error) -> Refused {
        Refused::Io {
            path: self.path.clone(),
            source,
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::fs;
    use std::os::unix::fs::symlink;

    const LIMIT: u64 = 1 << 20;

    fn project() -> (tempfile::TempDir, PathBuf, PathBuf) {
        let dir = tempfile::tempdir().unwrap();
        let project = dir.path().join("project");
        let outside = dir.path().join("outside");
        fs::create_dir_all(&project).unwrap();
        fs::create_dir_all(&outside).unwrap();
        fs::write(outside.join("secret"), b"secret").unwrap();
        (dir, project, outside)
    }

    #[test]
    fn a_regular_file_is_read_and_replaced_keeping_its_mode() {
        let (_dir, project, _outside) = project();
        let path = project.join("a/b.json");
        let file = ConfinedFile::new(&project, &path);
        assert_eq!(file.read(LIMIT).unwrap(), None);
        assert!(!file.replaceable().unwrap());
        file.replace(b"one", None).unwrap();
        fs::set_permissions(&path, fs::Permissions::from_mode(0o640)).unwrap();
        let read = file.read(LIMIT).unwrap().unwrap();
        assert_eq!((read.bytes.as_slice(), read.mode), (&b"one"[..], 0o640));
        file.replace(b"two", Some(read.mode)).unwrap();
        assert_eq!(fs::read(&path).unwrap(), b"two");
        let mode = fs::metadata(&path).unwrap().permissions().mode() & 0o7777;
        assert_eq!(mode, 0o640);
        assert_eq!(fs::read_dir(project.join("a")).unwrap().count(), 1);
    }

    #[test]
    fn links_at_the_name_or_on_the_way_are_refused_and_nothing_is_written() {
        let (_dir, project, outside) = project();
        symlink(outside.join("secret"), project.join("file")).unwrap();
        symlink(&outside, project.join("folder")).unwrap();
        for path in [project.join("file"), project.join("folder/new")] {
            let file = ConfinedFile::new(&project, &path);
            assert!(matches!(file.read(LIMIT), Err(Refused::Link { .. })));
            assert!(matches!(file.replaceable(), Err(Refused::Link { .. })));
            assert!(matches!(
                file.replace(b"x", None),
                Err(Refused::Link { .. })
            ));
        }
        let named = ConfinedFile::new(&project, project.join("folder/new")).read(LIMIT);
        assert!(
            matches!(named, Err(Refused::Link { path }) if path == project.join("folder")),
            "the link on the way is the one named"
        );
        assert_eq!(fs::read(outside.join("secret")).unwrap(), b"secret");
        assert_eq!(fs::read_dir(&outside).unwrap().count(), 1);
    }

    #[test]
    fn a_fifo_is_refused_without_being_opened_and_a_large_file_unread() {
        let (_dir, project, _outside) = project();
        let fifo = project.join("fifo");
        rustix::fs::mkfifoat(rustix::fs::CWD, &fifo, Mode::from_raw_mode(0o600)).unwrap();
        let refused = ConfinedFile::new(&project, &fifo).read(LIMIT);
        assert!(matches!(refused, Err(Refused::NotRegular { .. })));
        let large = project.join("large");
        fs::File::create(&large)
            .unwrap()
            .set_len(LIMIT + 1)
            .unwrap();
        let refused = ConfinedFile::new(&project, &large).read(LIMIT);
        assert!(matches!(refused, Err(Refused::TooLarge { .. })));
    }

    #[test]
    fn a_staged_file_is_gone_unless_published_and_create_new_makes_only_what_it_may() {
        let (_dir, project, outside) = project();
        let file = ConfinedFile::new(&project, project.join("team/inboxes/a.json"));
        let last = file.create_new(b"[]", NewFolders::Last);
        assert!(
            matches!(last, Err(Refused::Io { source, .. }) if source.kind() == io::ErrorKind::NotFound)
        );
        assert!(
            !project.join("team").exists(),
            "the folder above is not made"
        );
        assert!(file.create_new(b"[]", NewFolders::All).unwrap());
        assert!(
            !file.create_new(b"{}", NewFolders::Last).unwrap(),
            "it was there"
        );
        drop(file.stage(b"unpublished", None).unwrap());
        assert_eq!(
            fs::read_dir(project.join("team/inboxes")).unwrap().count(),
            1
        );
        file.stage(b"[1]", None)
            .unwrap()
            .publish()
            .unwrap()
            .sync()
            .unwrap();
        assert_eq!(fs::read(file.path()).unwrap(), b"[1]");
        assert_eq!(
            fs::read_dir(project.join("team/inboxes")).unwrap().count(),
            1
        );
        symlink(&outside, project.join("team/linked")).unwrap();
        let linked = file.with_path(project.join("team/linked/new/a.json"));
        let refused = linked.create_new(b"[]", NewFolders::Last);
        assert!(
            matches!(refused, Err(Refused::Link { path }) if path == project.join("team/linked"))
        );
        assert_eq!(
            fs::read_dir(&outside).unwrap().count(),
            1,
            "nothing made through it"
        );
    }
}
