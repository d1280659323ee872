//! The file system under a mailbox: paths resolved beneath a folder, never through a symlink;
//! what a device promises; which folder fsyncs make a write's names durable, and the fsyncs
//! threads share; files other programs keep, replaced beneath their folder.

pub(crate) mod beneath;
pub mod confined;
pub(crate) mod durable_names;
pub(crate) mod file_system;
pub mod group_commit;
