//! The change journal of each mailbox folder (`.filebox/changes.<folder>`): every link, rename
//! or removal the store makes in a folder is recorded, with the folder's mtime just before and
//! just after the change, under an exclusive `flock` of the journal (so FileBox's own changes
//! of one folder form a chain: each starts at the mtime the previous one ended at). The index
//! catches up with a folder of 100,000 files by reading the new lines instead of listing the
//! folder again (`index/sync.rs`).
//!
//! Derived state, never trusted blindly: a change the journal does not explain (a file another
//! tool or a person wrote, renamed or deleted; a writer killed between its change and its line;
//! a deleted journal) leaves the folder's mtime where no line of the chain ends, and the index
//! then lists the folder. A line whose mtime did not move across its change (a file system
//! whose timestamps are too coarse to tell changes apart) breaks the chain the same way. A
//! journal that cannot be written never fails a delivery: the change is made unrecorded, which
//! the chain shows.

use std::collections::HashMap;
use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, Read, Seek, SeekFrom, Write};
use std::os::unix::fs::{MetadataExt, PermissionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, LazyLock, Mutex, PoisonError};
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use rustix::fs::OFlags;

use crate::folder::Folder;
use crate::fs::beneath::Place;

/// What a change did to a name in the folder.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Kind {
    /// The name now holds the file with the recorded inode (new, or replacing another).
    Added,
    /// The name now holds the file with the recorded inode, a new version of the message it
    /// held (a rewrite in place: a read receipt), not a new message.
    Rewritten,
    /// The file with the recorded inode left the name.
    Removed,
}

impl Kind {
    /// Whether the name holds the recorded file after the change.
    pub(crate) fn adds(self) -> bool {
        self != Kind::Removed
    }
}

/// One recorded change.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Entry {
    /// The folder's mtime (ns) just before the change and just after it.
    pub before: i64,
    pub after: i64,
    pub kind: Kind,
    pub ino: u64,
    pub name: String,
}

/// A folder's mtime in nanoseconds, as the index records it.
pub(crate) fn mtime_ns(meta: &fs::Metadata) -> i64 {
    meta.mtime() * 1_000_000_000 + meta.mtime_nsec()
}

/// A directory changed this recently may change again within the same mtime tick (the kernel
/// stamps files from a clock that advances once per scheduler tick, 1-10 ms), so its mtime
/// does not yet tell "unchanged since" apart from "changed since".
const RACY: Duration = Duration::from_millis(100);
/// The same for a file system that keeps whole seconds (a zero nanosecond part).
const RACY_WHOLE_SECONDS: Duration = Duration::from_secs(2);

/// The mtime of `meta` in nanoseconds, unless it is too recent to stand for "unchanged" when
/// it is seen again ([`RACY`]).
pub(crate) fn trusted_mtime(meta: &fs::Metadata) -> Option<i64> {
    let ns = mtime_ns(meta);
    settled(ns, meta.mtime_nsec() == 0).then_some(ns)
}

/// Whether a time stamped by the file system (nanoseconds since the epoch; `whole_seconds`:
/// one that keeps no fraction) is old enough that a later change cannot share it.
pub(crate) fn settled(ns: i64, whole_seconds: bool) -> bool {
    until_settled(ns, whole_seconds).is_zero()
}

/// How long until a time stamped by the file system is [`settled`].
fn until_settled(ns: i64, whole_seconds: bool) -> Duration {
    let now = SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| i64::try_from(d.as_nanos()).unwrap_or(i64::MAX));
    let racy = if whole_seconds {
        RACY_WHOLE_SECONDS
    } else {
        RACY
    };
    let left = (racy.as_nanos() as i64).saturating_sub(now.saturating_sub(ns));
    // A stamp ahead of this clock (another machine's, a clock set back) waits no longer.
    Duration::from_nanos(u64::try_from(left).unwrap_or(0)).min(racy)
}

