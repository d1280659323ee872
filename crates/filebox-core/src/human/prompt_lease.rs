//! The lease that keeps a relayed permission prompt open: an exclusive `flock` on
//! `.filebox/prompts/<message-id>.lease` in the human's mailbox, taken by the relay before the
//! prompt (`PRM`) is written and held for as long as it waits for the answer. The kernel drops
//! it with the process, so a `filebox mcp` killed with a prompt open leaves a prompt whose
//! lease nobody holds: nobody is waiting for its answer. A `PRM` file written by anything but
//! the relay (planted, imported, arrived from another machine) has no lease at all. Either way
//! it is not an open prompt, and whoever sees it first withdraws it (`crate::human::permission`).

use std::path::PathBuf;

use crate::error::Result;
use crate::fs::beneath::{self, Place};
use crate::mailbox::Mailbox;
use crate::store::{self, Lock};

/// The folder of `.filebox/` that holds the leases.
const FOLDER: &str = "prompts";

/// A lease held by this process until dropped; the file goes with it.
#[derive(Debug)]
pub(crate) struct Lease {
    mailbox: PathBuf,
    path: PathBuf,
    lock: Option<Lock>,
}

impl Lease {
    /// Take the lease of prompt `id` in `human`'s mailbox (before the prompt is written, so no
    /// one ever sees it open without its lease).
    pub(crate) fn take(human: &Mailbox, id: &uuid::Uuid) -> Result<Lease> {
        let path = lease_path(human, id);
        let lock = Lock::take(Place::new(human.root(), &path))?;
        Ok(Lease {
            mailbox: human.root().to_owned(),
            path,
            lock: Some(lock),
        })
    }
}

impl Drop for Lease {
    /// The file is removed while still locked, then the lock goes: a look in between finds no
    /// lease, which is right, since nobody waits any more.
    fn drop(&mut self) {
        let _ = beneath::remove(Place::new(&self.mailbox, &self.path));
        drop(self.lock.take());
    }
}

/// Whether a live relay holds the lease of prompt `id` (a Message ID from a file, so anything:
/// what is not a UUID names no lease).
pub(crate) fn is_held(human: &Mailbox, id: &str) -> Result<bool> {
    let Ok(id) = uuid::Uuid::parse_str(id) else {
        return Ok(false);
    };
    let path = lease_path(human, &id);
    store::lock_is_held(Place::new(human.root(), &path))
}

/// Wait until nobody holds the lease of prompt `id` (at once when there is none), then remove
/// its file (a relay killed while it waited leaves the file behind).
pub(crate) fn wait_until_free(human: &Mailbox, id: &str) -> Result<()> {
    let Ok(id) = uuid::Uuid::parse_str(id) else {
        return Ok(());
    };
    let path = lease_path(human, &id);
    store::wait_for_release(Place::new(human.root(), &path))?;
    forget(human, &path);
    Ok(())
}

/// Remove the lease file of prompt `id`, which nobody holds any more (its relay is gone).
pub(crate) fn remove_stale(human: &Mailbox, id: &str) {
    if let Ok(id) = uuid::Uuid::parse_str(id) {
        forget(human, &lease_path(human, &id));
    }
}

fn forget(human: &Mailbox, path: &std::path::Path) {
    // Already gone (another looker removed it) is as good.
    let _ = beneath::remove(Place::new(human.root(), path));
}

fn lease_path(human: &Mailbox, id: &uuid::Uuid) -> PathBuf {
    human
        .state_dir()
        .join(FOLDER)
        .join(format!("{}.lease", id.hyphenated()))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_lease_is_held_while_its_holder_keeps_it_and_leaves_no_file() {
        let dir = tempfile::tempdir().unwrap();
        let human =
            Mailbox::open(crate::AgentId::new("me").unwrap(), dir.path().join("me")).unwrap();
        let id = uuid::Uuid::new_v4();
        let text = id.to_string();
        assert!(!is_held(&human, &text).unwrap(), "no lease yet");
        let lease = Lease::take(&human, &id).unwrap();
        assert!(is_held(&human, &text).unwrap());
        assert!(!is_held(&human, "../../etc/passwd").unwrap());
        drop(lease);
        assert!(!is_held(&human, &text).unwrap());
        assert!(!lease_path(&human, &id).exists());
        wait_until_free(&human, &text).unwrap();
    }
}
