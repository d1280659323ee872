//! The only code that writes mailbox files: atomic publication, moves decided by one rename,
//! and recovery of what a killed process left in `tmp/`.
//!
//! Every file a process stages in `tmp/` is locked (`flock`) by that process while it works, so
//! the next process can tell a dead writer's leftovers (lock free) from a live one's (locked).
//!
//! A move (resolve, reply, ...) is a small two-phase commit inside `tmp/`:
//! 1. `{op}.intent` records where the message comes from and where its new versions go;
//! 2. the message is claimed by renaming it to `{op}.claim`: of two processes, exactly one
//!    rename succeeds, the other finds the file gone and reports "already handled";
//! 3. the new versions are staged as `{op}.{n}.new` in each destination mailbox's `tmp/`;
//! 4. renaming `{op}.intent` to `{op}.commit` is the commit point;
//! 5. the staged files are renamed into place, then the claim and the commit record removed.
//!
//! Recovery rolls an uncommitted move back (the claim returns to its folder) and a committed
//! one forward (the remaining staged files are published), so a message is never lost and
//! never left in two folders. A new version under the same name needs no claim: it is swapped
//! in by one exchange of names ([`rewrite_in_place`]).

use std::collections::{BTreeSet, HashSet};
use std::ffi::OsStr;
use std::fs::{self, File, OpenOptions};
use std::io::{self, ErrorKind, Read, Write};
use std::os::unix::ffi::OsStrExt;
use std::os::unix::fs::{DirBuilderExt, MetadataExt, OpenOptionsExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

use rustix::fs::OFlags;

use crate::fs::beneath::{self, Place};
use crate::store::checked_dirs::{DirSeen, RECOVERED};
use crate::fs::durable_names::{NameChanges, sync_dir};
use crate::error::{Error, IoContext, Result};
use crate::store::held_here::{HeldHere, is_held_here};
use crate::store::journal::{self, Kind};

const STAGED: &str = "part";
const INTENT: &str = "intent";
const COMMIT: &str = "commit";
const CLAIM: &str = "claim";
const NEW: &str = "new";

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
fn make_new_private(file: &File, path: &Path) -> Result<()> {
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

/// Make one change of a mailbox folder: `change` adds or removes the file `path`, recorded in
/// the folder's change journal (see `journal.rs`).
fn changing<T>(path: &Path, kind: Kind, change: impl FnOnce() -> io::Result<T>) -> io::Result<T> {
    match (path.parent(), path.file_name().and_then(OsStr::to_str)) {
        (Some(dir), Some(name)) => journal::record(dir, name, kind, change),
        _ => change(),
    }
}

fn op_id() -> String {
    uuid::Uuid::new_v4().simple().to_string()
}

/// The mailbox whose `tmp/` is `tmp`.
fn mailbox_of_tmp(tmp: &Path) -> &Path {
    tmp.parent().unwrap_or(tmp)
}

/// A file being written in `tmp/`: created exclusively, owner-only, locked until dropped.
struct Staged {
    path: PathBuf,
    file: File,
    /// Dropped after `file`: this process's recovery passes the file by while it is locked.
    /// A caller that keeps only `file` gives the registration back early; that is harmless
    /// for a move's staged versions (`.new`), which recovery reaches only through their
    /// intent, never by scanning.
    _held: HeldHere,
}

impl Staged {
    /// Stage `bytes` at `path`, resolved beneath the folder `mailbox`.
    fn create(mailbox: &Path, path: PathBuf, bytes: &[u8]) -> Result<Staged> {
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
fn same_file(a: &Path, b: &Path) -> bool {
    same_inode(fs::symlink_metadata(a), fs::symlink_metadata(b))
}

/// Whether `path` still names the open `file`.
fn names_file(path: &Path, file: &File) -> bool {
    same_inode(fs::symlink_metadata(path), file.metadata())
}

/// Whether both stats succeeded and are of one file (same device and inode).
fn same_inode(a: io::Result<fs::Metadata>, b: io::Result<fs::Metadata>) -> bool {
    matches!((a, b), (Ok(a), Ok(b)) if a.dev() == b.dev() && a.ino() == b.ino())
}

/// A file's bytes written and fsynced, to be published under new names by `link(2)`, which
/// never replaces (unlike `rename(2)`). Where the file system makes unnamed files (`O_TMPFILE`)
/// and `/proc` is there to link one, the file never has a name in `tmp/`: nothing to create
/// and remove there (sends to one mailbox contended for its `tmp/`), nothing for a recovery to
/// find after a crash (the file system frees an unnamed file), so `tmp/` stays untouched and
/// its recovery is skipped (`checked_dirs`). Elsewhere it is a [`Staged`] file in `tmp/`,
/// whose name goes when this is dropped.
enum Linkable {
    Unnamed(File),
    Named { mailbox: PathBuf, staged: Staged },
}

impl Linkable {
    /// Write `bytes` in the mailbox folder `tmp`, durable before any name points at them.
    fn stage(tmp: &Path, bytes: &[u8]) -> Result<Linkable> {
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
    fn publish(
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
    fn link(&self, to: Place) -> io::Result<()> {
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
    staged: Option<Linkable>,
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

/// Open a file of `tmp/` (a record, a claim, a staged version) to lock it: never through a
/// symlink, never hanging on a FIFO.
fn open_no_follow(path: &Path) -> io::Result<File> {
    Place::file(path).open(OFlags::RDONLY | OFlags::NONBLOCK, 0)
}

/// Open a file inside a mailbox for reading. A symlink at any component below the mailbox is
/// refused, not followed (it could point out of the mailbox); `O_NONBLOCK` keeps a FIFO
/// planted under a message's name from hanging us.
fn open_message(place: Place) -> Result<File> {
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
fn read_open(mut file: &File, path: &Path) -> Result<Vec<u8>> {
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

/// Where one new version of a moved message goes.
pub(crate) struct Destination {
    /// The destination mailbox's `tmp/` (staging must be on the destination's file system).
    pub(crate) tmp: PathBuf,
    /// The folder it is published into.
    pub(crate) dir: PathBuf,
    pub(crate) name: String,
}

/// What a move is about to do, as written to `{op}.intent`.
struct Intent {
    origin: PathBuf,
    claim: PathBuf,
    /// (staged file, final path) pairs.
    outputs: Vec<(PathBuf, PathBuf)>,
}

impl Intent {
    /// NUL-separated paths: a path can hold any byte but NUL.
    fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let paths = [&self.origin, &self.claim]
            .into_iter()
            .chain(self.outputs.iter().flat_map(|(s, d)| [s, d]));
        for path in paths {
            out.extend_from_slice(path.as_os_str().as_bytes());
            out.push(0);
        }
        out
    }

    fn decode(bytes: &[u8]) -> Option<Intent> {
        let mut parts = bytes
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(OsStr::from_bytes(p)));
        let origin = parts.next()?;
        let claim = parts.next()?;
        let rest: Vec<PathBuf> = parts.collect();
        if !rest.len().is_multiple_of(2) {
            return None;
        }
        let outputs = rest
            .chunks(2)
            .map(|c| (c[0].clone(), c[1].clone()))
            .collect();
        Some(Intent {
            origin,
            claim,
            outputs,
        })
    }
}

/// The outcome of [`move_message`].
pub(crate) enum Moved {
    Done,
    /// The origin was gone when claimed: another process got there first.
    Gone,
}

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

/// Move the message at `origin` to `destinations`, each receiving the bytes `rewrite`
/// returns for it (same order). `rewrite` gets the claimed file's bytes; if it fails, the
/// message goes back where it was and the error is returned.
pub(crate) fn move_message(
    tmp: &Path,
    origin: &Path,
    destinations: &[Destination],
    rewrite: impl FnOnce(&[u8]) -> Result<Vec<Vec<u8>>>,
) -> Result<Moved> {
    let op = op_id();
    let intent = Intent {
        origin: origin.to_owned(),
        claim: tmp.join(format!("{op}.{CLAIM}")),
        outputs: destinations
            .iter()
            .enumerate()
            .map(|(n, d)| (d.tmp.join(format!("{op}.{n}.{NEW}")), d.dir.join(&d.name)))
            .collect(),
    };
    // Each step's names must be on disk before the next step's: the intent before the claim,
    // the claim and the staged versions before the commit, the commit before the published
    // versions; the last folder's fsync makes the move durable (`durable_names.rs`).
    let mut names = NameChanges::under(tmp);
    // 1. Record the intent, locked for as long as this process works on it.
    let mailbox = mailbox_of_tmp(tmp);
    let staged = Staged::create(
        mailbox,
        tmp.join(format!("{op}.{STAGED}")),
        &intent.encode(),
    )?;
    let intent_path = tmp.join(format!("{op}.{INTENT}"));
    let intent_place = Place::new(mailbox, &intent_path);
    beneath::rename(Place::new(mailbox, &staged.path), intent_place).at(&intent_path)?;
    names.changed(tmp)?;
    let lock = staged.file;

    // 2. Claim: the one rename that decides which process handles the message.
    let claim = || beneath::rename(Place::file(origin), Place::new(mailbox, &intent.claim));
    match changing(origin, Kind::Removed, claim) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let _ = beneath::remove(intent_place);
            return Ok(Moved::Gone);
        }
        Err(e) => {
            let _ = beneath::remove(intent_place);
            return Err(refuse_link(origin, e));
        }
    }
    if let Some(dir) = origin.parent() {
        names.changed(dir)?;
    }

    // 3. Stage the new versions; on any failure, roll back.
    let staged = read_regular(&intent.claim)
        .and_then(|bytes| rewrite(&bytes))
        .and_then(|versions| stage_all(&intent, &versions, &mut names));
    let staged_files = match staged {
        Ok(files) => files,
        Err(e) => {
            // If the message could not be put back, the intent stays for the next recovery.
            if roll_back(&intent) {
                let _ = beneath::remove(intent_place);
            }
            return Err(e);
        }
    };

    // 4. Commit.
    let commit_path = tmp.join(format!("{op}.{COMMIT}"));
    let commit_place = Place::new(mailbox, &commit_path);
    beneath::rename(intent_place, commit_place).at(&commit_path)?;
    names.changed(tmp)?;

    // 5. Publish, then forget the claim.
    roll_forward(&intent, &mut names)?;
    drop(staged_files);
    let _ = beneath::remove(commit_place);
    drop(lock);
    Ok(Moved::Done)
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

fn exchange_unsupported_on(device: u64) {
    NO_EXCHANGE
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .insert(device);
}

/// The file at `path`, opened and locked: a writer's turn to replace it (rewriters of one
/// message take turns by this lock). Once locked, the name must still hold it (the writer
/// before may have replaced it meanwhile: then its new file is taken in turn). `None` when
/// nothing is at the name.
fn take_turn(path: &Path) -> Result<Option<File>> {
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

/// Stage each new version at its place in the intent. A version with the same bytes as one
/// staged before (a reply's copies) is a second link to that file: one file to fsync, not one
/// per destination.
fn stage_all(intent: &Intent, versions: &[Vec<u8>], names: &mut NameChanges) -> Result<Vec<File>> {
    let mut files = Vec::with_capacity(versions.len());
    for (n, ((path, _), bytes)) in intent.outputs.iter().zip(versions).enumerate() {
        let to = Place::file(path);
        let same = versions[..n].iter().position(|earlier| earlier == bytes);
        let linked = same.is_some_and(|earlier| {
            beneath::link(Place::file(&intent.outputs[earlier].0), to).is_ok()
        });
        if !linked {
            files.push(Staged::create(to.mailbox, path.clone(), bytes)?.file);
        }
        if let Some(dir) = path.parent() {
            names.changed(dir)?;
        }
    }
    Ok(files)
}

/// Undo an uncommitted move: the claimed file returns to its folder, staged files go.
/// Returns whether the message is back in a folder; if not (the disk refused), the claim and
/// its record stay for the next recovery to try again: nothing is deleted that is not safe.
fn roll_back(intent: &Intent) -> bool {
    for (staged, _) in &intent.outputs {
        let _ = beneath::remove(Place::file(staged));
    }
    if fs::symlink_metadata(&intent.claim).is_err() {
        return true;
    }
    let aside = recovered_name(&intent.origin, &intent.claim);
    // Never over another file: if the origin name was taken meanwhile, what is there stays, and
    // the claimed version is kept beside it under a name of its own. A name that already holds
    // the claimed file is the work of an earlier recovery killed halfway (where the claim had to
    // be linked, then unlinked): the message is back, and putting it anywhere else would show
    // it twice.
    let restored = if same_file(&intent.claim, &intent.origin) || same_file(&intent.claim, &aside) {
        Ok(())
    } else {
        match put_back(&intent.claim, &intent.origin) {
            Err(e) if e.kind() == ErrorKind::AlreadyExists => put_back(&intent.claim, &aside),
            other => other,
        }
    };
    if restored.is_err() {
        return false;
    }
    let _ = beneath::remove(Place::file(&intent.claim));
    if let Some(dir) = intent.origin.parent() {
        let _ = sync_dir(dir);
    }
    true
}

/// Give the claimed file the name `to` unless that name exists (`ErrorKind::AlreadyExists`).
/// One `renameat2(RENAME_NOREPLACE)` where the file system has it, so the message never has
/// two names (a claim left beside a restored message could be restored again after a mover
/// took the message on); elsewhere a link, which the caller's unlink of the claim completes.
fn put_back(claim: &Path, to: &Path) -> io::Result<()> {
    changing(to, Kind::Added, || {
        beneath::rename_no_replace(Place::file(claim), Place::file(to))
    })
}

/// `…-60bd0e69.md` → `…-60bd0e69.recovered-<op>.md`: still a message file, never a clash.
fn recovered_name(origin: &Path, claim: &Path) -> PathBuf {
    let op = claim
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = origin
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    origin.with_file_name(format!("{stem}.recovered-{op}.md"))
}

/// Finish a committed move: publish what is still staged, make it durable, then drop the
/// claim.
fn roll_forward(intent: &Intent, names: &mut NameChanges) -> Result<()> {
    for (staged, dest) in &intent.outputs {
        let publish = || beneath::rename(Place::file(staged), Place::file(dest));
        // A move onto the message's own name is a rewrite in place.
        let kind = match *dest == intent.origin {
            true => Kind::Rewritten,
            false => Kind::Added,
        };
        match changing(dest, kind, publish) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {} // published before a crash
            Err(e) => return Err(refuse_link(dest, e)),
        }
        if let Some(dir) = dest.parent() {
            names.changed(dir)?;
        }
    }
    names.sync()?;
    let _ = beneath::remove(Place::file(&intent.claim));
    Ok(())
}

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
    _held: File,
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
            .open(OFlags::WRONLY | OFlags::CREATE, 0o600)
            .map_err(|e| refuse_link(path, e))?;
        make_private(&file, path)?;
        file.lock().at(path)?;
        Ok(Lock { _held: file })
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

/// When a file was last written (every store write is a new file, so: when it was published),
/// without following a symlink; `None` when it cannot be known (gone, unreadable).
pub(crate) fn modified(path: &Path) -> Option<std::time::SystemTime> {
    fs::symlink_metadata(path).and_then(|m| m.modified()).ok()
}

/// Whether an I/O error means "that name is taken" (a publication that never replaces).
pub(crate) fn already_exists(error: &Error) -> bool {
    matches!(error, Error::Io { source, .. } if source.kind() == io::ErrorKind::AlreadyExists)
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

/// Whether an I/O error means "the file is not there (any more)".
pub(crate) fn is_not_found(error: &Error) -> bool {
    matches!(error, Error::Io { source, .. } if source.kind() == io::ErrorKind::NotFound)
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup() -> (tempfile::TempDir, PathBuf, PathBuf, PathBuf) {
        let root = tempfile::tempdir().unwrap();
        let tmp = root.path().join("tmp");
        let inbox = root.path().join("inbox");
        let done = root.path().join("done");
        for d in [&tmp, &inbox, &done] {
            create_private_dir(d).unwrap();
        }
        (root, tmp, inbox, done)
    }

    #[test]
    fn publish_new_never_replaces() {
        let (_root, tmp, inbox, _) = setup();
        publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
        let err = publish_new(&tmp, &inbox, "a.md", b"two").unwrap_err();
        assert!(
            matches!(err, Error::Io { ref source, .. } if source.kind() == ErrorKind::AlreadyExists)
        );
        assert_eq!(fs::read(inbox.join("a.md")).unwrap(), b"one");
        assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
    }

    #[test]
    fn second_move_of_the_same_file_is_gone() {
        let (_root, tmp, inbox, done) = setup();
        publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
        let dest = || {
            vec![Destination {
                tmp: tmp.clone(),
                dir: done.clone(),
                name: "a.md".into(),
            }]
        };
        let first = move_message(&tmp, &inbox.join("a.md"), &dest(), |b| {
            Ok(vec![[b, b"+"].concat()])
        })
        .unwrap();
        assert!(matches!(first, Moved::Done));
        let second =
            move_message(&tmp, &inbox.join("a.md"), &dest(), |b| Ok(vec![b.to_vec()])).unwrap();
        assert!(matches!(second, Moved::Gone));
        assert_eq!(fs::read(done.join("a.md")).unwrap(), b"one+");
        assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
    }

    #[test]
    fn a_rewrite_swaps_in_the_new_version_under_the_same_name_and_leaves_nothing_in_tmp() {
        let (_root, tmp, inbox, _) = setup();
        let path = publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
        let before = fs::metadata(&path).unwrap().ino();
        let rewritten = rewrite_in_place(&tmp, &path, |b| Ok([b, b"+"].concat())).unwrap();
        assert_eq!(rewritten, Rewritten::Done);
        assert_eq!(fs::read(&path).unwrap(), b"one+");
        assert_ne!(
            fs::metadata(&path).unwrap().ino(),
            before,
            "a new file, never one changed in place"
        );
        assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
    }

    #[test]
    fn rewriters_of_one_message_take_turns_and_lose_no_line() {
        let (_root, tmp, inbox, _) = setup();
        let path = publish_new(&tmp, &inbox, "a.md", b"lines:").unwrap();
        std::thread::scope(|scope| {
            for n in 0..8u8 {
                let (tmp, path) = (&tmp, &path);
                scope.spawn(move || {
                    let line = [b'0' + n];
                    let rewritten = rewrite_in_place(tmp, path, |b| {
                        // Slow enough that the others arrive while this one works.
                        std::thread::sleep(std::time::Duration::from_millis(5));
                        Ok([b, &line[..]].concat())
                    });
                    assert_eq!(rewritten.unwrap(), Rewritten::Done);
                });
            }
        });
        let mut lines = fs::read(&path).unwrap()[b"lines:".len()..].to_vec();
        lines.sort();
        assert_eq!(lines, b"01234567");
        assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
    }

    #[test]
    fn a_rewrite_in_place_is_journaled_as_one_whether_names_are_exchanged_or_moved() {
        use crate::store::journal::{Kind, Since, snapshot};
        let (root, tmp, inbox, _) = setup();
        create_private_dir(&root.path().join(".filebox")).unwrap();
        let path = publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
        let plus = |b: &[u8]| Ok([b, b"+"].concat());
        assert_eq!(
            rewrite_in_place(&tmp, &path, plus).unwrap(),
            Rewritten::Done
        );
        // A file system that cannot exchange names: the message moves onto its own name.
        exchange_unsupported_on(fs::metadata(&path).unwrap().dev());
        assert_eq!(
            rewrite_in_place(&tmp, &path, plus).unwrap(),
            Rewritten::Done
        );
        assert_eq!(fs::read(&path).unwrap(), b"one++");
        let entries = snapshot(&inbox, Since::NoJournal).unwrap().entries.unwrap();
        let kinds: Vec<(Kind, &str)> = entries.iter().map(|e| (e.kind, e.name.as_str())).collect();
        assert_eq!(
            kinds,
            [
                (Kind::Added, "a.md"),
                (Kind::Rewritten, "a.md"),
                (Kind::Removed, "a.md"),
                (Kind::Rewritten, "a.md")
            ]
        );
    }

    #[test]
    fn a_version_replaced_during_a_rewrite_is_kept_and_the_rewrite_is_gone() {
        let (_root, tmp, inbox, _) = setup();
        let path = publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
        // Another tool, which takes no turn, replaces it while the rewrite works.
        let rewritten = rewrite_in_place(&tmp, &path, |b| {
            fs::write(inbox.join("edited"), b"edited").unwrap();
            fs::rename(inbox.join("edited"), &path).unwrap();
            Ok([b, b"+"].concat())
        })
        .unwrap();
        assert_eq!(rewritten, Rewritten::Gone);
        assert_eq!(fs::read(&path).unwrap(), b"edited");
        assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
    }

    #[test]
    fn a_delivery_under_the_same_name_waits_for_the_rewrite_in_progress() {
        let (_root, tmp, inbox, _) = setup();
        let path = publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
        let (started, start) = std::sync::mpsc::channel();
        let rewritten = std::thread::scope(|scope| {
            let rewrite = scope.spawn(|| {
                rewrite_in_place(&tmp, &path, |b| {
                    started.send(()).unwrap();
                    std::thread::sleep(std::time::Duration::from_millis(50));
                    Ok([b, b"+"].concat())
                })
            });
            start.recv().unwrap();
            publish_replace(&tmp, &inbox, "a.md", b"delivered").unwrap();
            rewrite.join().unwrap().unwrap()
        });
        // The rewrite went in whole, then the delivery replaced it: neither undid the other.
        assert_eq!(rewritten, Rewritten::Done);
        assert_eq!(fs::read(&path).unwrap(), b"delivered");
        assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
    }

    #[test]
    fn a_rewrite_that_changes_nothing_writes_nothing() {
        let (_root, tmp, inbox, _) = setup();
        let path = publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
        let before = fs::metadata(&path).unwrap().ino();
        let rewritten = rewrite_in_place(&tmp, &path, |b| Ok(b.to_vec())).unwrap();
        assert_eq!(rewritten, Rewritten::Unchanged);
        assert_eq!(fs::metadata(&path).unwrap().ino(), before);
    }

    #[test]
    fn a_message_moved_during_a_rewrite_stays_where_it_went() {
        let (_root, tmp, inbox, done) = setup();
        let path = publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
        let rewritten = rewrite_in_place(&tmp, &path, |b| {
            fs::rename(&path, done.join("a.md")).unwrap();
            Ok([b, b"+"].concat())
        })
        .unwrap();
        assert_eq!(rewritten, Rewritten::Gone);
        assert!(!path.exists(), "never published again where it left");
        assert_eq!(fs::read(done.join("a.md")).unwrap(), b"one");
        assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
        assert_eq!(
            rewrite_in_place(&tmp, &path, |b| Ok(b.to_vec())).unwrap(),
            Rewritten::Gone
        );
    }

    #[test]
    fn failed_rewrite_puts_the_message_back() {
        let (_root, tmp, inbox, done) = setup();
        publish_new(&tmp, &inbox, "a.md", b"one").unwrap();
        let dest = vec![Destination {
            tmp: tmp.clone(),
            dir: done.clone(),
            name: "a.md".into(),
        }];
        let result = move_message(&tmp, &inbox.join("a.md"), &dest, |_| {
            Err(Error::invalid("test", "no", "refused by the test"))
        });
        assert!(result.is_err());
        assert_eq!(fs::read(inbox.join("a.md")).unwrap(), b"one");
        assert!(!done.join("a.md").exists());
    }

    #[test]
    fn recovery_rolls_back_uncommitted_and_forward_committed() {
        let (_root, tmp, inbox, done) = setup();
        // An uncommitted move: intent + claim, as a killed process leaves them.
        let intent = Intent {
            origin: inbox.join("a.md"),
            claim: tmp.join("x.claim"),
            outputs: vec![(tmp.join("x.0.new"), done.join("a.md"))],
        };
        fs::write(&intent.claim, b"a").unwrap();
        fs::write(tmp.join("x.0.new"), b"a2").unwrap();
        fs::write(tmp.join("x.intent"), intent.encode()).unwrap();
        // A committed one.
        let committed = Intent {
            origin: inbox.join("b.md"),
            claim: tmp.join("y.claim"),
            outputs: vec![(tmp.join("y.0.new"), done.join("b.md"))],
        };
        fs::write(&committed.claim, b"b").unwrap();
        fs::write(tmp.join("y.0.new"), b"b2").unwrap();
        fs::write(tmp.join("y.commit"), committed.encode()).unwrap();
        fs::write(tmp.join("z.part"), b"half").unwrap();

        let report = recover(&tmp).unwrap();
        assert_eq!(
            report,
            Recovery {
                removed: 1,
                rolled_back: 1,
                rolled_forward: 1
            }
        );
        assert_eq!(fs::read(inbox.join("a.md")).unwrap(), b"a");
        assert!(!done.join("a.md").exists());
        assert_eq!(fs::read(done.join("b.md")).unwrap(), b"b2");
        assert!(!inbox.join("b.md").exists());
        assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
    }

    /// What a process killed after claiming `inbox/a.md` (move `x`, to `done/`) leaves: the
    /// claim holding `claimed` and the intent record.
    fn killed_after_claiming(tmp: &Path, inbox: &Path, done: &Path, claimed: &[u8]) -> Intent {
        let intent = Intent {
            origin: inbox.join("a.md"),
            claim: tmp.join("x.claim"),
            outputs: vec![(tmp.join("x.0.new"), done.join("a.md"))],
        };
        fs::write(&intent.claim, claimed).unwrap();
        fs::write(tmp.join("x.intent"), intent.encode()).unwrap();
        intent
    }

    fn names(dir: &Path) -> Vec<String> {
        let mut names: Vec<String> = fs::read_dir(dir)
            .unwrap()
            .flatten()
            .map(|e| e.file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    #[test]
    fn rolling_back_onto_a_taken_name_keeps_both_versions() {
        let (_root, tmp, inbox, done) = setup();
        killed_after_claiming(&tmp, &inbox, &done, b"claimed");
        fs::write(inbox.join("a.md"), b"arrived meanwhile").unwrap();
        recover(&tmp).unwrap();
        assert_eq!(fs::read(inbox.join("a.md")).unwrap(), b"arrived meanwhile");
        assert_eq!(
            fs::read(inbox.join("a.recovered-x.md")).unwrap(),
            b"claimed"
        );
        assert!(names(&tmp).is_empty());
    }

    #[test]
    fn a_recovery_killed_after_linking_back_is_finished_without_a_second_copy() {
        let (_root, tmp, inbox, done) = setup();
        let intent = killed_after_claiming(&tmp, &inbox, &done, b"claimed");
        // The first recovery linked the claim back, then died before removing the claim.
        fs::hard_link(&intent.claim, &intent.origin).unwrap();
        let report = recover(&tmp).unwrap();
        assert_eq!(report.rolled_back, 1);
        assert_eq!(names(&inbox), ["a.md"]);
        assert_eq!(fs::read(&intent.origin).unwrap(), b"claimed");
        assert!(names(&tmp).is_empty());
    }

    #[test]
    fn a_recovery_killed_after_keeping_a_version_aside_keeps_it_once() {
        let (_root, tmp, inbox, done) = setup();
        let intent = killed_after_claiming(&tmp, &inbox, &done, b"claimed");
        fs::write(&intent.origin, b"arrived meanwhile").unwrap();
        // The first recovery kept the claim aside, then died before removing the claim.
        fs::hard_link(&intent.claim, inbox.join("a.recovered-x.md")).unwrap();
        recover(&tmp).unwrap();
        assert_eq!(names(&inbox), ["a.md", "a.recovered-x.md"]);
        assert_eq!(
            fs::read(inbox.join("a.recovered-x.md")).unwrap(),
            b"claimed"
        );
        assert!(names(&tmp).is_empty());
    }

    #[test]
    fn a_version_kept_aside_stays_single_when_the_origin_name_frees_up() {
        let (_root, tmp, inbox, done) = setup();
        let intent = killed_after_claiming(&tmp, &inbox, &done, b"claimed");
        // The first recovery kept the claim aside (the origin name was taken), then died; the
        // file that took the name has left since.
        fs::hard_link(&intent.claim, inbox.join("a.recovered-x.md")).unwrap();
        recover(&tmp).unwrap();
        assert_eq!(names(&inbox), ["a.recovered-x.md"]);
        assert!(names(&tmp).is_empty());
    }

    #[test]
    fn a_rollback_puts_the_claimed_file_itself_back_under_one_name() {
        let (_root, tmp, inbox, done) = setup();
        let intent = killed_after_claiming(&tmp, &inbox, &done, b"claimed");
        let inode = fs::metadata(&intent.claim).unwrap().ino();
        recover(&tmp).unwrap();
        let back = fs::metadata(inbox.join("a.md")).unwrap();
        assert_eq!((back.ino(), back.nlink()), (inode, 1));
        assert!(names(&tmp).is_empty());
    }

    #[test]
    fn copies_link_one_unnamed_file_and_leave_tmp_untouched() {
        let (_root, tmp, inbox, done) = setup();
        let before = fs::symlink_metadata(&tmp).unwrap();
        let mut copies = Copies::new("a.md", b"hello");
        let first = copies.publish(&tmp, &inbox).unwrap();
        let second = copies.publish(&tmp, &done).unwrap();
        assert!(
            matches!(copies.staged, Some(Linkable::Unnamed(_))),
            "the test's file system makes unnamed files"
        );
        copies.sync().unwrap();
        assert!(same_file(&first, &second), "one file, two names");
        assert_eq!(fs::read(&second).unwrap(), b"hello");
        let mode = fs::symlink_metadata(&first).unwrap().permissions().mode();
        assert_eq!(mode & 0o777, 0o600);
        let after = fs::symlink_metadata(&tmp).unwrap();
        assert_eq!(
            (before.ctime(), before.ctime_nsec()),
            (after.ctime(), after.ctime_nsec()),
            "a name was made in tmp/"
        );
        let taken = Copies::new("a.md", b"other").publish(&tmp, &inbox);
        assert!(
            matches!(taken, Err(Error::Io { source, .. }) if source.kind() == ErrorKind::AlreadyExists)
        );
        assert_eq!(fs::read(&first).unwrap(), b"hello");
    }

    #[test]
    fn an_unnamed_file_whose_link_is_refused_is_published_with_a_name_instead() {
        let (_root, tmp, inbox, done) = setup();
        let mailbox = mailbox_of_tmp(&tmp);
        // Opened so that it can never be linked: refused as a policy would refuse it.
        let unlinkable = Place::new(mailbox, &tmp)
            .open(OFlags::WRONLY | OFlags::TMPFILE | OFlags::EXCL, 0o600)
            .unwrap();
        let mut staged = Linkable::Unnamed(unlinkable);
        let (first, second) = (inbox.join("a.md"), done.join("a.md"));
        let publish = |staged: &mut Linkable, dest: &Path| {
            staged
                .publish(&tmp, b"hello", dest, Place::new(mailbox, dest))
                .unwrap()
        };
        publish(&mut staged, &first).unwrap();
        assert!(matches!(staged, Linkable::Named { .. }));
        publish(&mut staged, &second).unwrap();
        assert!(
            same_file(&first, &second),
            "the next folder links the named file"
        );
        assert_eq!(fs::read(&first).unwrap(), b"hello");
        // A taken name is still refused as taken, without a second try.
        let taken = publish(&mut Linkable::stage(&tmp, b"other").unwrap(), &first);
        assert_eq!(taken.unwrap_err().kind(), ErrorKind::AlreadyExists);
        drop(staged);
        assert_eq!(fs::read_dir(&tmp).unwrap().count(), 0);
    }

    #[test]
    fn a_staged_file_in_tmp_is_linked_and_its_name_goes_with_it() {
        // Where the file system makes no unnamed files.
        let (_root, tmp, inbox, _) = setup();
        let mailbox = mailbox_of_tmp(&tmp);
        let path = tmp.join(format!("op.{STAGED}"));
        let staged = Linkable::Named {
            mailbox: mailbox.to_owned(),
            staged: Staged::create(mailbox, path.clone(), b"hi").unwrap(),
        };
        let dest = inbox.join("a.md");
        staged.link(Place::new(mailbox, &dest)).unwrap();
        let again = staged.link(Place::new(mailbox, &dest)).unwrap_err();
        assert_eq!(again.kind(), ErrorKind::AlreadyExists);
        assert!(path.exists());
        drop(staged);
        assert!(!path.exists());
        assert_eq!(fs::read(&dest).unwrap(), b"hi");
    }

    #[test]
    fn an_empty_tmp_is_read_again_only_once_its_entries_change() {
        let (_root, tmp, _, _) = setup();
        std::thread::sleep(std::time::Duration::from_millis(150)); // its ctime settles
        assert_eq!(recover(&tmp).unwrap(), Recovery::default());
        assert!(RECOVERED.still(&tmp, DirSeen::of(&tmp)));
        // A dead writer's leftover is named in tmp/: the next recovery reads it again.
        fs::write(tmp.join(format!("dead.{STAGED}")), b"x").unwrap();
        std::thread::sleep(std::time::Duration::from_millis(150));
        assert!(!RECOVERED.still(&tmp, DirSeen::of(&tmp)));
        assert_eq!(recover(&tmp).unwrap().removed, 1);
    }

    #[test]
    fn a_tmp_holding_a_live_writers_file_is_read_again_after_the_writer_dies() {
        let (_root, tmp, _, _) = setup();
        let live = tmp.join(format!("live.{STAGED}"));
        let locked = File::create(&live).unwrap();
        locked.lock().unwrap();
        std::thread::sleep(std::time::Duration::from_millis(150));
        assert_eq!(recover(&tmp).unwrap(), Recovery::default());
        // The writer dies: its lock goes, tmp/'s entries stay as they were.
        drop(locked);
        assert_eq!(recover(&tmp).unwrap().removed, 1);
        assert!(!live.exists());
    }

    #[test]
    fn recovery_leaves_live_writers_alone() {
        let (_root, tmp, _, _) = setup();
        // This process's writer, passed by through the registry.
        let live = Staged::create(mailbox_of_tmp(&tmp), tmp.join("live.part"), b"x").unwrap();
        assert!(is_held_here(&live.path));
        // Another process's writer, not in this registry: passed by because it is locked.
        let other = tmp.join(format!("other.{STAGED}"));
        let locked = File::create(&other).unwrap();
        locked.lock().unwrap();
        assert!(!is_held_here(&other));
        assert_eq!(recover(&tmp).unwrap(), Recovery::default());
        assert!(live.path.exists() && other.exists());
        drop(locked);
        assert_eq!(recover(&tmp).unwrap().removed, 1);
        assert!(live.path.exists() && !other.exists());
    }

    #[test]
    fn recovery_in_the_staging_process_passes_its_files_by_until_they_are_given_back() {
        let (_root, tmp, _, _) = setup();
        let path = tmp.join(format!("op.{STAGED}"));
        // Registered as this process's before it exists (as `Staged::create` does), so even
        // unlocked (between its create and its lock) no recovery here removes it.
        let held = HeldHere::new(&path);
        fs::write(&path, b"x").unwrap();
        assert_eq!(recover(&tmp).unwrap(), Recovery::default());
        assert!(path.exists());
        drop(held);
        assert_eq!(recover(&tmp).unwrap().removed, 1);
        assert!(!path.exists());
    }

    #[test]
    fn a_symlinked_lock_or_staged_file_is_never_opened_through() {
        let (root, tmp, _inbox, _done) = setup();
        let outside = root.path().join("outside");
        fs::write(&outside, b"keep").unwrap();
        let lock = root.path().join("state.lock");
        std::os::unix::fs::symlink(&outside, &lock).unwrap();
        assert!(with_lock(Place::new(root.path(), &lock), || Ok(())).is_err());
        std::os::unix::fs::symlink(&outside, tmp.join("op.1.new")).unwrap();
        recover(&tmp).unwrap();
        assert_eq!(fs::read(&outside).unwrap(), b"keep");
    }
}
