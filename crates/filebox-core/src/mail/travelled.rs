//! Whole message files that travelled from another machine (a federated hub), written
//! idempotently: delivered into an inbox, or mirrored into the stand-in mailbox of an agent
//! that lives elsewhere. A version the mailbox already holds (or a later one) is never written
//! again, so a redelivered message never shows twice and an old state never overwrites a newer.
//! The sending side's spool copy (the stand-in's inbox) gets a delivery receipt once the
//! destination hub holds the file durably, so `status` never calls mail in flight delivered.

use crate::agent::AgentId;
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::{Envelope, Mailbox, MessageRef};
use crate::mailroom::Mailroom;
use crate::message::{ConversationEntry, FileName, Message, ProcessingEntry, render};
use crate::store::{self, Destination, Moved, Rewritten, Unsynced};
use crate::time;

/// The processing-history action of a delivery receipt: the hub of the agent this spool copy
/// is for has the file on disk. Bookkeeping of the sending machine: it never travels.
pub const RECEIVED: &str = "Received";

/// The processing-history action of a refusal: the hub of the agent this spool copy was for
/// refused it (it has no such agent, the file was malformed there, ...); the copy is in
/// cancel/, failed, with the reason as the line's details.
pub const REFUSED: &str = "Refused";

/// What writing a travelled copy did.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Travelled {
    /// The copy was written.
    Written,
    /// The mailbox already held this version or a later one: nothing written.
    AlreadyThere,
}

impl Mailroom {
    /// Deliver `message`, a whole file (conversation and histories included), to `to`'s inbox
    /// as `name`, replacing an older version of the same file there (a reply that crossed).
    /// Nothing is written when any copy in the mailbox already holds its conversation. The
    /// new name is durable once `unsynced` is synced (a batch of deliveries shares the inbox's
    /// fsync): acknowledge nothing before.
    pub fn deliver_travelled(
        &self,
        to: &AgentId,
        name: &FileName,
        message: &Message,
        unsynced: &mut Unsynced,
    ) -> Result<Travelled> {
        self.check_size(message)?;
        let mailbox = self.mailbox(to)?;
        let copies = copies_named(&mailbox, message.header.id(), name, &Folder::ALL)?;
        if copies
            .iter()
            .any(|(_, copy)| knows_conversation(copy, &message.conversation))
        {
            return Ok(Travelled::AlreadyThere);
        }
        store::publish_replace_unsynced(
            &mailbox.tmp(),
            &mailbox.folder_path(Folder::Inbox),
            name.as_str(),
            render(message).as_bytes(),
            unsynced,
        )?;
        Ok(Travelled::Written)
    }

    /// Whether `agent`'s mailbox holds a copy of message `id` under its file name `name` (opened
    /// to read: nothing created, nothing recovered).
    pub fn holds_travelled(&self, agent: &AgentId, id: &str, name: &FileName) -> bool {
        self.mailbox_to_read(agent)
            .and_then(|mailbox| copies_named(&mailbox, id, name, &Folder::ALL))
            .is_ok_and(|copies| !copies.is_empty())
    }

    /// Record in `agent`'s mailbox (the stand-in of an agent on another machine) its copy of a
    /// message as it now stands there, in `folder`: the copy waiting in inbox/ or hold/ moves
    /// to `folder` with the new content; without one, the content is published in `folder`.
    /// Nothing is written when a copy already holds as much history (it never goes back).
    pub fn mirror_travelled(
        &self,
        agent: &AgentId,
        folder: Folder,
        name: &FileName,
        message: &Message,
    ) -> Result<Travelled> {
        self.check_size(message)?;
        let mailbox = self.mailbox(agent)?;
        let copies = copies_named(&mailbox, message.header.id(), name, &Folder::ALL)?;
        let history = history_len(message);
        let newer_elsewhere = copies.iter().any(|(_, copy)| history_len(copy) > history);
        let same_here = copies
            .iter()
            .any(|(envelope, copy)| envelope.folder == folder && history_len(copy) >= history);
        if newer_elsewhere || same_here {
            return Ok(Travelled::AlreadyThere);
        }
        let bytes = render(message).into_bytes();
        let waiting = copies
            .iter()
            .map(|(envelope, _)| envelope)
            .find(|e| matches!(e.folder, Folder::Inbox | Folder::Hold));
        let target = Destination {
            tmp: mailbox.tmp(),
            dir: mailbox.folder_path(folder),
            name: name.to_string(),
        };
        match waiting {
            Some(waiting) => {
                match store::move_message(&mailbox.tmp(), &waiting.path, &[target], |_| {
                    Ok(vec![bytes.clone()])
                })? {
                    Moved::Done => {}
                    // Moved on meanwhile by another process: publish the state beside it.
                    Moved::Gone => {
                        store::publish_replace(
                            &mailbox.tmp(),
                            &mailbox.folder_path(folder),
                            name.as_str(),
                            &bytes,
                        )?;
                    }
                }
            }
            None => {
                store::publish_replace(
                    &mailbox.tmp(),
                    &mailbox.folder_path(folder),
                    name.as_str(),
                    &bytes,
                )?;
            }
        }
        Ok(Travelled::Written)
    }

