//! Read receipts: when a message is put in front of its reader (a channel push, a hook's
//! digest, `wait`, `read`, the page), the reader's copy in its inbox records it with a
//! processing-history line `Read by <reader>: <how> (version <n>)`, once per reader and
//! version (a reply that comes back is a new version to read). The line names the version it
//! saw, the count of the copy's replies plus one, because times have whole seconds: a reply
//! written in the receipt's second would otherwise pass for read. Written by the reader's side
//! only, through the same claim/commit rewrite as a move, so the message never moves and a
//! concurrent move is never lost; a reader that may not write the mailbox reads without a
//! receipt and is told.
//!
//! A hook only offers: it hands the digest to the host, and a session can die before any model
//! call (`claude -p` without a login). Its line is `Offered by <reader>: hook in session <id>
//! (version <n>)`: the message stays unread (read marks, `status`), is not offered again in that
//! session, and is offered again by another session's hook. The session's next Stop (a model
//! turn ended with the offer in its context) turns the offer into a receipt
//! ([`Mailbox::confirm_offers`]); `read_message` writes one anyway.
//!
//! A rewrite gives the file a new inode, which the wait cursor and the read marks would take
//! for a new version: the receipt is written under the cursor's lock and both are told the new
//! inode, so a message read is neither returned again by `wait` nor shown unread.

use std::os::unix::fs::OpenOptionsExt;

use crate::agent::AgentId;
use crate::error::{Error, Result};
use crate::feed::cursor::{self, Claim, Cursor};
use crate::folder::Folder;
use crate::mailbox::{Envelope, Mailbox, MessageRef, parse_bytes};
use crate::mailroom::Mailroom;
use crate::message::{Message, ProcessingEntry, render};
use crate::store::{self, Rewritten};
use crate::time;

/// The processing-history action of a read receipt.
pub const READ: &str = "Read";

/// The processing-history action of an offer: a hook handed the message to its host.
pub const OFFERED: &str = "Offered";

/// What a processing line records.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Seen {
    /// Put in front of its reader: a receipt, and the message is read.
    Read,
    /// Handed to the reader's host, which may never show it to a model: unread still.
    Offered,
}

impl Seen {
    fn action(self) -> &'static str {
        match self {
            Seen::Read => READ,
            Seen::Offered => OFFERED,
        }
    }
}

/// What recording a receipt did for one message. A receipt never fails a read: a write that
/// fails (no write access, a full disk, a file no one can parse) is `NotRecorded`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Receipt {
    /// The line was written.
    Recorded,
    /// This reader had already read this version (or the copy is not in the inbox any more:
    /// its holder is past reading it).
    AlreadyRead,
    /// The reader may not write the mailbox: read without a receipt, and why.
    NotRecorded(String),
}

/// How a receipt's details name the version it saw: `channel (version 2)`.
const VERSION: (&str, &str) = (" (version ", ")");

/// The version of a copy: 1 as sent, one more for each reply appended to its Conversation
/// History (which only grows).
fn version(message: &Message) -> usize {
    message.conversation.len() + 1
}

/// A receipt's details: how the message was read, and the version read.
fn details(how: &str, version: usize) -> String {
    let (before, after) = VERSION;
    format!("{how}{before}{version}{after}")
}

/// Whether `entry` is a receipt by `reader` of the copy's current version. A line that names
/// its version is compared by it; one written before receipts named it (no version) by its
/// time, which must be later than the newest conversation entry's: in the same second, it may
/// be of the version before, and a message read is better shown unread than the reverse.
fn of_current_version(entry: &ProcessingEntry, message: &Message, reader: &str) -> bool {
    if entry.action != READ || entry.by != reader {
        return false;
    }
    names_current_version(entry, message)
}

/// Whether `entry` names the copy's current version (see [`of_current_version`] for a line
/// that names none).
fn names_current_version(entry: &ProcessingEntry, message: &Message) -> bool {
    let (before, after) = VERSION;
    let named = entry
        .details
        .strip_suffix(after)
        .and_then(|rest| rest.rsplit_once(before))
        .and_then(|(_, n)| n.parse::<usize>().ok());
    match named {
        Some(seen) => seen == version(message),
        None => message
            .conversation
            .last()
            .is_none_or(|newest| entry.timestamp > newest.timestamp),
    }
}

/// The receipt by `reader` (the copy's owner: a receipt is written into the reader's own copy)
/// of the copy's current version, if there is one. Lines other readers wrote into their copies
/// and that travelled with a reply say nothing about this copy.
pub fn read_by<'m>(message: &'m Message, reader: &str) -> Option<&'m ProcessingEntry> {
    message
        .processing
        .iter()
        .find(|entry| of_current_version(entry, message, reader))
}

