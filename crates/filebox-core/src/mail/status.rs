//! A message's status (pending → delivered → read → processing → replied / failed, and
//! obsolete), derived from the folder each copy sits in, so that the two never disagree; only
//! `obsolete`, which no folder expresses, is written as a `Status` header (by a fork), and
//! `read` is an inbox copy with a read receipt of its current version (`crate::receipt`).

use crate::agent::AgentId;
use crate::choice::choice;
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::{Envelope, MessageRef};
use crate::mailroom::{Mailroom, Unusable};
use crate::message::{Header, Message, field};

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
    fn combine(statuses: impl IntoIterator<Item = Status>) -> Option<Status> {
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

/// One recipient's copy of a message.
#[derive(Debug, Clone)]
pub struct RecipientStatus {
    pub agent: AgentId,
    /// Where its copy is; `None` when it holds none.
    pub folder: Option<Folder>,
    pub status: Status,
    /// For an agent on another machine whose hub refused the mail: why (its copy is in
    /// cancel/, failed).
    pub refused: Option<String>,
}

/// What `status` reports about a message.
#[derive(Debug, Clone)]
pub struct StatusReport {
    /// My copy.
    pub envelope: Envelope,
    /// Mine, or for a message I sent, how far its recipients got.
    pub status: Status,
    /// My copy's own status.
    pub copy_status: Status,
    /// The recipients of the copy (To and CC), and where each one's copy is.
    pub recipients: Vec<RecipientStatus>,
    /// Recipients whose mailbox could not be read: their copies' status is unknown.
    pub unusable: Vec<Unusable>,
}

impl Mailroom {
    /// The status of a message of my mailbox, read from the copy that speaks for it
    /// (`crate::copy`). When that copy is my outbox record, the status is how far its
    /// recipients got, each read from the copy that speaks for it in their mailbox; when it is an
    /// answer that came back to me, who sent the message, it is replied ([`answered`]).
    pub fn status(&self, reference: &MessageRef) -> Result<StatusReport> {
        let mine = self.my_mailbox()?;
        let (envelope, message) = mine.speaking_copy(reference, &Folder::ALL)?;
        let mine_status = copy_status(&envelope, &message, self.me());
        let mut recipients = Vec::new();
        let mut unusable = Vec::new();
        if envelope.folder == Folder::Outbox {
            let header = &envelope.header;
            let named = header
                .list(field::RECEIVER)
                .into_iter()
                .chain(header.list(field::CC));
            for name in named {
                let Ok(agent) = AgentId::new(&name) else {
                    continue;
                };
                if agent == *self.me()
                    || recipients
                        .iter()
                        .any(|r: &RecipientStatus| r.agent == agent)
                {
                    continue;
                }
                // Under my copy's name: one open per folder, not a look at each folder.
                let found = self
                    .mailbox_to_read(&agent)
                    .and_then(|m| m.speaking_copy_named(header.id(), &envelope.file, &Folder::ALL));
                match found {
                    Ok((copy, theirs)) => recipients.push(RecipientStatus {
                        status: self.recipient_status(&agent, &copy, &theirs),
                        folder: Some(copy.folder),
                        refused: crate::travelled::refusal(&copy, &theirs),
                        agent,
                    }),
                    // No copy: not delivered (yet).
                    Err(Error::NotFound { .. }) => recipients.push(RecipientStatus {
                        agent,
                        folder: None,
                        status: Status::Pending,
                        refused: None,
                    }),
                    Err(e) => unusable.push(Unusable::new(&agent, &e)),
                }
            }
        }
        let status = match mine_status {
            Status::Obsolete => Status::Obsolete,
            _ if answered(&envelope, &message, self.me()) => Status::Replied,
            _ => Status::combine(recipients.iter().map(|r| r.status)).unwrap_or(mine_status),
        };
        Ok(StatusReport {
            envelope,
            status,
            copy_status: mine_status,
            recipients,
            unusable,
        })
    }
}

/// Whether `owner`'s copy is an answer to `owner`'s own message: out of the outbox (in the
/// inbox it came back to, or `done/` for a person's request), written by `owner`, its latest
/// conversation entry someone else's. The status is the sender's view, so such a message is
/// replied, whatever the copy's own folder says.
fn answered(envelope: &Envelope, message: &Message, owner: &AgentId) -> bool {
    envelope.folder != Folder::Outbox
        && crate::copy::sender(message) == owner.as_str()
        && message
            .conversation
            .last()
            .is_some_and(|last| last.from != owner.as_str())
}

impl Mailroom {
    /// A recipient's copy's status. The inbox of an agent on another machine is this machine's
    /// outgoing spool: a copy there is `pending` (in flight) until that agent's hub sent its
    /// delivery receipt.
    fn recipient_status(&self, agent: &AgentId, copy: &Envelope, message: &Message) -> Status {
        let status = copy_status(copy, message, agent);
        if self.is_remote(agent)
            && status == Status::Delivered
            && !crate::travelled::received(message)
        {
            Status::Pending
        } else {
            status
        }
    }
}

impl Mailroom {
    /// Whether `agent` lives on another machine's hub (`name@hub`): its mailbox here is a
    /// stand-in whose inbox is the outgoing spool.
    pub fn is_remote(&self, agent: &AgentId) -> bool {
        self.config()
            .agent(agent)
            .is_ok_and(|entry| entry.hub().is_some())
    }
}

/// The status of a copy read whole (the outbox rule needs the conversation, `read` the
/// processing history).
pub fn copy_status(envelope: &Envelope, message: &Message, owner: &AgentId) -> Status {
    let last_from = message.conversation.last().map(|c| c.from.as_str());
    match Status::of_copy(envelope.folder, &message.header, last_from, owner.as_str()) {
        Status::Delivered
            if envelope.folder == Folder::Inbox
                && crate::receipt::read_by(message, owner.as_str()).is_some() =>
        {
            Status::Read
        }
        status => status,
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

    /// qa's copy of its own request, in `folder`, with conversation entries by `said`.
    fn qa_copy(folder: Folder, said: &[&str]) -> (Envelope, Message) {
        let mut h = header(None);
        h.set(field::ORIGINAL_SENDER, "qa");
        let conversation = said
            .iter()
            .map(|from| crate::message::ConversationEntry {
                timestamp: "2026-01-01T00:00:00Z".into(),
                from: (*from).to_owned(),
                to: "qa".into(),
                kind: "DIS".into(),
                body: "b".into(),
            })
            .collect();
        let envelope = Envelope {
            folder,
            file: crate::message::FileName::new("20260101T000000-ER-t-00000000.md").unwrap(),
            path: folder.as_str().into(),
            header: h.clone(),
        };
        let message = Message {
            header: h,
            body: "b".into(),
            conversation,
            processing: Vec::new(),
        };
        (envelope, message)
    }

    #[test]
    fn an_answer_back_to_the_sender_makes_its_request_replied() {
        let qa = AgentId::new("qa").unwrap();
        let dev = AgentId::new("dev").unwrap();
        let is = |(envelope, message): (Envelope, Message), owner: &AgentId| {
            answered(&envelope, &message, owner)
        };
        // The answer in qa's inbox, or in done/ for a person's request.
        assert!(is(qa_copy(Folder::Inbox, &["dev"]), &qa));
        assert!(is(qa_copy(Folder::Done, &["dev", "qa", "dev"]), &qa));
        // qa's record of what it sent, qa's own latest word, or someone else's message.
        assert!(!is(qa_copy(Folder::Outbox, &["dev"]), &qa));
        assert!(!is(qa_copy(Folder::Inbox, &["dev", "qa"]), &qa));
        assert!(!is(qa_copy(Folder::Inbox, &[]), &qa));
        assert!(!is(qa_copy(Folder::Inbox, &["qa"]), &dev));
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
