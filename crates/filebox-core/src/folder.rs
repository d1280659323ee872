//! `Folder`: the visible states of a mailbox (inbox, outbox, done, cancel, hold).

use crate::choice::choice;

choice! {
    /// One of a mailbox's visible folders.
    pub enum Folder("folder") {
        // New mail, not yet handled.
        Inbox => "inbox",
        // What I sent (one file per conversation).
        Outbox => "outbox",
        // Resolved or answered.
        Done => "done",
        // Rejected.
        Cancel => "cancel",
        // On hold: being worked on.
        Hold => "hold",
    }
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
}