/// Wait until the last change of each folder of `dirs` is settled (at most once per folder: a
/// folder that keeps changing is not waited for again), so a listing made next can be trusted
/// as current.
pub(crate) fn wait_until_settled(dirs: impl IntoIterator<Item = impl AsRef<Path>>) {
    for dir in dirs {
        if let Ok(meta) = fs::symlink_metadata(dir) {
            std::thread::sleep(until_settled(mtime_ns(&meta), meta.mtime_nsec() == 0));
        }
    }
}

/// The journal of a mailbox folder `<root>/<folder>`, when `dir` is one and its mailbox has its
/// `.filebox/` (a writer's open makes it).
fn path_of(dir: &Path) -> Option<PathBuf> {
    let folder = Folder::parse(dir.file_name()?.to_str()?)?;
    let state = dir.parent()?.join(".filebox");
    fs::symlink_metadata(&state)
        .ok()
        .filter(|m| m.is_dir())
        .map(|_| state.join(format!("changes.{}", folder.as_str())))
}

/// Make one change of the folder `dir` (`change` links, renames or removes `name` there) and
/// record it. `name` is what the change added or removed; for a removal, its inode is read
/// before the change.
pub(crate) fn record<T>(
    dir: &Path,
    name: &str,
    kind: Kind,
    change: impl FnOnce() -> io::Result<T>,
) -> io::Result<T> {
    let slot = kept_slot(dir);
    // Held until the line is written: this process's changes of this folder never interleave.
    let mut kept = slot.lock().unwrap_or_else(PoisonError::into_inner);
    if !kept.as_ref().is_some_and(Kept::current) {
        *kept = path_of(dir).and_then(Kept::open);
    }
    let Some(journal) = kept.as_ref() else {
        return change();
    };
    // The same for other processes' changes.
    let Some(_locked) = Locked::take(&journal.file) else {
        return change();
    };
    let file = dir.join(name);
    let before = fs::symlink_metadata(dir).map(|m| mtime_ns(&m));
    let ino_now = || fs::symlink_metadata(&file).map(|m| m.ino()).ok();
    let removed_ino = if kind.adds() { None } else { ino_now() };
    let result = change()?;
    let ino = if kind.adds() { ino_now() } else { removed_ino };
    let after = fs::symlink_metadata(dir).map(|m| mtime_ns(&m));
    if let (Ok(before), Some(ino), Ok(after)) = (before, ino, after) {
        let sign = match kind {
            Kind::Added => '+',
            Kind::Rewritten => '~',
            Kind::Removed => '-',
        };
        // One write of one line: a reader never sees half of it unless the writer died
        // mid-write, which the next line's chain shows.
        let _ = (&journal.file)
            .write_all(format!("{before}\t{after}\t{sign}\t{ino}\t{name}\n").as_bytes());
    }
    Ok(result)
}

/// A folder's journal this process keeps open, with what its path named when opened (to tell
/// when the name points at another file: removed by a reindex, replaced, `.filebox/` swapped).
struct Kept {
    path: PathBuf,
    file: File,
    dev: u64,
    ino: u64,
}

impl Kept {
    /// Open the journal at `path`; when this process has no file descriptor left, the other
    /// journals it keeps are let go first (one descriptor for this change is worth more than
    /// keeping them: they are opened again when needed).
    fn open(path: PathBuf) -> Option<Kept> {
        let file = match open_to_append(&path) {
            Err(e) if matches!(e.raw_os_error(), Some(libc::EMFILE | libc::ENFILE)) => {
                KEPT.lock().unwrap_or_else(PoisonError::into_inner).clear();
                open_to_append(&path)
            }
            opened => opened,
        }
        .ok()?;
        let meta = file.metadata().ok()?;
        Some(Kept {
            path,
            file,
            dev: meta.dev(),
            ino: meta.ino(),
        })
    }

    /// Whether the journal's path still names the file kept open.
    fn current(&self) -> bool {
        fs::symlink_metadata(&self.path)
            .is_ok_and(|m| m.is_file() && m.dev() == self.dev && m.ino() == self.ino)
    }
}

