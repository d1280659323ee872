//! What FileBox refuses of a team's files and why an inbox operation fails: the size limit,
//! a refused file, and [`InboxError`], each naming the file. Shared by the inbox, the roster and
//! the reading of team files, so none of them depends on another for its errors.

use std::io;
use std::path::PathBuf;

use super::lock::LockError;
use super::message::InboxParseError;

/// The largest team file read or written: Claude Code's inboxes are a few KiB to a few MiB
/// (current versions prune what was delivered; one message is at most a FileBox body, 10 MiB
/// by default), while the bridge reads every bridged inbox once a second, so a planted 300 MB
/// file would cost its size in memory twice over on every pass.
pub const MAX_TEAM_FILE_BYTES: u64 = 16 << 20;

/// A team file FileBox would not read (or write): a link (at it or at a folder on the way), a
/// FIFO, a device, a folder, or one larger than [`MAX_TEAM_FILE_BYTES`]. It is left as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {}", self.explanation())]
pub struct Refused {
    pub path: PathBuf,
    /// What the file is (`it is a FIFO, not a regular file`).
    pub reason: String,
}

impl Refused {
    /// The refusal without the path: why, and what to do.
    pub fn explanation(&self) -> String {
        format!(
            "refused: {}; FileBox reads only a regular file of at most {} MiB, not through a \
             link: replace it with Claude Code's file or remove it",
            self.reason,
            MAX_TEAM_FILE_BYTES >> 20
        )
    }
}

/// Why an inbox operation failed; each names the file.
#[derive(Debug, thiserror::Error)]
pub enum InboxError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error(
        "{path}: the inbox is not readable ({reason}); it was left as it is, fix or remove it by hand"
    )]
    Unreadable {
        path: PathBuf,
        reason: InboxParseError,
    },
    #[error(transparent)]
    Refused(#[from] Refused),
    #[error("{path}: {}", full(*.size))]
    Full { path: PathBuf, size: usize },
    #[error(transparent)]
    Lock(#[from] LockError),
    #[error("{path}: not written: Claude Code would refuse this entry: {reason}")]
    Invalid { path: PathBuf, reason: String },
    #[error("{path}: {reason}")]
    Setting { path: PathBuf, reason: String },
    #[error("team {name:?} has ended: its folder under {teams} is gone; nothing was written")]
    TeamGone { name: String, teams: PathBuf },
}

/// Why a change that would make an inbox `size` bytes was not written, and what happens next.
pub(crate) fn full(size: usize) -> String {
    format!(
        "not written: the inbox would hold {size} bytes, more than the {} MiB FileBox reads; \
         the message waits in FileBox and is tried again once Claude Code has taken (and \
         pruned) what is there",
        MAX_TEAM_FILE_BYTES >> 20
    )
}
