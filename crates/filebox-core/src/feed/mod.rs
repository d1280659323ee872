//! Following mail as it comes: the change feed of a mailbox's folders, a reader's mark in a
//! folder's changes, the wait cursor and waiting for mail, read receipts and read marks.

mod changes;
pub(crate) mod cursor;
pub(crate) mod mark;
pub(crate) mod read_marks;
pub mod receipt;
pub(crate) mod watch;

pub use changes::{Change, ChangeKind, Feed, Wake};