/// Whether `reader`'s hook offered the copy's current version in the way `how` names (`hook in
/// session <id>`): not to be offered again there.
pub fn offered(message: &Message, reader: &str, how: &str) -> bool {
    let line = details(how, version(message));
    message
        .processing
        .iter()
        .any(|entry| entry.action == OFFERED && entry.by == reader && entry.details == line)
}

/// The receipt or offer `owner`'s latest change to its copy wrote, if its latest change was
/// one: the last processing line, a receipt or an offer by `owner` of the current version (a
/// reply after it is new mail, not a receipt). A live event of the file says `read` (or
/// `offered`), and a watch does not report it as mail.
pub fn latest_receipt<'m>(message: &'m Message, owner: &str) -> Option<&'m ProcessingEntry> {
    let last = message.processing.last()?;
    let offer = last.action == OFFERED && last.by == owner && names_current_version(last, message);
    (offer || of_current_version(last, message, owner)).then_some(last)
}

impl Mailroom {
    /// Record that `reader` had the messages `references` of `agent`'s inbox put in front of
    /// it (`how`: `channel`, `hook`, `read`, `page`, ...). A message not in the inbox is not an
    /// error (it is past reading: `AlreadyRead`); one that cannot be found is.
    pub fn mark_read(
        &self,
        agent: &AgentId,
        references: &[MessageRef],
        reader: &str,
        how: &str,
    ) -> Result<Vec<Receipt>> {
        let mailbox = self.mailbox_to_read(agent)?;
        let mut cursor = match cursor::Locked::take(&mailbox) {
            Ok(cursor) => cursor,
            // Not even the cursor's lock can be written here: read without receipts.
            Err(e) => {
                let why = Receipt::NotRecorded(e.to_string());
                return Ok(vec![why; references.len()]);
            }
        };
        let mut receipts = Vec::new();
        for reference in references {
            let receipt = match mailbox.find(reference, &[Folder::Inbox]) {
                Ok(envelope) => {
                    mailbox.receipt(&envelope, reader, how, Seen::Read, cursor.cursor())?
                }
                Err(Error::NotFound { .. }) => {
                    mailbox.find(reference, &Folder::ALL)?;
                    Receipt::AlreadyRead
                }
                Err(e) => return Err(e),
            };
            receipts.push(receipt);
        }
        cursor.save()?;
        Ok(receipts)
    }
}

impl Claim {
    /// Receipts by `reader` for claimed messages, before the claim is committed: the cursor it
    /// saves names the rewritten files, so they are not returned again.
    pub fn mark_read(
        &mut self,
        envelopes: &[Envelope],
        reader: &str,
        how: &str,
    ) -> Result<Vec<Receipt>> {
        self.mark(envelopes, reader, how, Seen::Read)
    }

    /// Offers by `reader` (`how`: `hook in session <id>`) of claimed messages a hook handed its
    /// host, before the claim is committed: unread still, not offered again the same way.
    pub fn mark_offered(
        &mut self,
        envelopes: &[Envelope],
        reader: &str,
        how: &str,
    ) -> Result<Vec<Receipt>> {
        self.mark(envelopes, reader, how, Seen::Offered)
    }

    /// One `seen` line by `reader` in each claimed copy, recorded in the pending cursor.
    fn mark(
        &mut self,
        envelopes: &[Envelope],
        reader: &str,
        how: &str,
        seen: Seen,
    ) -> Result<Vec<Receipt>> {
        let Some((mailbox, cursor)) = self.pending_mut() else {
            return Ok(Vec::new());
        };
        let mailbox = mailbox.clone();
        envelopes
            .iter()
            .map(|envelope| mailbox.receipt(envelope, reader, how, seen, Some(&mut *cursor)))
            .collect()
    }
}

impl Mailbox {
    /// The session went on past an offer (its Stop: a model turn ended with the offer in its
    /// context): a receipt by `reader` (`how`) for each unread message of my inbox that
    /// `offered_how` offered. Returns the receipts written.
    /// Under the cursor's lock, which follows each rewritten file and returns nothing: mail
    /// not offered is still new to a wait.
    pub fn confirm_offers(&self, reader: &str, offered_how: &str, how: &str) -> Result<usize> {
        let mut cursor = cursor::Locked::take(self)?;
        let listing = self.list(Folder::Inbox)?;
        let mut confirmed = 0;
        for envelope in self.unread(Folder::Inbox, listing.messages)? {
            let was_offered = self
                .read(&envelope)
                .is_ok_and(|message| offered(&message, reader, offered_how));
            if was_offered
                && self.receipt(&envelope, reader, how, Seen::Read, cursor.cursor())?
                    == Receipt::Recorded
            {
                confirmed += 1;
            }
        }
        cursor.save()?;
        Ok(confirmed)
    }
}

