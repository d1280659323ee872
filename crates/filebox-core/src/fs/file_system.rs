//! What the file system under a folder promises, asked once per device and process: whether
//! it commits name changes in order (`durable_names`), whether a change of a directory's
//! entries always moves its ctime (`checked_dirs`); and a file's ctime as one number.

use std::collections::HashMap;
use std::fs;
use std::os::unix::fs::MetadataExt;
use std::path::Path;
use std::sync::{LazyLock, Mutex, PoisonError};

/// `statfs` magic numbers of the local Linux file systems FileBox knows: ext2/3/4 (one magic;
/// in order only with a journal), xfs (always logged), btrfs, tmpfs (nothing survives a power
/// cut, so any order will do).
const EXT4: u64 = 0xEF53;
const XFS: u64 = 0x5846_5342;
const BTRFS: u64 = 0x9123_683E;
const TMPFS: u64 = 0x0102_1994;

/// What one device's file system was found to be.
#[derive(Debug, Clone, Copy)]
struct Promises {
    in_order: bool,
    local: bool,
}

static DEVICES: LazyLock<Mutex<HashMap<u64, Promises>>> = LazyLock::new(Mutex::default);

fn promises(device: u64, dir: &Path) -> Promises {
    let mut devices = DEVICES.lock().unwrap_or_else(PoisonError::into_inner);
    *devices.entry(device).or_insert_with(|| {
        let kind = rustix::fs::statfs(dir)
            .ok()
            .and_then(|stat| u64::try_from(stat.f_type).ok());
        Promises {
            in_order: match kind {
                Some(XFS | TMPFS) => true,
                Some(EXT4) => has_journal(device),
                _ => false,
            },
            local: matches!(kind, Some(EXT4 | XFS | BTRFS | TMPFS)),
        }
    })
}

/// Whether the file system of `device` (which holds `dir`) commits metadata in order: xfs,
/// tmpfs, and ext4 with a journal. Unknown (statfs failed): no.
pub(crate) fn in_order(device: u64, dir: &Path) -> bool {
    promises(device, dir).in_order
}

/// Whether every change of a directory's entries on `device` moves the directory's ctime as
/// this process sees it: a local Linux file system. On a network or FUSE file system another
/// machine's change may reach this one without (attribute caches, servers that keep their own
/// times), so nothing is trusted for its unchanged ctime there.
pub(crate) fn moves_ctime(device: u64, dir: &Path) -> bool {
    promises(device, dir).local
}

/// Whether the ext4 file system on `device` runs a journal: the kernel lists each journal in
/// `/proc/fs/jbd2/` as `<block device>-<journal inode>` (an ext4 made or mounted without one
/// fsyncs each file and folder on its own, in no order).
fn has_journal(device: u64) -> bool {
    let block = format!(
        "/sys/dev/block/{}:{}",
        rustix::fs::major(device),
        rustix::fs::minor(device)
    );
    let Some(name) = fs::read_link(block)
        .ok()
        .and_then(|link| Some(link.file_name()?.to_str()?.to_owned()))
    else {
        return false;
    };
    fs::read_dir("/proc/fs/jbd2").is_ok_and(|journals| {
        journals.flatten().any(|journal| {
            journal
                .file_name()
                .to_str()
                .and_then(|n| n.strip_prefix(name.as_str()))
                .is_some_and(|rest| rest.starts_with('-'))
        })
    })
}

/// A file's inode change time in nanoseconds.
pub(crate) fn ctime_ns(meta: &fs::Metadata) -> i64 {
    meta.ctime() * 1_000_000_000 + meta.ctime_nsec()
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::os::unix::fs::MetadataExt;

    fn device(dir: &Path) -> u64 {
        fs::metadata(dir).unwrap().dev()
    }

    #[test]
    fn tmpfs_is_local_and_in_order_and_sysfs_is_neither() {
        let shm = Path::new("/dev/shm");
        assert!(in_order(device(shm), shm));
        assert!(moves_ctime(device(shm), shm));
        let sysfs = Path::new("/sys/kernel");
        assert!(!in_order(device(sysfs), sysfs));
        assert!(!moves_ctime(device(sysfs), sysfs));
    }
}