/// The journals this process keeps open, a slot per folder: a hub records thousands of changes
/// a minute, and opening the journal for each (after a look at `.filebox/`) and closing it
/// again was a third of a change's recording. A slot's mutex keeps this process's threads from
/// recording changes of one folder at once, which the `flock` cannot: a lock belongs to the
/// open file, and they share it.
type Slot = Arc<Mutex<Option<Kept>>>;
static KEPT: LazyLock<Mutex<HashMap<PathBuf, Slot>>> = LazyLock::new(Mutex::default);

/// How many journals are kept open at most: 1,024 (a hub has seven per mailbox it writes), or
/// a quarter of the files this process may open where that is less (`filebox mcp` runs under
/// its host's limit, often 1,024). Past that, one is closed for each opened.
static KEPT_MAX: LazyLock<usize> = LazyLock::new(|| {
    let soft = rustix::process::getrlimit(rustix::process::Resource::Nofile).current;
    soft.map_or(1024, |soft| {
        usize::try_from(soft / 4).unwrap_or(1024).min(1024)
    })
});

fn kept_slot(dir: &Path) -> Slot {
    let mut kept = KEPT.lock().unwrap_or_else(PoisonError::into_inner);
    if let Some(slot) = kept.get(dir) {
        return Arc::clone(slot);
    }
    if kept.len() >= *KEPT_MAX {
        // A thread still holding a dropped slot's file excludes the others by its `flock`.
        let some = kept.keys().next().cloned();
        some.map(|dir| kept.remove(&dir));
    }
    Arc::clone(kept.entry(dir.to_owned()).or_default())
}

/// A journal's `flock`, released when dropped (the file stays open).
struct Locked<'a>(&'a File);

impl<'a> Locked<'a> {
    fn take(file: &'a File) -> Option<Locked<'a>> {
        file.lock().ok().map(|()| Locked(file))
    }
}

impl Drop for Locked<'_> {
    fn drop(&mut self) {
        let _ = self.0.unlock();
    }
}

fn open_to_append(path: &Path) -> io::Result<File> {
    let open = |create: bool| {
        let create = if create {
            OFlags::CREATE
        } else {
            OFlags::empty()
        };
        Place::file(path).open(OFlags::WRONLY | OFlags::APPEND | create, 0o600)
    };
    match open(false) {
        Err(e) if e.kind() == io::ErrorKind::NotFound => {
            let file = open(true)?;
            file.set_permissions(fs::Permissions::from_mode(0o600))?;
            Ok(file)
        }
        opened => opened,
    }
}

/// A folder and its journal seen at one instant: no FileBox change of the folder was under way.
#[derive(Debug)]
pub(crate) struct Snapshot {
    /// The folder's metadata (`None`: the folder is not there).
    pub folder: Option<fs::Metadata>,
    /// The journal's inode and length (`None`: there is no journal).
    pub journal: Option<(u64, u64)>,
    /// The entries after the position asked for, in order; `None` when they cannot be known:
    /// the journal is another file than the one the position was in (deleted, recreated), is
    /// shorter than the position, or holds a line that does not parse.
    pub entries: Option<Vec<Entry>>,
}

/// Which journal entries [`snapshot`] reads.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Since {
    /// None: only the folder's metadata and the journal's position are wanted.
    Unread,
    /// Every entry: there was no journal when the folder was last seen, so whatever one holds
    /// now was written since.
    NoJournal,
    /// The entries after the first `len` bytes of the journal with inode `ino`.
    At { ino: u64, len: u64 },
}

impl Since {
    /// Where the next snapshot reads from, after one that found `journal` (inode, length).
    pub(crate) fn after(journal: Option<(u64, u64)>) -> Since {
        journal.map_or(Since::NoJournal, |(ino, len)| Since::At { ino, len })
    }
}

