//! What travels through NATS: one JetStream stream `FILEBOX` over `filebox.>`, work-queue
//! retention (a message stays until its destination hub acknowledges it, however long that
//! hub is away). Subjects name the destination hub first and the sending hub second, so NATS
//! permissions can say who may publish what (`filebox.*.<me>.>`) and consume what
//! (`filebox.<me>.>`):
//!
//! - `filebox.<to-hub>.<from-hub>.mail.<agent>`: a whole message file for `agent` of `to-hub`
//!   (header `Filebox-File` = its file name; `Nats-Msg-Id` = destination, Message ID and
//!   version, so the stream's duplicate window drops a retried publish);
//! - `filebox.<to-hub>.<from-hub>.attachment.<agent>`: one attachment of a mail for `agent`,
//!   published just before the mail (headers `Filebox-Message-Id` and `Filebox-File` = its
//!   name), so the receiver has it on disk when the file that links to it appears;
//! - `filebox.<to-hub>.<from-hub>.event`: a small JSON [`Event`] (a copy's new state, an
//!   obsolete mark, a question withdrawn, a delivery receipt, a refusal).

use serde::{Deserialize, Serialize};
use sha2::{Digest, Sha256};

use crate::names;

/// The stream's name.
pub(crate) const STREAM: &str = "FILEBOX";
/// Every subject of the stream starts with this token.
pub(crate) const PREFIX: &str = "filebox";
/// The header carrying a mail's file name, or an attachment's.
pub(crate) const FILE_HEADER: &str = "Filebox-File";
/// The header carrying the Message ID an attachment belongs to.
pub(crate) const MESSAGE_ID_HEADER: &str = "Filebox-Message-Id";

/// The subject of mail for `agent` (its name on `to`) from hub `from`.
pub(crate) fn mail_subject(to: &str, from: &str, agent: &str) -> String {
    format!("{PREFIX}.{to}.{from}.mail.{}", names::subject_token(agent))
}

/// The subject of attachments of mail for `agent` (its name on `to`) from hub `from`.
pub(crate) fn attachment_subject(to: &str, from: &str, agent: &str) -> String {
    format!(
        "{PREFIX}.{to}.{from}.attachment.{}",
        names::subject_token(agent)
    )
}

/// The subject of events for hub `to` from hub `from`.
pub(crate) fn event_subject(to: &str, from: &str) -> String {
    format!("{PREFIX}.{to}.{from}.event")
}

/// Everything addressed to hub `me`.
pub(crate) fn filter_for(me: &str) -> String {
    format!("{PREFIX}.{me}.>")
}

/// The durable consumer of hub `me`.
pub(crate) fn consumer_for(me: &str) -> String {
    format!("hub-{me}")
}

/// What a subject addressed to this hub carries.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Addressed {
    Mail { from: String, agent: String },
    Attachment { from: String, agent: String },
    Event { from: String },
}

/// Read a subject of the stream addressed to `me`.
pub(crate) fn addressed(subject: &str, me: &str) -> Option<Addressed> {
    let tokens: Vec<&str> = subject.split('.').collect();
    match tokens.as_slice() {
        [PREFIX, to, from, "mail", agent] if *to == me => Some(Addressed::Mail {
            from: (*from).to_owned(),
            agent: (*agent).to_owned(),
        }),
        [PREFIX, to, from, "attachment", agent] if *to == me => Some(Addressed::Attachment {
            from: (*from).to_owned(),
            agent: (*agent).to_owned(),
        }),
        [PREFIX, to, from, "event"] if *to == me => Some(Addressed::Event {
            from: (*from).to_owned(),
        }),
        _ => None,
    }
}

/// A state change of a copy, or a fork's obsolete mark.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(tag = "kind", rename_all = "snake_case")]
pub(crate) enum Event {
    /// `agent` (a wire name of the sending hub) now has its copy in `folder` (hold, done or
    /// cancel), as `markdown` (names on the wire).
    State {
        agent: String,
        folder: String,
        file: String,
        markdown: String,
    },
    /// A fork made the message with this id obsolete.
    Obsolete { id: String },
    /// A delivery receipt: `agent` (a wire name of the sending hub) has the version of
    /// message `id` with `conversation` entries in its mailbox, on disk, under the name `file`
    /// it travelled with (absent from hubs of older versions).
    Received {
        agent: String,
        id: String,
        conversation: usize,
        #[serde(default, skip_serializing_if = "Option::is_none")]
        file: Option<String>,
    },
    /// A question withdrawn: `asker` (a wire name of the sending hub) stopped waiting for the
    /// answer of `agent` (of the receiving hub) to question `id`; `details` say why.
    Withdrawn {
        asker: String,
        agent: String,
        id: String,
        details: String,
    },
    /// A refusal: the hub of `agent` (a wire name of the sending hub) refused the version of
    /// message `id` with `conversation` entries (no such agent there, a malformed file), for
    /// `reason`; it keeps the file in its `federation/refused`.
    Refused {
        agent: String,
        id: String,
        conversation: usize,
        reason: String,
    },
}

