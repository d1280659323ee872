//! The only code that writes mailbox files: staging in `tmp/`, atomic publication, safe reads,
//! moves decided by one rename and rewrites in place, recovery of what a killed process left,
//! locks, and each folder's change journal.

pub(crate) mod checked_dirs;
pub(crate) mod held_here;
pub(crate) mod journal;
mod moves;

pub use moves::{Recovery, Unsynced};
pub(crate) use moves::{
    Copies, Destination, Lock, Moved, Rewritten, already_exists, create_private_dir,
    create_private_file, is_not_found, lock_is_held, make_private, modified, move_message,
    publish_new, publish_replace, publish_replace_unsynced, read_prefix, read_regular,
    read_regular_in, recover, refuse_link, rewrite_in_place, wait_for_moves, wait_for_release,
    with_folder_lock, with_lock, write_file_atomic,
};