    /// Record a delivery receipt on `agent`'s spool copy of message `id` (its stand-in's inbox
    /// copy with `conversation` entries): a `Received` line by `agent`, so `status` says
    /// delivered instead of in flight. `false` when no such copy waits there (the agent moved
    /// on already, or a newer version is in flight) or it has its receipt already. `file`, the
    /// copy's name when the receipt gives it, finds the copy with one open; without it (a hub
    /// of an older version), or when no copy of that name holds the message, it is looked up
    /// by id.
    pub fn record_receipt(
        &self,
        agent: &AgentId,
        id: &str,
        conversation: usize,
        file: Option<&FileName>,
    ) -> Result<bool> {
        let mailbox = self.mailbox(agent)?;
        // The version this receipt is for, still without one.
        let awaits_receipt =
            |copy: &Message| copy.conversation.len() == conversation && !received(copy);
        let named = match file {
            Some(name) => copies_named(&mailbox, id, name, &[Folder::Inbox])?,
            None => Vec::new(),
        };
        let spooled = if named.is_empty() {
            read_copies(&mailbox, id, &[Folder::Inbox])?
        } else {
            named
        }
        .into_iter()
        .find(|(_, copy)| awaits_receipt(copy));
        let Some((envelope, _)) = spooled else {
            return Ok(false);
        };
        let rewritten = store::rewrite_in_place(&mailbox.tmp(), &envelope.path, |bytes| {
            let mut message = crate::mailbox::parse_bytes(&envelope.path, bytes)?;
            // Asked again of the version this rewrite holds in turn: another receipt may have
            // been recorded, or a newer version put there, since it was looked up.
            if !awaits_receipt(&message) {
                return Ok(bytes.to_vec());
            }
            message.processing.push(ProcessingEntry {
                timestamp: time::iso(time::now()),
                action: RECEIVED.to_owned(),
                by: agent.to_string(),
                details: "its hub has the file on disk".to_owned(),
            });
            Ok(render(&message).into_bytes())
        })?;
        Ok(matches!(rewritten, Rewritten::Done))
    }

    /// Record that `agent`'s hub refused the version of message `id` with `conversation`
    /// entries, and why: its spool copy (the stand-in's inbox) moves to cancel/ with a
    /// `Refused` line by `agent`, so `status` says failed, and why, instead of in flight; and
    /// nothing publishes it again. `false` when no such copy waits there.
    pub fn record_refusal(
        &self,
        agent: &AgentId,
        id: &str,
        conversation: usize,
        reason: &str,
    ) -> Result<bool> {
        let mailbox = self.mailbox(agent)?;
        let spooled = read_copies(&mailbox, id, &[Folder::Inbox])?
            .into_iter()
            .find(|(_, copy)| copy.conversation.len() == conversation);
        let Some((envelope, _)) = spooled else {
            return Ok(false);
        };
        let target = Destination {
            tmp: mailbox.tmp(),
            dir: mailbox.folder_path(Folder::Cancel),
            name: envelope.file.to_string(),
        };
        let moved = store::move_message(&mailbox.tmp(), &envelope.path, &[target], |bytes| {
            let mut message = crate::mailbox::parse_bytes(&envelope.path, bytes)?;
            message.processing.push(ProcessingEntry {
                timestamp: time::iso(time::now()),
                action: REFUSED.to_owned(),
                by: agent.to_string(),
                details: reason.to_owned(),
            });
            Ok(vec![render(&message).into_bytes()])
        })?;
        Ok(matches!(moved, Moved::Done))
    }

    fn check_size(&self, message: &Message) -> Result<()> {
        let limit = self.config().max_body_bytes();
        let size = message.words_len();
        if size > limit {
            return Err(Error::TooLarge { size, limit });
        }
        Ok(())
    }
}

/// Whether a copy carries a delivery receipt.
pub fn received(message: &Message) -> bool {
    message.processing.iter().any(is_receipt)
}

/// Why another machine's hub refused this copy, when it did and the copy is in cancel/.
pub fn refusal(envelope: &Envelope, message: &Message) -> Option<String> {
    if envelope.folder != Folder::Cancel {
        return None;
    }
    message
        .processing
        .iter()
        .rev()
        .find(|p| p.action == REFUSED)
        .map(|p| p.details.clone())
}