/// Under the journal's shared lock (no change of the folder under way): the folder's metadata
/// and the journal's entries `since` a position read before.
pub(crate) fn snapshot(dir: &Path, since: Since) -> io::Result<Snapshot> {
    let journal = path_of(dir).and_then(|path| Place::file(&path).open(OFlags::RDONLY, 0).ok());
    if let Some(journal) = &journal {
        journal.lock_shared()?;
    }
    let folder = match fs::symlink_metadata(dir) {
        Ok(meta) => Some(meta),
        Err(e) if e.kind() == io::ErrorKind::NotFound => None,
        Err(e) => return Err(e),
    };
    let Some(mut journal) = journal else {
        let entries = (since != Since::Unread).then(Vec::new);
        return Ok(Snapshot {
            folder,
            journal: None,
            entries: entries.filter(|_| !matches!(since, Since::At { .. })),
        });
    };
    let meta = journal.metadata()?;
    let (ino, len) = (meta.ino(), meta.len());
    let from = match since {
        Since::NoJournal => Some(0),
        Since::At {
            ino: was,
            len: from,
        } if was == ino && from <= len => Some(from),
        Since::At { .. } | Since::Unread => None,
    };
    let entries = match from {
        Some(from) => {
            journal.seek(SeekFrom::Start(from))?;
            let mut bytes = Vec::with_capacity((len - from) as usize);
            (&mut journal).take(len - from).read_to_end(&mut bytes)?;
            parse(&bytes)
        }
        None => None,
    };
    Ok(Snapshot {
        folder,
        journal: Some((ino, len)),
        entries,
    })
}

/// How much of a journal's end [`tail`] reads: a few hundred changes.
const TAIL: u64 = 16 * 1024;

/// The last complete entries of the folder's journal before the position `journal` (inode,
/// length) that a snapshot found: what changed just before it (empty when that journal is
/// gone or its end does not parse).
pub(crate) fn tail(dir: &Path, journal: (u64, u64)) -> Vec<Entry> {
    let (ino, len) = journal;
    let Some(mut file) =
        path_of(dir).and_then(|path| Place::file(&path).open(OFlags::RDONLY, 0).ok())
    else {
        return Vec::new();
    };
    if file.metadata().map_or(true, |meta| meta.ino() != ino) {
        return Vec::new();
    }
    let from = len.saturating_sub(TAIL);
    let mut bytes = Vec::new();
    if file.seek(SeekFrom::Start(from)).is_err()
        || (&mut file)
            .take(len - from)
            .read_to_end(&mut bytes)
            .is_err()
    {
        return Vec::new();
    }
    // Begin at a line's start: the first line may be cut.
    let start = match from {
        0 => 0,
        _ => bytes
            .iter()
            .position(|&b| b == b'\n')
            .map_or(bytes.len(), |n| n + 1),
    };
    parse(&bytes[start..]).unwrap_or_default()
}

/// The lines of a journal; `None` if one does not parse (torn by a writer killed mid-write).
fn parse(bytes: &[u8]) -> Option<Vec<Entry>> {
    let text = std::str::from_utf8(bytes).ok()?;
    if !text.is_empty() && !text.ends_with('\n') {
        return None;
    }
    text.lines()
        .map(|line| {
            let mut fields = line.splitn(5, '\t');
            let before = fields.next()?.parse().ok()?;
            let after = fields.next()?.parse().ok()?;
            let kind = match fields.next()? {
                "+" => Kind::Added,
                "~" => Kind::Rewritten,
                "-" => Kind::Removed,
                _ => return None,
            };
            let ino = fields.next()?.parse().ok()?;
            let name = fields.next()?.to_owned();
            Some(Entry {
                before,
                after,
                kind,
                ino,
                name,
            })
        })
        .collect()
}

/// The entries, if they explain every change of the folder from the mtime `from` to the mtime
/// `now`: each starts where the previous ended and moved the mtime.
pub(crate) fn explains(entries: &[Entry], from: i64, now: i64) -> bool {
    let mut at = from;
    for entry in entries {
        if entry.before != at || entry.after == entry.before {
            return false;
        }
        at = entry.after;
    }
    at == now
}

/// Delete a mailbox's journals (`filebox reindex`: the rebuilt index lists every folder).
pub(crate) fn remove_all(state_dir: &Path) -> io::Result<()> {
    for folder in Folder::ALL {
        match fs::remove_file(state_dir.join(format!("changes.{}", folder.as_str()))) {
            Ok(()) => {}
            Err(e) if e.kind() == io::ErrorKind::NotFound => {}
            Err(e) => return Err(e),
        }
    }
    Ok(())
}

