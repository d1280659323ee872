//! Mailbox roots this process has checked lately. A writer's open checks that every folder of
//! the mailbox is a real directory (creating what is missing) before it uses any: nine `stat`s
//! and a `mkdir`. A hub opens the same mailboxes thousands of times a minute, and a folder can
//! only be created, removed, renamed or swapped for a symlink by changing the root directory's
//! entries, which moves the root's ctime (which, unlike the mtime, no one can set back). So one
//! `lstat` of the root that finds the same directory (device, inode) with the same ctime as
//! before the last check stands for the check, as long as that ctime was too old, when seen,
//! to be shared by a later change (`journal::settled`). The files inside the folders are never
//! trusted this way: every use still opens them beneath the root without following symlinks.

use std::collections::HashMap;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex, PoisonError};

use crate::journal;
use crate::mark::ctime_ns;

/// How many roots are remembered; past that the memory starts again (a hub serves fewer).
const KEPT: usize = 4096;

/// A root directory as one `lstat` sees it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) struct RootSeen {
    dev: u64,
    ino: u64,
    ctime: i64,
}

impl RootSeen {
    /// The root now, when it is a directory (not a symlink) whose ctime can be trusted.
    pub(crate) fn of(root: &Path) -> Option<RootSeen> {
        let meta = std::fs::symlink_metadata(root).ok()?;
        let ctime = ctime_ns(&meta);
        if !meta.file_type().is_dir() || !journal::settled(ctime, meta.ctime_nsec() == 0) {
            return None;
        }
        Some(RootSeen {
            dev: meta.dev(),
            ino: meta.ino(),
            ctime,
        })
    }
}

static CHECKED: LazyLock<Mutex<HashMap<PathBuf, RootSeen>>> = LazyLock::new(Mutex::default);

/// Whether `root` was checked as it is now.
pub(crate) fn still_checked(root: &Path, now: Option<RootSeen>) -> bool {
    let Some(now) = now else {
        return false;
    };
    let checked = CHECKED.lock().unwrap_or_else(PoisonError::into_inner);
    checked.get(root) == Some(&now)
}

/// Remember that `root`, seen as `before` ahead of a check, passed it.
pub(crate) fn checked(root: &Path, before: Option<RootSeen>) {
    let Some(before) = before else {
        return;
    };
    let mut checked = CHECKED.lock().unwrap_or_else(PoisonError::into_inner);
    if checked.len() >= KEPT {
        checked.clear();
    }
    checked.insert(root.to_owned(), before);
}

#[cfg(test)]
mod tests {
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
    fn a_folder_removed_after_a_kept_check_is_made_again() {
        let dir = tempfile::tempdir().unwrap();
        let root = dir.path().join("me");
        let mailbox = opened_and_settled(&root);
        std::fs::remove_dir(mailbox.folder_path(Folder::Done)).unwrap();
        Mailbox::open(AgentId::new("me").unwrap(), root).unwrap();
        assert!(mailbox.folder_path(Folder::Done).is_dir());
    }
}
