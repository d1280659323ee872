//! `Folder`: the visible states of a mailbox (inbox, outbox, done, cancel, hold).

use std::fmt;
use std::str::FromStr;

use crate::error::Error;

/// One of a mailbox's visible folders.
#[derive(
    Debug, Clone, Copy, PartialEq, Eq, Hash, PartialOrd, Ord, serde::Serialize, serde::Deserialize,
)]
#[serde(rename_all = "lowercase")]
pub enum Folder {
    Inbox,
    Outbox,
    Done,
    Cancel,
    Hold,
}

impl Folder {
    /// Every folder, in the order a search for a message id looks through them.
    pub const ALL: [Folder; 5] = [
        Folder::Inbox,
        Folder::Hold,
        Folder::Outbox,
        Folder::Done,
        Folder::Cancel,
    ];

    pub fn as_str(self) -> &'static str {
        match self {
            Folder::Inbox => "inbox",
            Folder::Outbox => "outbox",
            Folder::Done => "done",
            Folder::Cancel => "cancel",
            Folder::Hold => "hold",
        }
    }
}

impl fmt::Display for Folder {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl FromStr for Folder {
    type Err = Error;
    fn from_str(value: &str) -> Result<Self, Error> {
        Folder::ALL
            .into_iter()
            .find(|folder| folder.as_str() == value)
            .ok_or_else(|| {
                Error::invalid(
                    "folder",
                    value,
                    "expected inbox, outbox, done, cancel or hold",
                )
            })
    }
}