/// Whether a processing-history line is a delivery receipt.
pub fn is_receipt(entry: &ProcessingEntry) -> bool {
    entry.action == RECEIVED
}

/// Every readable copy of a message in `folders` of a mailbox (a copy moved on meanwhile is
/// skipped).
fn read_copies(
    mailbox: &Mailbox,
    id: &str,
    folders: &[Folder],
) -> Result<Vec<(Envelope, Message)>> {
    MessageRef::parse(id)?;
    mailbox.read_copies(&MessageRef::Id(id.to_owned()), folders)
}

/// Every readable copy of message `id` in `folders` of a mailbox under its file name `name`:
/// every copy FileBox writes of a message has its one name, on every machine (the rule a send
/// follows when it finishes an interrupted delivery), so a delivery finds them with one open
/// per folder, where a look-up by id would catch the index up (or read the folder's names)
/// for every mail that arrives. Files of that name holding other messages are read by id.
fn copies_named(
    mailbox: &Mailbox,
    id: &str,
    name: &FileName,
    folders: &[Folder],
) -> Result<Vec<(Envelope, Message)>> {
    MessageRef::parse(id)?;
    match mailbox.read_copies(&MessageRef::File(name.clone()), folders) {
        Ok(copies) => Ok(copies
            .into_iter()
            .filter(|(copy, _)| copy.header.id().eq_ignore_ascii_case(id))
            .collect()),
        Err(Error::Ambiguous { .. }) => read_copies(mailbox, id, folders),
        Err(e) => Err(e),
    }
}

/// Whether `copy` already holds `conversation`: at least as many entries, the last of them
/// the same (time and text; who said it is named differently on each machine).
fn knows_conversation(copy: &Message, conversation: &[ConversationEntry]) -> bool {
    match conversation.last() {
        None => true,
        Some(last) => copy
            .conversation
            .get(conversation.len() - 1)
            .is_some_and(|mine| mine.timestamp == last.timestamp && mine.body == last.body),
    }
}