/// The `Nats-Msg-Id` of a mail: destination, Message ID, and the version (conversation length
/// and a digest of the file as sent).
pub(crate) fn mail_id(
    to: &str,
    agent: &str,
    id: &str,
    conversation: usize,
    markdown: &str,
) -> String {
    format!(
        "{to}.{agent}.{id}.{conversation}-{}",
        digest(markdown.as_bytes())
    )
}

/// The `Nats-Msg-Id` of an attachment of message `id` for `agent` of hub `to`.
pub(crate) fn attachment_id(to: &str, agent: &str, id: &str, name: &str, bytes: &[u8]) -> String {
    format!("{to}.{agent}.{id}.attachment.{name}-{}", digest(bytes))
}

/// The `Nats-Msg-Id` of an event to hub `to`.
pub(crate) fn event_id(to: &str, event: &Event) -> String {
    match event {
        Event::State {
            agent,
            folder,
            markdown,
            ..
        } => format!(
            "{to}.state.{agent}.{folder}.{}",
            digest(markdown.as_bytes())
        ),
        Event::Obsolete { id } => format!("{to}.obsolete.{id}"),
        Event::Received {
            agent,
            id,
            conversation,
            ..
        } => format!("{to}.received.{agent}.{id}.{conversation}"),
        Event::Refused {
            agent,
            id,
            conversation,
            ..
        } => format!("{to}.refused.{agent}.{id}.{conversation}"),
        Event::Withdrawn { agent, id, .. } => format!("{to}.withdrawn.{agent}.{id}"),
    }
}

/// The first 12 hex digits of the SHA-256 of `bytes`.
fn digest(bytes: &[u8]) -> String {
    Sha256::digest(bytes)
        .iter()
        .take(6)
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn subjects_are_read_back_only_by_their_destination() {
        let mail = mail_subject("ci-1", "laptop", "bob.smith");
        assert_eq!(
            addressed(&mail, "ci-1"),
            Some(Addressed::Mail {
                from: "laptop".into(),
                agent: "bob~smith".into()
            })
        );
        assert_eq!(addressed(&mail, "laptop"), None);
        assert_eq!(
            addressed(&event_subject("ci-1", "laptop"), "ci-1"),
            Some(Addressed::Event {
                from: "laptop".into()
            })
        );
        assert_eq!(
            addressed(&attachment_subject("ci-1", "laptop", "bob"), "ci-1"),
            Some(Addressed::Attachment {
                from: "laptop".into(),
                agent: "bob".into()
            })
        );
        assert_eq!(addressed("filebox.ci-1.x.other", "ci-1"), None);
    }

    #[test]
    fn another_version_of_a_message_has_another_id() {
        let a = mail_id("h", "bob", "m1", 0, "one");
        assert_eq!(a, mail_id("h", "bob", "m1", 0, "one"));
        assert_ne!(a, mail_id("h", "bob", "m1", 1, "two"));
        assert_ne!(a, mail_id("h", "carol", "m1", 0, "one"));
    }

    #[test]
    fn a_receipt_names_its_file_and_one_from_an_older_hub_without_it_still_reads() {
        let older = r#"{"kind":"received","agent":"bob@ci-1","id":"m1","conversation":0}"#;
        let event: Event = serde_json::from_str(older).unwrap();
        assert!(
            matches!(event, Event::Received { file: None, .. }),
            "{event:?}"
        );
        let named = Event::Received {
            agent: "bob@ci-1".into(),
            id: "m1".into(),
            conversation: 0,
            file: Some("20250101T000000-ER-x-m1.md".into()),
        };
        let wire = serde_json::to_string(&named).unwrap();
        assert_eq!(serde_json::from_str::<Event>(&wire).unwrap(), named);
        // The same receipt with or without the name is one message to the stream.
        assert_eq!(event_id("laptop", &named), event_id("laptop", &event));
    }
}
