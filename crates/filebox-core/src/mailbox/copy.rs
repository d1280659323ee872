//! Which copy speaks for a message. Over its life a message can sit in several folders of one
//! mailbox at once (the outbox record of what I sent, the answer that came back to my inbox, the
//! copy I resolved into done/), and every question about it is answered from one of them, the
//! one picked here: its state (`status`), its conversation (`read`, and the version a reply
//! continues), the webhooks it owes and where their attempts are written (the hub's ledger and
//! `annotate`), and the copy a thread node shows. Who the message is from and to is read from
//! that copy by [`sender`] and [`original_recipients`].
//!
//! The rule: the copy furthest along speaks. Furthest is the most conversation entries (what
//! was said), then the most processing lines (what was done with it since: a resolution, a
//! webhook attempt), then the newest activity, then the holder's working copy (inbox, hold)
//! before a record of what the holder did (done, cancel), before the record of what it sent
//! (outbox). A copy never loses entries (every rewrite continues from the fullest version), so
//! the furthest copy holds everything the others do.

use crate::folder::Folder;
use crate::mailbox::Envelope;
use crate::message::{Message, field};

/// How far a copy got, in the rule's order (greater is further).
fn progress(folder: Folder, message: &Message) -> (usize, usize, &str, u8) {
    let place = match folder {
        Folder::Inbox | Folder::Hold => 2,
        Folder::Done | Folder::Cancel => 1,
        Folder::Outbox => 0,
    };
    (
        message.conversation.len(),
        message.processing.len(),
        last_activity(message),
        place,
    )
}

/// When a message last changed: its newest history entry, else its own timestamp.
fn last_activity(message: &Message) -> &str {
    let conversed = message.conversation.last().map(|c| c.timestamp.as_str());
    let processed = message.processing.last().map(|p| p.timestamp.as_str());
    conversed
        .max(processed)
        .or_else(|| message.header.get(field::TIMESTAMP))
        .unwrap_or_default()
}

/// Of copies of one message, the one that speaks for it (the first given on a tie).
pub fn speaking(copies: &[(Envelope, Message)]) -> Option<&(Envelope, Message)> {
    copies
        .iter()
        .rev()
        .max_by(|a, b| progress(a.0.folder, &a.1).cmp(&progress(b.0.folder, &b.1)))
}

/// Of copies of one message held in different mailboxes (a thread gathers them all), the one
/// that shows it best: the furthest by the same rule, then the first mailbox by id.
pub(crate) fn speaking_across<'a, T>(
    copies: impl Iterator<Item = &'a T>,
    place: impl Fn(&T) -> (Folder, &Message, &str),
) -> Option<&'a T> {
    copies.max_by(|a, b| {
        let (a_folder, a_message, a_mailbox) = place(a);
        let (b_folder, b_message, b_mailbox) = place(b);
        progress(a_folder, a_message)
            .cmp(&progress(b_folder, b_message))
            .then_with(|| b_mailbox.cmp(a_mailbox))
    })
}

/// Who wrote the message: its `Original Sender`, else (a hand-written file) its `Sender`.
pub fn sender(message: &Message) -> &str {
    let named = |key| {
        message
            .header
            .get(key)
            .map(str::trim)
            .filter(|name| !name.is_empty())
    };
    named(field::ORIGINAL_SENDER)
        .or_else(|| named(field::SENDER))
        .unwrap_or_default()
}

