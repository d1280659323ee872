//! A message's status report: the status of the copy that speaks for it in my mailbox and,
//! for my outbox record, how far each recipient got (`crate::mailbox::status` says what one
//! copy's folder means); `read` is an inbox copy with a read receipt of its current version
//! (`crate::feed::receipt`).

use crate::agent::AgentId;
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::{Envelope, MessageRef, Status};
use crate::mailroom::{Mailroom, Unusable};
use crate::message::{Message, field};

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
    /// (`crate::mailbox::copy`). When that copy is my outbox record, the status is how far its
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
                        refused: crate::mail::travelled::refusal(&copy, &theirs),
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

    /// A recipient's copy's status. The inbox of an agent on another machine is this machine's
    /// outgoing spool: a copy there is `pending` (in flight) until that agent's hub sent its
    /// delivery receipt.
    fn recipient_status(&self, agent: &AgentId, copy: &Envelope, message: &Message) -> Status {
        let status = copy_status(copy, message, agent);
        if self.is_remote(agent)
            && status == Status::Delivered
            && !crate::mail::travelled::received(message)
        {
            Status::Pending
        } else {
            status
        }
    }
}

/// Whether `owner`'s copy is an answer to `owner`'s own message: out of the outbox (in the
/// inbox it came back to, or `done/` for a person's request), written by `owner`, its latest
/// conversation entry someone else's. The status is the sender's view, so such a message is
/// replied, whatever the copy's own folder says.
fn answered(envelope: &Envelope, message: &Message, owner: &AgentId) -> bool {
    envelope.folder != Folder::Outbox
        && crate::mailbox::copy::sender(message) == owner.as_str()
        && message
            .conversation
            .last()
            .is_some_and(|last| last.from != owner.as_str())
}

/// The status of a copy read whole (the outbox rule needs the conversation, `read` the
/// processing history).
pub fn copy_status(envelope: &Envelope, message: &Message, owner: &AgentId) -> Status {
    let last_from = message.conversation.last().map(|c| c.from.as_str());
    match Status::of_copy(envelope.folder, &message.header, last_from, owner.as_str()) {
        Status::Delivered
            if envelope.folder == Folder::Inbox
                && crate::feed::receipt::read_by(message, owner.as_str()).is_some() =>
        {
            Status::Read
        }
        status => status,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::{Header, MessageType};

    /// qa's copy of its own request, in `folder`, with conversation entries by `said`.
    fn qa_copy(folder: Folder, said: &[&str]) -> (Envelope, Message) {
        let mut h = Header::new(&MessageType::new("ER").unwrap(), "t");
        h.set(field::MESSAGE_ID, "x");
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
}
