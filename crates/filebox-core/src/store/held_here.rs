//! The staging files this process holds locked, by path, so its own recovery of a `tmp/`
//! passes them by without opening and locking each (with many sends in flight, a recipient's
//! `tmp/` holds one per send, and every writer's open of the mailbox tried them all).

use std::collections::HashSet;
use std::path::{Path, PathBuf};
use std::sync::{LazyLock, Mutex};

static HELD: LazyLock<Mutex<HashSet<PathBuf>>> = LazyLock::new(Default::default);

fn held() -> std::sync::MutexGuard<'static, HashSet<PathBuf>> {
    HELD.lock().unwrap_or_else(|e| e.into_inner())
}

/// A path registered as held by this process until dropped: taken before the file is
/// created, given back after its lock is released.
#[derive(Debug)]
pub(crate) struct HeldHere(PathBuf);

impl HeldHere {
    pub(crate) fn new(path: &Path) -> HeldHere {
        held().insert(path.to_owned());
        HeldHere(path.to_owned())
    }
}

impl Drop for HeldHere {
    fn drop(&mut self) {
        held().remove(&self.0);
    }
}

/// Whether this process holds the staging file at `path` (a live writer: nothing to recover).
pub(crate) fn is_held_here(path: &Path) -> bool {
    held().contains(path)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_path_is_held_while_its_guard_lives() {
        let path = Path::new("/nowhere/tmp/abc.staged");
        let guard = HeldHere::new(path);
        assert!(is_held_here(path));
        drop(guard);
        assert!(!is_held_here(path));
    }
}