/// Make one change of a mailbox folder: `change` adds or removes the file `path`, recorded in
/// the folder's change journal .
pub(super) fn changing<T>(
    path: &Path,
    kind: Kind,
    change: impl FnOnce() -> io::Result<T>,
) -> io::Result<T> {
    match (path.parent(), path.file_name().and_then(OsStr::to_str)) {
        (Some(dir), Some(name)) => record(dir, name, kind, change),
        _ => change(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::Ordering;

    fn folder(root: &Path) -> PathBuf {
        let inbox = root.join("inbox");
        fs::create_dir_all(&inbox).unwrap();
        fs::create_dir_all(root.join(".filebox")).unwrap();
        inbox
    }

    #[test]
    fn changes_form_a_chain_from_the_folders_mtime_to_its_mtime_now() {
        let root = tempfile::tempdir().unwrap();
        let inbox = folder(root.path());
        let start = snapshot(&inbox, Since::Unread).unwrap();
        assert!(start.journal.is_none() && start.entries.is_none());
        let from = mtime_ns(start.folder.as_ref().unwrap());
        record(&inbox, "a.md", Kind::Added, || {
            fs::write(inbox.join("a.md"), "a")
        })
        .unwrap();
        record(&inbox, "a.md", Kind::Removed, || {
            fs::remove_file(inbox.join("a.md"))
        })
        .unwrap();
        let now = snapshot(&inbox, Since::after(start.journal)).unwrap();
        let entries = now.entries.unwrap();
        assert_eq!(
            entries
                .iter()
                .map(|e| (e.kind, e.name.as_str()))
                .collect::<Vec<_>>(),
            [(Kind::Added, "a.md"), (Kind::Removed, "a.md")]
        );
        assert_eq!(entries[0].ino, entries[1].ino);
        let now_mtime = mtime_ns(now.folder.as_ref().unwrap());
        assert!(explains(&entries, from, now_mtime));
        let caught_up = snapshot(&inbox, Since::after(now.journal)).unwrap();
        assert_eq!(caught_up.entries, Some(Vec::new()));
        // A change made without the journal is not explained.
        fs::write(inbox.join("by-hand.md"), "x").unwrap();
        let later = mtime_ns(&fs::symlink_metadata(&inbox).unwrap());
        assert!(!explains(&entries, from, later));
    }

    #[test]
    fn a_recreated_journal_or_a_torn_line_gives_no_entries() {
        let root = tempfile::tempdir().unwrap();
        let inbox = folder(root.path());
        record(&inbox, "a.md", Kind::Added, || {
            fs::write(inbox.join("a.md"), "a")
        })
        .unwrap();
        let (ino, len) = snapshot(&inbox, Since::Unread).unwrap().journal.unwrap();
        let at = |ino, len| snapshot(&inbox, Since::At { ino, len }).unwrap().entries;
        assert_eq!(at(ino, len), Some(Vec::new()));
        assert_eq!(at(ino + 1, 0), None);
        assert_eq!(at(ino, len + 1), None);
        let journal = root.path().join(".filebox/changes.inbox");
        let mut file = fs::OpenOptions::new().append(true).open(&journal).unwrap();
        file.write_all(b"1\t2\t+\t3").unwrap();
        assert_eq!(at(ino, len), None);
        // Deleted: the position names a journal that is gone.
        fs::remove_file(&journal).unwrap();
        assert_eq!(at(ino, len), None);
    }

    #[test]
    fn a_journal_kept_open_is_let_go_once_its_name_holds_another_file() {
        let root = tempfile::tempdir().unwrap();
        let inbox = folder(root.path());
        let add = |name: &str| {
            record(&inbox, name, Kind::Added, || {
                fs::write(inbox.join(name), "x")
            })
            .unwrap()
        };
        add("a.md");
        // Removed by a reindex: the next change starts a new journal instead of writing into
        // the removed one.
        let journal = root.path().join(".filebox/changes.inbox");
        fs::remove_file(&journal).unwrap();
        add("b.md");
        let entries = snapshot(&inbox, Since::NoJournal).unwrap().entries.unwrap();
        let names: Vec<&str> = entries.iter().map(|e| e.name.as_str()).collect();
        assert_eq!(names, ["b.md"]);
        // Between changes the journal is not locked: another process can record.
        let other = File::open(&journal).unwrap();
        assert!(other.try_lock().is_ok(), "the lock outlived the change");
    }

    #[test]
    fn threads_recording_one_folder_at_once_form_one_chain() {
        let root = tempfile::tempdir().unwrap();
        let inbox = folder(root.path());
        let from = mtime_ns(&fs::symlink_metadata(&inbox).unwrap());
        let inside = std::sync::atomic::AtomicUsize::new(0);
        std::thread::scope(|scope| {
            for thread in 0..8 {
                let (inbox, inside) = (&inbox, &inside);
                scope.spawn(move || {
                    for n in 0..50 {
                        let name = format!("{thread}-{n}.md");
                        record(inbox, &name, Kind::Added, || {
                            let others = inside.fetch_add(1, Ordering::SeqCst);
                            std::thread::yield_now();
                            let written = fs::write(inbox.join(&name), "x");
                            inside.fetch_sub(1, Ordering::SeqCst);
                            assert_eq!(others, 0, "two changes of one folder at once");
                            written
                        })
                        .unwrap();
                    }
                });
            }
        });
        let entries = snapshot(&inbox, Since::NoJournal).unwrap().entries.unwrap();
        assert_eq!(entries.len(), 400);
        let now = mtime_ns(&fs::symlink_metadata(&inbox).unwrap());
        // Each change starts where the one before it ended: none ran inside another.
        assert!(entries.windows(2).all(|w| w[1].before == w[0].after));
        assert_eq!((entries[0].before, entries[399].after), (from, now));
    }

    #[test]
    fn a_process_out_of_file_descriptors_lets_go_of_kept_journals_to_record_a_change() {
        use rustix::process::{Resource, getrlimit, setrlimit};
        // nextest runs each test in a process of its own: the lowered limit is this test's.
        let root = tempfile::tempdir().unwrap();
        let folders: Vec<PathBuf> = (0..3)
            .map(|n| folder(&root.path().join(n.to_string())))
            .collect();
        for dir in &folders {
            fs::write(dir.join("x"), "x").unwrap();
        }
        // A change that needs no file descriptor of its own.
        let link = |dir: &Path| {
            record(dir, "linked", Kind::Added, || {
                fs::hard_link(dir.join("x"), dir.join("linked"))
            })
        };
        link(&folders[0]).unwrap();
        link(&folders[1]).unwrap();
        let limit = getrlimit(Resource::Nofile);
        let open_now = fs::read_dir("/proc/self/fd").unwrap().count() as u64;
        let mut lowered = limit;
        lowered.current = Some(open_now + 8);
        setrlimit(Resource::Nofile, lowered).unwrap();
        let mut hog = Vec::new();
        let out_of_files = loop {
            match File::open("/dev/null") {
                Ok(file) => hog.push(file),
                Err(e) => break e,
            }
        };
        let linked = link(&folders[2]);
        drop(hog);
        setrlimit(Resource::Nofile, limit).unwrap();
        assert_eq!(out_of_files.raw_os_error(), Some(libc::EMFILE));
        linked.unwrap();
        let entries = snapshot(&folders[2], Since::NoJournal)
            .unwrap()
            .entries
            .unwrap();
        assert_eq!(entries.len(), 1, "the change went unrecorded");
        assert_eq!(entries[0].name, "linked");
    }

    #[test]
    fn a_folder_outside_a_mailbox_is_changed_unrecorded() {
        let root = tempfile::tempdir().unwrap();
        let tmp = root.path().join("tmp");
        fs::create_dir_all(&tmp).unwrap();
        fs::create_dir_all(root.path().join(".filebox")).unwrap();
        record(&tmp, "x", Kind::Added, || fs::write(tmp.join("x"), "x")).unwrap();
        assert_eq!(
            fs::read_dir(root.path().join(".filebox")).unwrap().count(),
            0
        );
    }
}
