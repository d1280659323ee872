//! Directories this process has checked lately, so a hub that opens the same mailboxes
//! thousands of times a minute does not check them again while they stay as they were:
//! - mailbox roots ([`ROOTS`]): a writer's open checks that every folder of the mailbox is a
//!   real directory (creating what is missing) before it uses any, nine `stat`s and a `mkdir`;
//!   a folder can only be created, removed, renamed or swapped for a symlink by changing the
//!   root's entries;
//! - `tmp/` folders with nothing to recover ([`RECOVERED`]): a writer's open scans `tmp/` for
//!   what dead processes left there, which they could only leave by naming a file in it.
//!
//! On a local file system a change of a directory's entries moves its ctime (which, unlike the
//! mtime, no one can set back). So one `lstat` that finds the same directory (device, inode) with the same ctime as
//! before the last check stands for the check, as long as that ctime was too old, when seen,
//! to be shared by a later change (`journal::settled`). On a network or FUSE file system
//! (`file_system::moves_ctime`) nothing is remembered: every open checks again. The files inside are never trusted
//! this way: every use still opens them beneath the root without following symlinks.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex, PoisonError};

use crate::fs::file_system;
use crate::fs::file_system::ctime_ns;
use crate::store::journal;

/// How many directories a registry remembers; past that it starts again (a hub has fewer).
const KEPT: usize = 4096;

/// A directory as one `lstat` sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct DirSeen {
    dev: u64,
    ino: u64,
    ctime: i64,
}

impl DirSeen {
    /// The directory now, when it is one (not a symlink) whose ctime can be trusted.
    pub(crate) fn of(dir: &Path) -> Option<DirSeen> {
        let meta = std::fs::symlink_metadata(dir).ok()?;
        let ctime = ctime_ns(&meta);
        if !meta.file_type().is_dir()
            || !journal::settled(ctime, meta.ctime_nsec() == 0)
            || !file_system::moves_ctime(meta.dev(), dir)
        {
            return None;
        }
        Some(DirSeen {
            dev: meta.dev(),
            ino: meta.ino(),
            ctime,
        })
    }
}

/// The directories that passed one kind of check, each as it was seen before the check.
pub(crate) struct Checked(LazyLock<Mutex<HashMap<PathBuf, DirSeen>>>);

/// Mailbox roots whose folders are all there, real directories.
pub(crate) static ROOTS: Checked = Checked(LazyLock::new(Mutex::default));
/// `tmp/` folders that held nothing at all (no dead writer's leftovers, no live writer's file
/// that could become them).
pub(crate) static RECOVERED: Checked = Checked(LazyLock::new(Mutex::default));

impl Checked {
    /// Whether `dir` passed this check as it is now.
    pub(crate) fn still(&self, dir: &Path, now: Option<DirSeen>) -> bool {
        let Some(now) = now else {
            return false;
        };
        let passed = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        passed.get(dir) == Some(&now)
    }

    /// Remember that `dir`, seen as `before` ahead of the check, passed it.
    pub(crate) fn passed(&self, dir: &Path, before: Option<DirSeen>) {
        let Some(before) = before else {
            return;
        };
        let mut passed = self.0.lock().unwrap_or_else(PoisonError::into_inner);
        if passed.len() >= KEPT {
            passed.clear();
        }
        passed.insert(dir.to_owned(), before);
    }
}

#[cfg(test)]
mod tests {
    use super::DirSeen;
    use crate::agent::AgentId;
    use crate::error::Error;
    use crate::folder::Folder;
    use crate::mailbox::Mailbox;
    use std::path::Path;
    use std::time::Duration;

    /// A mailbox opened twice, the second time after its root settled: the check is kept.
    fn opened_and_settled(root: &Path) -> Mailbox {
        let me = AgentId::new("me").unwrap();
        Mailbox::open(me.clone(), root.to_owned()).unwrap();
        std::thread::sleep(Duration::from_millis(150));
        Mailbox::open(me, root.to_owned()).unwrap()
    }

    #[test]
    fn a_folder_swapped_for_a_symlink_is_refused_even_with_the_roots_mtime_set_back() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("me");
        let mailbox = opened_and_settled(&root);
        let elsewhere = dir.path().join("elsewhere");
        std::fs::create_dir(&elsewhere).unwrap();
        let inbox = mailbox.folder_path(Folder::Inbox);
        let checked_at = std::fs::metadata(&root).unwrap().modified().unwrap();
        std::fs::remove_dir(&inbox).unwrap();
        std::os::unix::fs::symlink(&elsewhere, &inbox).unwrap();
        // Someone hides the change from an mtime check.
        let times = std::fs::FileTimes::new().set_modified(checked_at);
        std::fs::File::open(&root)
            .unwrap()
            .set_times(times)
            .unwrap();
        std::thread::sleep(Duration::from_millis(150));
        let refused =
            |error: Error| matches!(error, Error::Malformed { path, .. } if path == inbox);
        assert!(refused(
            Mailbox::open(AgentId::new("me").unwrap(), root.clone()).unwrap_err()
        ));
        assert!(refused(
            Mailbox::open_to_read(AgentId::new("me").unwrap(), root).unwrap_err()
        ));
    }

    #[test]
    fn only_a_settled_directory_on_a_local_file_system_stands_for_its_check() {
        let dir = tempfile::tempdir().unwrap();
        assert!(DirSeen::of(dir.path()).is_none(), "changed just now");
        std::thread::sleep(Duration::from_millis(150));
        assert!(DirSeen::of(dir.path()).is_some());
        // sysfs stands for a network or FUSE file system: not known to move ctime.
        let sysfs = Path::new("/sys/kernel");
        assert!(sysfs.is_dir());
        assert!(DirSeen::of(sysfs).is_none());
    }

    #[test]
    fn a_folder_removed_after_a_kept_check_is_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("me");
        let mailbox = opened_and_settled(&root);
        std::fs::remove_dir(mailbox.folder_path(Folder::Done)).unwrap();
        Mailbox::open(AgentId::new("me").unwrap(), root).unwrap();
        assert!(mailbox.folder_path(Folder::Done).is_dir());
    }
}