impl Mailbox {
    /// Write `reader`'s receipt (or offer: `seen`) into the inbox copy `envelope` unless it
    /// holds one for this version; the wait cursor (when loaded) follows the file, and the read
    /// marks too for a receipt.
    fn receipt(
        &self,
        envelope: &Envelope,
        reader: &str,
        how: &str,
        seen: Seen,
        cursor: Option<&mut Cursor>,
    ) -> Result<Receipt> {
        if envelope.folder != Folder::Inbox {
            return Ok(Receipt::AlreadyRead);
        }
        let Ok(before) = std::fs::symlink_metadata(&envelope.path) else {
            return Ok(Receipt::AlreadyRead);
        };
        let message = match self.read(envelope) {
            Ok(message) => message,
            Err(Error::NotFound { .. }) => return Ok(Receipt::AlreadyRead),
            // A file no one can parse (another tool's, half written) is read without one.
            Err(e) => return Ok(Receipt::NotRecorded(e.to_string())),
        };
        let has = |message: &Message| {
            read_by(message, reader).is_some()
                || (seen == Seen::Offered && offered(message, reader, how))
        };
        if has(&message) {
            return Ok(Receipt::AlreadyRead);
        }
        let rewritten = store::rewrite_in_place(&self.tmp(), &envelope.path, |bytes| {
            let mut message = parse_bytes(&envelope.path, bytes)?;
            if !has(&message) {
                message.processing.push(ProcessingEntry {
                    timestamp: time::iso(time::now()),
                    action: seen.action().to_owned(),
                    by: reader.to_owned(),
                    details: details(how, version(&message)),
                });
            }
            Ok(render(&message).into_bytes())
        });
        match rewritten {
            Ok(Rewritten::Done) => {}
            // Moved on meanwhile (held, answered): past reading.
            Ok(_) => return Ok(Receipt::AlreadyRead),
            // No write access, a full disk: the read goes on without a receipt.
            Err(e) => return Ok(Receipt::NotRecorded(e.to_string())),
        }
        keep_modified(&envelope.path, &before);
        if let Ok(after) = std::fs::symlink_metadata(&envelope.path) {
            if let Some(cursor) = cursor {
                cursor.rewritten(envelope.file.as_str(), &before, &after);
            }
            if seen == Seen::Read {
                self.mark_read(envelope)?;
            }
        }
        Ok(Receipt::Recorded)
    }
}

/// Give the rewritten file the time it was last written before: a receipt is not activity,
/// so listings that order messages of one second by it keep their order. Best effort.
fn keep_modified(path: &std::path::Path, before: &std::fs::Metadata) {
    let Ok(modified) = before.modified() else {
        return;
    };
    let file = std::fs::OpenOptions::new()
        .write(true)
        .custom_flags(libc::O_NOFOLLOW)
        .open(path);
    if let Ok(file) = file {
        let _ = file.set_modified(modified);
    }
}

#[cfg(test)]
mod tests {
    use std::time::Duration;

    use super::*;
    use crate::{MessageType, SendRequest, Status};

    const NEVER: &dyn Fn() -> bool = &|| false;

    fn dev_and_qa(dir: &std::path::Path) -> (Mailroom, Mailroom) {
        let open = |me| crate::mailroom::test_mailroom::dev_and_qa_as(dir, me);
        (open("dev"), open("qa"))
    }

    fn send(from: &Mailroom, to: &str) -> MessageRef {
        let kind = MessageType::new("ER").unwrap();
        let sent = from.send(&SendRequest::new(to, kind, "body")).unwrap();
        MessageRef::parse(&sent.id).unwrap()
    }

    fn qa_status(dev: &Mailroom, sent: &MessageRef) -> (Status, Status) {
        let report = dev.status(sent).unwrap();
        (report.status, report.recipients[0].status)
    }