/// How much happened to a message: its conversation and processing entries.
fn history_len(message: &Message) -> usize {
    message.conversation.len() + message.processing.len()
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mail::send::SendRequest;
    use crate::mailroom::config::{AgentEntry, Config};
    use crate::message::{MessageType, ProcessingEntry};

    /// A config with agents `a`, `c` and `b@far` (a remote agent: a stand-in mailbox), as `a`.
    fn mailroom(dir: &std::path::Path) -> Mailroom {
        let config = Config::update(&dir.join("config.json"), |file| {
            for local in ["a", "c"] {
                file.agents
                    .insert(AgentId::new(local)?, AgentEntry::new(dir.join(local)));
            }
            file.agents
                .insert(AgentId::new("b@far")?, AgentEntry::on_hub("far"));
            Ok(())
        })
        .unwrap();
        Mailroom::new(config, Some(&AgentId::new("a").unwrap())).unwrap()
    }

    fn sent(mailroom: &Mailroom, to: &str) -> (FileName, Message) {
        let kind = MessageType::new("DIS").unwrap();
        let receipt = mailroom.send(&SendRequest::new(to, kind, "hello")).unwrap();
        inbox_copy(mailroom, to, MessageRef::Id(receipt.id))
    }

    /// The copy `reference` names in `agent`'s inbox: its file name and the message.
    fn inbox_copy(mailroom: &Mailroom, agent: &str, reference: MessageRef) -> (FileName, Message) {
        let mailbox = mailroom.mailbox(&AgentId::new(agent).unwrap()).unwrap();
        let found = mailbox.find(&reference, &[Folder::Inbox]).unwrap();
        (found.file.clone(), mailbox.read(&found).unwrap())
    }

    fn answered(message: &Message, text: &str) -> Message {
        let mut next = message.clone();
        next.conversation.push(ConversationEntry {
            timestamp: "2030-01-01T00:00:00Z".into(),
            from: "b@far".into(),
            to: "a".into(),
            kind: "DIS".into(),
            body: text.into(),
        });
        next
    }

    /// Receipts for one copy recorded at once (a receipt redelivered beside itself): one line.
    #[test]
    fn receipts_for_one_copy_at_once_record_one_line() {
        let dir = tempfile::tempdir().unwrap();
        let mailroom = mailroom(dir.path());
        let far = AgentId::new("b@far").unwrap();
        let (name, message) = sent(&mailroom, "b@far");
        let id = message.header.id().to_owned();
        let recorded = std::thread::scope(|scope| {
            let threads: Vec<_> = (0..8)
                .map(|_| {
                    scope.spawn(|| mailroom.record_receipt(&far, &id, 0, Some(&name)).unwrap())
                })
                .collect();
            threads
                .into_iter()
                .map(|t| t.join().unwrap())
                .filter(|recorded| *recorded)
                .count()
        });
        assert_eq!(recorded, 1);
        let (_, copy) = inbox_copy(&mailroom, "b@far", MessageRef::Id(id));
        let lines = copy
            .processing
            .iter()
            .filter(|p| p.action == RECEIVED)
            .count();
        assert_eq!(lines, 1);
    }

    /// A receipt whose `file` names another message's copy (a careless or hostile hub): the
    /// other copy is left as it is, and the receipt lands on its own message, found by id.
    #[test]
    fn a_receipt_naming_another_messages_file_touches_only_its_own_message() {
        let dir = tempfile::tempdir().unwrap();
        let mailroom = mailroom(dir.path());
        let far = AgentId::new("b@far").unwrap();
        let (first_file, first) = sent(&mailroom, "b@far");
        let (second_file, second) = sent(&mailroom, "b@far");
        let is_received = |file: &FileName| {
            received(&inbox_copy(&mailroom, "b@far", MessageRef::File(file.clone())).1)
        };
        let recorded = mailroom
            .record_receipt(&far, first.header.id(), 0, Some(&second_file))
            .unwrap();
        assert!(recorded);
        assert!(is_received(&first_file), "found by its id");
        assert!(
            !is_received(&second_file),
            "the named file holds another message"
        );
        assert_ne!(first.header.id(), second.header.id());
    }

    #[test]
    fn a_delivery_is_written_once_per_version() {
        let dir = tempfile::tempdir().unwrap();
        let mailroom = mailroom(dir.path());
        let me = AgentId::new("c").unwrap();
        // A message of b@far's stand-in, as it would arrive at `c` again and again.
        let (name, message) = sent(&mailroom, "b@far");
        let reply = answered(&message, "done");
        // Each version once; an older version after the newer: nothing.
        let deliveries = [
            (&message, Travelled::Written),
            (&message, Travelled::AlreadyThere),
            (&reply, Travelled::Written),
            (&reply, Travelled::AlreadyThere),
            (&message, Travelled::AlreadyThere),
        ];
        for (step, (version, expected)) in deliveries.into_iter().enumerate() {
            let mut unsynced = Unsynced::default();
            let outcome = mailroom
                .deliver_travelled(&me, &name, version, &mut unsynced)
                .unwrap();
            unsynced.sync().unwrap();
            assert_eq!(outcome, expected, "delivery {step}");
        }
        let mailbox = mailroom.mailbox(&me).unwrap();
        let inbox = mailbox.list(Folder::Inbox).unwrap();
        assert_eq!(inbox.messages.len(), 1);
        let copy = mailbox.read(&inbox.messages[0]).unwrap();
        assert_eq!(
            copy.conversation.len(),
            1,
            "the newer version replaced the older"
        );
    }

    #[test]
    fn a_mirror_moves_the_waiting_copy_and_never_goes_back() {
        let dir = tempfile::tempdir().unwrap();
        let mailroom = mailroom(dir.path());
        let far = AgentId::new("b@far").unwrap();
        let (name, message) = sent(&mailroom, "b@far");
        let mut held = message.clone();
        held.processing.push(ProcessingEntry {
            timestamp: "2030-01-01T00:00:00Z".into(),
            action: "On Hold".into(),
            by: "b@far".into(),
            details: "later".into(),
        });
        let mut resolved = held.clone();
        resolved.processing.push(ProcessingEntry {
            action: "Resolved".into(),
            ..held.processing[0].clone()
        });
        let stand_in = mailroom.mailbox(&far).unwrap();
        let folders = || {
            Folder::ALL
                .into_iter()
                .filter(|f| !stand_in.list(*f).unwrap().messages.is_empty())
                .collect::<Vec<_>>()
        };
        assert_eq!(folders(), [Folder::Inbox]);
        let mirror = |folder, message: &Message| {
            mailroom
                .mirror_travelled(&far, folder, &name, message)
                .unwrap()
        };
        assert_eq!(mirror(Folder::Hold, &held), Travelled::Written);
        assert_eq!(folders(), [Folder::Hold]);
        assert_eq!(mirror(Folder::Done, &resolved), Travelled::Written);
        assert_eq!(folders(), [Folder::Done]);
        // Redelivered in the wrong order: the older state is not written again.
        assert_eq!(mirror(Folder::Hold, &held), Travelled::AlreadyThere);
        assert_eq!(mirror(Folder::Done, &resolved), Travelled::AlreadyThere);
        assert_eq!(folders(), [Folder::Done]);
    }
}
