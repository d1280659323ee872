//! `annotate`: a line added to the processing history of my copy of a message where it is,
//! without moving it (the hub records each webhook attempt this way), in the copy that speaks
//! for it (`crate::mailbox::copy`), the one the line is read back from. The file is rewritten
//! through the same claim/commit as a move, so a concurrent move or reply is never lost: if
//! the copy moves on first, the line is added to it where it went.

use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::{MessageRef, parse_bytes};
use crate::mailroom::Mailroom;
use crate::message::{ProcessingEntry, render};
use crate::store::{self, Rewritten};
use crate::time;

/// How many times the copy is looked for again when it moved while being annotated.
const ATTEMPTS: usize = 8;

impl Mailroom {
    /// Append `* <now> - <action> by <by>: <details>` to the processing history of my copy of
    /// `reference` that speaks for it (`crate::mailbox::copy`, in any folder). `action` and `by` are
    /// single words or phrases without `: `; `details` is one line.
    pub fn annotate(
        &self,
        reference: &MessageRef,
        action: &str,
        by: &str,
        details: &str,
    ) -> Result<()> {
        for (name, value) in [("action", action), ("by", by), ("details", details)] {
            if value.contains('\n') || (name != "details" && value.contains(": ")) {
                return Err(Error::invalid(
                    name,
                    value,
                    "a processing-history line takes one line, without `: ` before the details",
                ));
            }
        }
        let mine = self.my_mailbox()?;
        for _ in 0..ATTEMPTS {
            let (found, _) = mine.speaking_copy(reference, &Folder::ALL)?;
            let rewritten = store::rewrite_in_place(&mine.tmp(), &found.path, |bytes| {
                let mut message = parse_bytes(&found.path, bytes)?;
                message.processing.push(ProcessingEntry {
                    timestamp: time::iso(time::now()),
                    action: action.to_owned(),
                    by: by.to_owned(),
                    details: details.to_owned(),
                });
                Ok(render(&message).into_bytes())
            })?;
            if matches!(rewritten, Rewritten::Done) {
                return Ok(());
            }
        }
        Err(self.already_handled(reference))
    }
}

#[cfg(test)]
mod tests {
    use crate::{Folder, Mailroom, MessageRef, MessageType, SendRequest};

    fn mailrooms(dir: &std::path::Path) -> (Mailroom, Mailroom) {
        let open = |me| crate::mailroom::test_mailroom::dev_and_qa_as(dir, me);
        (open("dev"), open("qa"))
    }

    /// An ER with `body` from dev to qa, by reference.
    fn sent_to_qa(dev: &Mailroom, body: &str) -> MessageRef {
        let kind = MessageType::new("ER").unwrap();
        let sent = dev.send(&SendRequest::new("qa", kind, body)).unwrap();
        MessageRef::parse(&sent.id).unwrap()
    }

    #[test]
    fn a_line_is_added_where_the_copy_is_and_nothing_moves() {
        let dir = tempfile::tempdir().unwrap();
        let (dev, qa) = mailrooms(dir.path());
        let reference = sent_to_qa(&dev, "body");
        qa.annotate(
            &reference,
            "Webhook Delivered",
            "hub",
            "x#1 attempt 1: HTTP 200",
        )
        .unwrap();
        let mailbox = qa.my_mailbox().unwrap();
        let copy = mailbox.find(&reference, &Folder::ALL).unwrap();
        assert_eq!(copy.folder, Folder::Inbox);
        let message = mailbox.read(&copy).unwrap();
        let line = &message.processing[0];
        assert_eq!(
            (
                line.action.as_str(),
                line.by.as_str(),
                line.details.as_str()
            ),
            ("Webhook Delivered", "hub", "x#1 attempt 1: HTTP 200")
        );
        assert_eq!(message.body, "body");
        assert_eq!(mailbox.list(Folder::Inbox).unwrap().messages.len(), 1);
    }

    /// dev's request came back answered and dev resolved it: the untouched outbox record sits
    /// before done/ in the folders searched, but the line goes to done/, the copy that speaks
    /// for the message (where the hub's ledger reads it back).
    #[test]
    fn a_line_goes_to_the_copy_that_speaks_not_the_first_folder_searched() {
        let dir = tempfile::tempdir().unwrap();
        let (dev, qa) = mailrooms(dir.path());
        let reference = sent_to_qa(&dev, "body");
        let kind = MessageType::new("DIS").unwrap();
        qa.send(&SendRequest {
            reply_to: Some(reference.clone()),
            ..SendRequest::new("dev", kind, "answer")
        })
        .unwrap();
        dev.transition(crate::Transition::Resolve, &reference, "thanks")
            .unwrap();
        dev.annotate(
            &reference,
            "Webhook Failed",
            "hub",
            "x#1 attempt 1: refused",
        )
        .unwrap();
        let mailbox = dev.my_mailbox().unwrap();
        let actions = |folder| {
            let copy = mailbox.find(&reference, &[folder]).unwrap();
            let message = mailbox.read(&copy).unwrap();
            message
                .processing
                .iter()
                .map(|line| line.action.clone())
                .collect::<Vec<_>>()
        };
        assert_eq!(actions(Folder::Outbox), Vec::<String>::new());
        assert_eq!(actions(Folder::Done), ["Resolved", "Webhook Failed"]);
    }

    #[test]
    fn a_line_that_would_not_parse_back_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let (dev, qa) = mailrooms(dir.path());
        let reference = sent_to_qa(&dev, "b");
        assert!(qa.annotate(&reference, "A: B", "hub", "d").is_err());
        assert!(qa.annotate(&reference, "A", "hub", "two\nlines").is_err());
    }
}