    #[test]
    fn a_receipt_is_written_once_per_reader_and_the_sender_sees_read() {
        let dir = tempfile::tempdir().unwrap();
        let (dev, qa) = dev_and_qa(dir.path());
        let sent = send(&dev, "qa");
        assert_eq!(
            qa_status(&dev, &sent),
            (Status::Delivered, Status::Delivered)
        );
        let me = qa.me().clone();
        let receipts = qa
            .mark_read(&me, std::slice::from_ref(&sent), "qa", "channel")
            .unwrap();
        assert_eq!(receipts, [Receipt::Recorded]);
        let again = qa
            .mark_read(&me, std::slice::from_ref(&sent), "qa", "read")
            .unwrap();
        assert_eq!(again, [Receipt::AlreadyRead]);
        assert_eq!(qa_status(&dev, &sent), (Status::Read, Status::Read));
        let mailbox = qa.my_mailbox().unwrap();
        let copy = mailbox.find(&sent, &Folder::ALL).unwrap();
        assert_eq!(
            copy.folder,
            Folder::Inbox,
            "a receipt never moves the message"
        );
        let message = mailbox.read(&copy).unwrap();
        let lines: Vec<_> = message
            .processing
            .iter()
            .map(|p| (&p.action[..], &p.by[..], &p.details[..]))
            .collect();
        assert_eq!(lines, [(READ, "qa", "channel (version 1)")]);
        assert!(
            mailbox
                .unread(Folder::Inbox, vec![copy])
                .unwrap()
                .is_empty(),
            "read, not unread"
        );
        // Past the inbox, a message is past reading; an unknown one is an error.
        qa.transition(crate::Transition::Hold, &sent, "").unwrap();
        assert_eq!(
            qa.mark_read(&me, std::slice::from_ref(&sent), "qa", "read")
                .unwrap(),
            [Receipt::AlreadyRead]
        );
        assert_eq!(qa_status(&dev, &sent).1, Status::Processing);
        let unknown = MessageRef::parse("ffffffff").unwrap();
        assert!(qa.mark_read(&me, &[unknown], "qa", "read").is_err());
    }

    #[test]
    fn an_offer_leaves_the_message_unread_until_its_session_confirms_it() {
        let dir = tempfile::tempdir().unwrap();
        let (dev, qa) = dev_and_qa(dir.path());
        let mailbox = qa.my_mailbox().unwrap();
        let sent = send(&dev, "qa");
        let (unread, mut claim) = mailbox.claim_unread().unwrap();
        let offer = "hook in session a";
        assert_eq!(
            claim.mark_offered(&unread, "qa", offer).unwrap(),
            [Receipt::Recorded]
        );
        claim.commit().unwrap();
        let copy = mailbox.find(&sent, &[Folder::Inbox]).unwrap();
        let message = mailbox.read(&copy).unwrap();
        assert!(offered(&message, "qa", offer));
        assert!(!offered(&message, "qa", "hook in session b"));
        assert!(read_by(&message, "qa").is_none());
        assert!(
            latest_receipt(&message, "qa").is_some(),
            "an offer is not new mail"
        );
        assert_eq!(mailbox.unread(Folder::Inbox, vec![copy]).unwrap().len(), 1);
        assert_eq!(qa_status(&dev, &sent).1, Status::Delivered);
        // Another session confirms nothing; this one's Stop confirms its offer.
        assert_eq!(
            mailbox
                .confirm_offers("qa", "hook in session b", "hook")
                .unwrap(),
            0
        );
        assert_eq!(qa_status(&dev, &sent).1, Status::Delivered);
        assert_eq!(mailbox.confirm_offers("qa", offer, "hook").unwrap(), 1);
        assert_eq!(qa_status(&dev, &sent).1, Status::Read);
        let copy = mailbox.find(&sent, &[Folder::Inbox]).unwrap();
        assert!(
            mailbox
                .unread(Folder::Inbox, vec![copy])
                .unwrap()
                .is_empty()
        );
        assert!(
            mailbox
                .wait_for_mail(Some(Duration::ZERO), NEVER)
                .unwrap()
                .messages
                .is_empty(),
            "neither the offer nor the receipt is new mail"
        );
    }

    #[test]
    fn a_message_read_is_not_returned_again_by_the_next_wait() {
        let dir = tempfile::tempdir().unwrap();
        let (dev, qa) = dev_and_qa(dir.path());
        let mailbox = qa.my_mailbox().unwrap();
        let look = || {
            mailbox
                .wait_for_mail(Some(Duration::ZERO), NEVER)
                .unwrap()
                .messages
        };
        assert!(look().is_empty(), "the first wait is the baseline");
        let first = send(&dev, "qa");
        let second = send(&dev, "qa");
        // Read outside a wait (the page, `read`): the cursor follows the rewritten file.
        qa.mark_read(qa.me(), std::slice::from_ref(&first), "qa", "read")
            .unwrap();
        let returned = look();
        assert_eq!(
            returned.len(),
            2,
            "read is not returned: both were new to wait"
        );
        assert!(look().is_empty(), "the rewrite is not new mail");
        // Read inside a wait (a push): the claim saves the rewritten files.
        let third = send(&dev, "qa");
        let (arrivals, mut claim) = mailbox.claim_mail(Some(Duration::ZERO), NEVER).unwrap();
        assert_eq!(arrivals.messages.len(), 1);
        let receipts = claim
            .mark_read(&arrivals.messages, "qa", "channel")
            .unwrap();
        assert_eq!(receipts, [Receipt::Recorded]);
        claim.commit().unwrap();
        assert!(look().is_empty(), "a pushed message is not returned again");
        assert_eq!(qa_status(&dev, &third).1, Status::Read);
        assert_eq!(qa_status(&dev, &second).1, Status::Delivered);
    }

