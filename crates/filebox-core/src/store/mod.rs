//! The only code that writes mailbox files: staging in `tmp/`, atomic publication, safe reads,
//! moves decided by one rename and rewrites in place, recovery of what a killed process left,
//! locks, and each folder's change journal.

pub(crate) mod checked_dirs;
pub(crate) mod held_here;
pub(crate) mod journal;
mod lock;
mod moves;
mod publish;
mod read;
mod recovery;
mod rewrite;
mod staging;
#[cfg(test)]
mod tests;

pub(crate) use lock::{Lock, lock_is_held, wait_for_release, with_folder_lock, with_lock};
pub(crate) use moves::{Destination, Moved, move_message};
pub use publish::Unsynced;
pub(crate) use publish::{
    Copies, publish_new, publish_replace, publish_replace_unsynced, write_file_atomic,
};
pub(crate) use read::{
    already_exists, is_not_found, modified, read_prefix, read_regular, read_regular_in, refuse_link,
};
pub use recovery::Recovery;
pub(crate) use recovery::{recover, wait_for_moves};
pub(crate) use rewrite::{Rewritten, rewrite_in_place};
pub(crate) use staging::{create_private_dir, create_private_file, make_private};
