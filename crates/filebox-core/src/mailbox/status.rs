//! A message's status (pending → delivered → read → processing → replied / failed, and
//! obsolete), derived from the folder a copy sits in, so that the two never disagree; only
//! `obsolete`, which no folder expresses, is written as a `Status` header (by a fork). What a
//! message's status is across its copies and recipients is `crate::mail::status`.

use crate::choice::choice;
use crate::folder::Folder;
use crate::message::{Header, field};

choice! {
    /// Where a message stands.
    pub enum Status("status") {
        // Addressed to an agent whose mailbox holds no copy (yet), or, for an agent on
        // another machine, handed to NATS but not yet received by its hub (in flight).
        Pending => "pending",
        // In the holder's inbox (or, for the sender's record, handed over).
        Delivered => "delivered",
        // In the holder's inbox, put in front of its reader (a read receipt).
        Read => "read",
        // On hold: the holder is working on it.
        Processing => "processing",
        // Answered or resolved.
        Replied => "replied",
        // Rejected.
        Failed => "failed",
        // Superseded by a fork of its thread; kept, never deleted.
        Obsolete => "obsolete",
    }
}

impl Status {
    /// The status of one copy: `Status: obsolete` wins; otherwise the folder says it. An outbox
    /// copy is a record of what its owner sent: `replied` when the owner wrote its latest
    /// conversation entry, else `delivered`.
    pub fn of_copy(
        folder: Folder,
        header: &Header,
        last_from: Option<&str>,
        owner: &str,
    ) -> Status {
        if header
            .get(field::STATUS)
            .and_then(Status::parse)
            .is_some_and(|s| s == Status::Obsolete)
        {
            return Status::Obsolete;
        }
        match folder {
            Folder::Inbox => Status::Delivered,
            Folder::Hold => Status::Processing,
            Folder::Done => Status::Replied,
            Folder::Cancel => Status::Failed,
            Folder::Outbox if last_from == Some(owner) => Status::Replied,
            Folder::Outbox => Status::Delivered,
        }
    }

    /// How far a message got across several recipients: the least advanced of them
    /// (a message is replied once every recipient answered; one rejection fails it).
    pub(crate) fn combine(statuses: impl IntoIterator<Item = Status>) -> Option<Status> {
        let rank = |s: &Status| match s {
            Status::Pending => 0,
            Status::Delivered => 1,
            Status::Read => 2,
            Status::Processing => 3,
            Status::Failed => 4,
            Status::Replied => 5,
            Status::Obsolete => 6,
        };
        statuses.into_iter().min_by_key(rank)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::MessageType;

    fn header(status: Option<&str>) -> Header {
        let mut h = Header::new(&MessageType::new("ER").unwrap(), "t");
        h.set(field::MESSAGE_ID, "x");
        if let Some(s) = status {
            h.set(field::STATUS, s);
        }
        h
    }

    #[test]
    fn the_folder_decides_unless_obsolete() {
        let h = header(None);
        assert_eq!(
            Status::of_copy(Folder::Inbox, &h, None, "a"),
            Status::Delivered
        );
        assert_eq!(
            Status::of_copy(Folder::Hold, &h, None, "a"),
            Status::Processing
        );
        assert_eq!(
            Status::of_copy(Folder::Done, &h, None, "a"),
            Status::Replied
        );
        assert_eq!(
            Status::of_copy(Folder::Cancel, &h, None, "a"),
            Status::Failed
        );
        assert_eq!(
            Status::of_copy(Folder::Outbox, &h, None, "a"),
            Status::Delivered
        );
        assert_eq!(
            Status::of_copy(Folder::Outbox, &h, Some("a"), "a"),
            Status::Replied
        );
        let obsolete = header(Some("Obsolete"));
        assert_eq!(
            Status::of_copy(Folder::Inbox, &obsolete, None, "a"),
            Status::Obsolete
        );
        // A hand-written status that the folder contradicts is not believed.
        assert_eq!(
            Status::of_copy(Folder::Inbox, &header(Some("replied")), None, "a"),
            Status::Delivered
        );
    }

    #[test]
    fn several_recipients_are_as_far_as_the_slowest() {
        use Status::*;
        assert_eq!(Status::combine([Replied, Processing]), Some(Processing));
        assert_eq!(Status::combine([Replied, Failed]), Some(Failed));
        assert_eq!(Status::combine([Replied, Pending]), Some(Pending));
        assert_eq!(Status::combine([]), None);
    }
}