    /// dev sends, qa reads and replies, dev replies back, all in one second (tried again with
    /// a new message until the reply that came back has the second of qa's receipt): dev's
    /// status says delivered, as qa's unread list shows it; reading it again is a new receipt.
    #[test]
    fn a_reply_that_comes_back_in_the_receipts_second_is_a_new_version_to_read() {
        let dir = tempfile::tempdir().unwrap();
        let (dev, qa) = dev_and_qa(dir.path());
        let mailbox = qa.my_mailbox().unwrap();
        let reply = |from: &Mailroom, to: &str, sent: &MessageRef| {
            let kind = MessageType::new("DIS").unwrap();
            from.send(&SendRequest {
                reply_to: Some(sent.clone()),
                ..SendRequest::new(to, kind, "more")
            })
            .unwrap();
        };
        let in_one_second = (0..10).find_map(|_| {
            let sent = send(&dev, "qa");
            qa.mark_read(qa.me(), std::slice::from_ref(&sent), "qa", "read")
                .unwrap();
            reply(&qa, "dev", &sent);
            reply(&dev, "qa", &sent);
            let copy = mailbox.find(&sent, &Folder::ALL).unwrap();
            let message = mailbox.read(&copy).unwrap();
            let receipt = message.processing.iter().find(|p| p.action == READ)?;
            let newest = message.conversation.last()?;
            (receipt.timestamp == newest.timestamp).then_some((sent, copy))
        });
        let (sent, copy) = in_one_second.expect("ten tries, none within one second");
        assert_eq!(copy.folder, Folder::Inbox);
        assert_eq!(
            mailbox.unread(Folder::Inbox, vec![copy]).unwrap().len(),
            1,
            "the reply that came back is unread"
        );
        assert_eq!(
            qa_status(&dev, &sent),
            (Status::Delivered, Status::Delivered),
            "not read: qa has not seen the reply"
        );
        assert_eq!(
            qa.mark_read(qa.me(), std::slice::from_ref(&sent), "qa", "read")
                .unwrap(),
            [Receipt::Recorded]
        );
        assert_eq!(qa_status(&dev, &sent), (Status::Read, Status::Read));
    }

    #[test]
    fn a_receipt_names_the_version_it_saw_and_one_without_a_version_still_counts_by_time() {
        let reply = |at: &str| crate::message::ConversationEntry {
            timestamp: at.into(),
            from: "dev".into(),
            to: "qa".into(),
            kind: "DIS".into(),
            body: "more".into(),
        };
        let copy = |replies: &[&str], receipt_at: &str, details: &str| {
            let mut header = crate::message::Header::new(&MessageType::new("ER").unwrap(), "t");
            header.set(crate::message::field::MESSAGE_ID, "x");
            let message = Message {
                header,
                body: "b".into(),
                conversation: replies.iter().map(|at| reply(at)).collect(),
                processing: vec![ProcessingEntry {
                    timestamp: receipt_at.into(),
                    action: READ.into(),
                    by: "qa".into(),
                    details: details.into(),
                }],
            };
            // What the file says is what is judged.
            crate::message::parse(&render(&message)).unwrap()
        };
        let read = |message: &Message| {
            let read = read_by(message, "qa").is_some();
            assert_eq!(read, latest_receipt(message, "qa").is_some());
            read
        };
        let (t0, t1) = ("2026-01-01T00:00:00Z", "2026-01-01T00:00:01Z");
        assert!(read(&copy(&[t0], t0, "read (version 2)")));
        assert!(
            !read(&copy(&[t0, t0], t0, "read (version 2)")),
            "a reply since"
        );
        assert!(
            !read(&copy(&[t0], t1, "read (version 1)")),
            "the version before"
        );
        // A line from before receipts named their version: later than the newest reply.
        assert!(read(&copy(&[t0], t1, "channel")));
        assert!(read(&copy(&[], t0, "channel")));
        assert!(!read(&copy(&[t0], t0, "channel")), "same second: not known");
    }
}
