//! How the name changes of one write (links and renames into folders) become durable: on a
//! file system that commits metadata in the order it was changed, one directory fsync at the
//! end makes the whole chain durable; elsewhere each folder is fsynced right after its change,
//! before the next change that depends on it.
//!
//! ext4 with a journal and xfs keep one journal of metadata, written and replayed as a
//! prefix: an fsync of a directory returns once the transaction holding its last change is
//! committed, and that transaction, or an earlier one, holds every change made before it. So after a power cut a
//! chain of name changes is cut at some point, exactly as a process killed at that point
//! would leave it, and recovery (`store::recover`) already handles every such point. File
//! data is not ordered that way (delayed allocation writes it later): a file is still fsynced
//! before any name points at it (`store::Staged`).

use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};

use crate::error::{IoContext, Result};
use crate::fs::file_system;
use crate::fs::group_commit;

/// The folders one write changed names in, in the order changed, and whether a single fsync
/// at the end makes them all durable.
#[derive(Debug)]
pub(crate) struct NameChanges {
    in_order: bool,
    last: Option<PathBuf>,
}

impl NameChanges {
    /// The changes of one write into mailboxes on the file system of `dir`.
    pub(crate) fn under(dir: &Path) -> NameChanges {
        NameChanges::new(in_order(dir))
    }

    pub(crate) fn new(in_order: bool) -> NameChanges {
        NameChanges {
            in_order,
            last: None,
        }
    }

    /// A name changed in `dir` that later changes depend on (what they say must not be on
    /// disk without it): where the file system does not keep order, it is made durable now.
    pub(crate) fn changed(&mut self, dir: &Path) -> Result<()> {
        if self.in_order {
            self.last = Some(dir.to_owned());
            return Ok(());
        }
        sync_dir(dir)
    }

    /// Make every name changed so far durable: in order, one fsync of the folder changed
    /// last covers the whole chain.
    pub(crate) fn sync(&mut self) -> Result<()> {
        match self.last.take() {
            Some(dir) => sync_dir(&dir),
            None => Ok(()),
        }
    }
}

/// fsync a directory, so that a rename or link in it survives a power loss. Concurrent
/// publishers into one folder share the fsync ([`group_commit`]): each still returns only once
/// what it linked is durable.
pub(crate) fn sync_dir(dir: &Path) -> Result<()> {
    group_commit::sync_dir(dir).at(dir)
}

#[cfg(test)]
thread_local! {
    /// Tests of either way, whatever the test machine's file system: this thread's writes
    /// take every file system for one that keeps order (`Some(true)`) or not.
    static KEEPS_ORDER: std::cell::Cell<Option<bool>> = const { std::cell::Cell::new(None) };
}

/// Whether the file system under `dir` commits metadata in order (`file_system::in_order`).
/// A folder that cannot be asked: no.
fn in_order(dir: &Path) -> bool {
    #[cfg(test)]
    if let Some(forced) = KEEPS_ORDER.get() {
        return forced;
    }
    fs::metadata(dir).is_ok_and(|meta| file_system::in_order(meta.dev(), dir))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mailroom::test_mailroom::dev_and_qa_as;
    use crate::{Folder, MessageRef, MessageType, SendRequest};

    /// A send to two (one inbox each and my outbox, one file linked thrice) and a reply that
    /// moves it on (two identical versions staged as one file), each way of making names durable.
    fn send_and_reply(dir: &Path) -> Vec<(String, String, String)> {
        let dev = dev_and_qa_as(dir, "dev");
        let qa = dev_and_qa_as(dir, "qa");
        let mut request =
            SendRequest::new("qa,dev", MessageType::new("ER").unwrap(), "the build fails");
        let sent = dev.send(&request).unwrap();
        request.to = vec!["dev".into()];
        request.body = "fixed".into();
        request.reply_to = Some(MessageRef::Id(sent.id.clone()));
        qa.send(&request).unwrap();
        let mut files = Vec::new();
        for mailroom in [&dev, &qa] {
            let mailbox = mailroom.my_mailbox().unwrap();
            for folder in Folder::ALL {
                for entry in std::fs::read_dir(mailbox.folder_path(folder))
                    .into_iter()
                    .flatten()
                {
                    let path = entry.unwrap().path();
                    let text = std::fs::read_to_string(&path).unwrap();
                    files.push((mailroom.me().to_string(), folder.to_string(), text));
                }
            }
            let tmp: Vec<_> = std::fs::read_dir(mailbox.tmp()).unwrap().collect();
            assert!(tmp.is_empty(), "{tmp:?} left in tmp/");
        }
        files.sort();
        files
    }
    #[test]
    fn tmpfs_keeps_order_and_a_file_system_that_cannot_be_asked_does_not() {
        let dir = tempfile::tempdir().unwrap();
        assert!(!in_order(&dir.path().join("missing")));
        assert!(in_order(Path::new("/dev/shm")));
    }

    #[test]
    fn sends_and_moves_leave_the_same_files_either_way() {
        let in_order = tempfile::tempdir().unwrap();
        let each = tempfile::tempdir().unwrap();
        KEEPS_ORDER.set(Some(true));
        let written = send_and_reply(in_order.path());
        KEEPS_ORDER.set(Some(false));
        let synced_each = send_and_reply(each.path());
        KEEPS_ORDER.set(None);
        let shape = |files: &[(String, String, String)]| {
            files
                .iter()
                .map(|(me, folder, text)| (me.clone(), folder.clone(), text.lines().count()))
                .collect::<Vec<_>>()
        };
        // dev: the answer in its inbox and its record; qa: its record of the answer.
        let folders: Vec<_> = written
            .iter()
            .map(|(me, f, _)| format!("{me} {f}"))
            .collect();
        assert_eq!(
            folders,
            ["dev inbox", "dev outbox", "qa outbox"],
            "{written:?}"
        );
        assert_eq!(shape(&written), shape(&synced_each));
    }

    #[test]
    fn in_order_defers_the_fsync_to_the_end_and_elsewhere_syncs_at_once() {
        let dir = tempfile::tempdir().unwrap();
        let missing = dir.path().join("gone");
        // Out of order, a folder that cannot be fsynced fails at the change itself.
        assert!(NameChanges::new(false).changed(&missing).is_err());
        // In order, only the last folder is fsynced, at the end.
        let mut chain = NameChanges::new(true);
        chain.changed(&missing).unwrap();
        chain.changed(dir.path()).unwrap();
        chain.sync().unwrap();
        let mut broken = NameChanges::new(true);
        broken.changed(&missing).unwrap();
        assert!(broken.sync().is_err());
    }
}