/// Whom the message was first sent to, as one copy tells it: a copy nobody answered still
/// names them in `Receiver`; an answered one names the recipient who answered first (a reply
/// rewrites `Receiver` to whom the reply went).
pub fn original_recipients(message: &Message) -> Vec<String> {
    match message.conversation.first() {
        Some(first) => vec![first.from.clone()],
        None => message.header.list(field::RECEIVER),
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::error::Error;
    use crate::mailbox::Mailbox;
    use crate::message::{ConversationEntry, Header, MessageType, ProcessingEntry, field};

    /// A copy in `folder` with `said` conversation entries (from, to) and `done` processing
    /// lines, each entry a minute after the previous one.
    fn copy(folder: Folder, said: &[(&str, &str)], done: usize) -> (Envelope, Message) {
        let mut header = Header::new(&MessageType::new("ER").unwrap(), "t");
        header.set(field::MESSAGE_ID, "m");
        header.set(field::TIMESTAMP, "2026-01-01T00:00:00Z");
        header.set(field::ORIGINAL_SENDER, "qa");
        header.set(field::SENDER, "qa");
        header.set(field::RECEIVER, "dev, ops");
        let at = |minute: usize| format!("2026-01-01T00:{minute:02}:00Z");
        let conversation: Vec<ConversationEntry> = said
            .iter()
            .enumerate()
            .map(|(n, (from, to))| ConversationEntry {
                timestamp: at(n + 1),
                from: (*from).to_owned(),
                to: (*to).to_owned(),
                kind: "DIS".into(),
                body: format!("entry {n}"),
            })
            .collect();
        let processing = (0..done)
            .map(|n| ProcessingEntry {
                timestamp: at(said.len() + n + 1),
                action: "Resolved".into(),
                by: "dev".into(),
                details: String::new(),
            })
            .collect();
        let file = crate::message::FileName::new("20260101T000000-ER-t-00000000.md").unwrap();
        let envelope = Envelope {
            folder,
            path: folder.as_str().into(),
            file,
            header: header.clone(),
        };
        let message = Message {
            header,
            body: "b".into(),
            conversation,
            processing,
        };
        (envelope, message)
    }

    /// dev's message to qa, and the mailboxes of both.
    fn sent_to_qa(dir: &std::path::Path) -> (crate::SendReceipt, Mailbox, Mailbox) {
        let open = |me| crate::mailroom::test_mailroom::dev_and_qa_as(dir, me);
        let (dev, qa) = (open("dev"), open("qa"));
        let kind = MessageType::new("ER").unwrap();
        let sent = dev
            .send(&crate::SendRequest::new("qa", kind, "body"))
            .unwrap();
        (sent, dev.my_mailbox().unwrap(), qa.my_mailbox().unwrap())
    }

    #[test]
    fn copies_are_found_by_the_name_they_share_and_by_id_when_the_name_holds_another_message() {
        let dir = tempfile::tempdir().unwrap();
        let (sent, dev, qa) = sent_to_qa(dir.path());
        let name = crate::message::FileName::new(&sent.file).unwrap();
        let (theirs, _) = qa
            .speaking_copy_named(&sent.id, &name, &Folder::ALL)
            .unwrap();
        assert_eq!(
            (theirs.folder, theirs.header.id()),
            (Folder::Inbox, sent.id.as_str())
        );
        let mine = dev
            .read_copies_named(&sent.id, &name, &Folder::ALL)
            .unwrap();
        assert_eq!(mine.len(), 1);
        assert_eq!(mine[0].0.folder, Folder::Outbox);
        // Another tool renamed qa's copy, and left a different message under the old name:
        // the name is not trusted, the id finds the copy.
        let inbox = qa.folder_path(Folder::Inbox);
        let renamed = inbox.join("20260101T000000-ER-renamed.md");
        std::fs::rename(inbox.join(&sent.file), &renamed).unwrap();
        let other = std::fs::read_to_string(&renamed)
            .unwrap()
            .replace(&sent.id, "0badc0de-0000-4000-8000-000000000000");
        std::fs::write(inbox.join(&sent.file), other).unwrap();
        let (found, _) = qa
            .speaking_copy_named(&sent.id, &name, &Folder::ALL)
            .unwrap();
        assert_eq!(found.file.as_str(), "20260101T000000-ER-renamed.md");
        assert_eq!(found.header.id(), sent.id);
        // And none anywhere: not found, as by id.
        let missing = "feedface-0000-4000-8000-000000000000";
        assert!(matches!(
            qa.speaking_copy_named(missing, &name, &Folder::ALL),
            Err(Error::NotFound { .. })
        ));
    }

    #[test]
    fn visiting_a_folder_gives_each_readable_header_once_and_passes_over_the_rest() {
        let dir = tempfile::tempdir().unwrap();
        let (sent, _, qa) = sent_to_qa(dir.path());
        let inbox = qa.folder_path(Folder::Inbox);
        std::fs::write(inbox.join("20260101T000000-ER-broken.md"), "not a message").unwrap();
        let mut seen = Vec::new();
        qa.visit_envelopes(Folder::Inbox, |envelope| {
            seen.push(envelope.header.id().to_owned())
        })
        .unwrap();
        assert_eq!(seen, [sent.id]);
        let mut none = 0;
        qa.visit_envelopes(Folder::Done, |_| none += 1).unwrap();
        assert_eq!(none, 0);
    }

    fn speaks(copies: &[(Envelope, Message)]) -> Folder {
        speaking(copies).unwrap().0.folder
    }

    #[test]
    fn the_longest_conversation_speaks_whatever_the_folder() {
        // dev's record of its reply, and the conversation it resolved after qa answered.
        let outbox = copy(Folder::Outbox, &[("dev", "qa")], 0);
        let done = copy(Folder::Done, &[("dev", "qa"), ("qa", "dev")], 1);
        assert_eq!(speaks(&[outbox.clone(), done.clone()]), Folder::Done);
        assert_eq!(speaks(&[done, outbox]), Folder::Done);
    }

    #[test]
    fn then_what_was_done_with_it() {
        // A person's request: the untouched outbox record, and the answer in done/ that
        // carries a webhook attempt; either way done/ speaks, so attempts land where they are
        // read.
        let outbox = copy(Folder::Outbox, &[], 1);
        let done = copy(Folder::Done, &[("dev", "me")], 0);
        assert_eq!(speaks(&[outbox.clone(), done.clone()]), Folder::Done);
        let annotated = copy(Folder::Done, &[("dev", "me")], 1);
        assert_eq!(speaks(&[outbox, annotated]), Folder::Done);
        let record = copy(Folder::Outbox, &[("qa", "dev")], 0);
        let resolved = copy(Folder::Done, &[("qa", "dev")], 1);
        assert_eq!(speaks(&[record, resolved]), Folder::Done);
    }

    #[test]
    fn then_the_newest_activity_then_the_holders_working_copy() {
        let older = copy(Folder::Inbox, &[("dev", "qa")], 0);
        let mut newer = copy(Folder::Outbox, &[("dev", "qa")], 0);
        newer.1.conversation[0].timestamp = "2026-01-02T00:00:00Z".into();
        assert_eq!(speaks(&[older, newer]), Folder::Outbox);
        let record = copy(Folder::Outbox, &[("dev", "qa")], 0);
        let inbox = copy(Folder::Inbox, &[("dev", "qa")], 0);
        let done = copy(Folder::Done, &[("dev", "qa")], 0);
        assert_eq!(
            speaks(&[record.clone(), done.clone(), inbox]),
            Folder::Inbox
        );
        assert_eq!(speaks(&[record, done]), Folder::Done);
        assert!(speaking(&[]).is_none());
    }

    #[test]
    fn the_sender_and_the_original_recipients_survive_replies() {
        let sent = copy(Folder::Outbox, &[], 0);
        assert_eq!(sender(&sent.1), "qa");
        assert_eq!(original_recipients(&sent.1), ["dev", "ops"]);
        // dev answered: Receiver now names qa, the reply's target.
        let (_, mut answered) = copy(Folder::Inbox, &[("dev", "qa"), ("qa", "dev")], 0);
        answered.header.set(field::SENDER, "qa");
        answered.header.set(field::RECEIVER, "dev");
        assert_eq!(sender(&answered), "qa");
        assert_eq!(original_recipients(&answered), ["dev"]);
        let (_, mut hand_written) = copy(Folder::Inbox, &[], 0);
        hand_written.header.remove(field::ORIGINAL_SENDER);
        assert_eq!(sender(&hand_written), "qa");
    }
}
