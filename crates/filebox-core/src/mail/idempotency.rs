//! Idempotency keys: a send or reply repeated with the same key within [`WINDOW`] returns the
//! first result and writes nothing. The key lives in the files, not in `.filebox/`: every copy
//! a keyed write makes carries an `Idempotency Key` header field (`KEY FINGERPRINT`), and a
//! repeat finds the sender's own record of it (`outbox/`, or `done/` for an answered
//! question): the file a derived record names (`key_record.rs`, made from the headers of the
//! files written there within the window when `.filebox/` has none). So a hub killed after
//! the write, a restart, or a deleted `.filebox/` cannot turn a retry into a second message. One lock per key in `.filebox/locks/` serialises the look and the write,
//! so two writers with one key (threads or processes) make one message.

use std::path::PathBuf;
use std::time::{Duration, SystemTime};

use crate::agent::AgentId;
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::attachment::Attachment;
use crate::mailbox::{Envelope, Mailbox};
use crate::message::{FileName, field};
use crate::store;

/// How long a key keeps its first result: a repeat later than this after the first write is
/// a new message.
pub const WINDOW: Duration = Duration::from_secs(24 * 60 * 60);

/// The longest key accepted, in bytes.
const MAX_KEY_BYTES: usize = 128;

/// A caller's idempotency key: 1 to 128 visible ASCII characters (no spaces), such as a UUID.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct IdempotencyKey(String);

impl IdempotencyKey {
    pub fn new(key: &str) -> Result<IdempotencyKey> {
        if key.is_empty() || key.len() > MAX_KEY_BYTES || !key.bytes().all(|b| b.is_ascii_graphic())
        {
            return Err(Error::invalid(
                "idempotency key",
                key,
                "use 1 to 128 visible ASCII characters without spaces (a UUID fits)",
            ));
        }
        Ok(IdempotencyKey(key.to_owned()))
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Everything a keyed write was asked to do, reduced to a hash: a repeat with the same key
/// must ask for the same thing, or it is refused. FNV-1a (64 bits) over length-prefixed
/// parts: stable across builds and platforms, which `std`'s hasher does not promise. It
/// guards against a caller's mistake, not an adversary: a collision only merges two of the
/// caller's own calls under the caller's own key.
#[derive(Debug)]
pub(crate) struct Fingerprint(u64);

impl Fingerprint {
    const OFFSET: u64 = 0xcbf2_9ce4_8422_2325;
    const PRIME: u64 = 0x0000_0100_0000_01b3;

    pub(crate) fn new() -> Fingerprint {
        Fingerprint(Self::OFFSET)
    }

    /// Add one part; its length first, so `("ab", "c")` and `("a", "bc")` differ.
    pub(crate) fn add(&mut self, part: impl AsRef<[u8]>) -> &mut Fingerprint {
        let part = part.as_ref();
        for byte in (part.len() as u64).to_le_bytes().iter().chain(part) {
            self.0 = (self.0 ^ u64::from(*byte)).wrapping_mul(Self::PRIME);
        }
        self
    }

    /// An optional part: absent and empty differ.
    pub(crate) fn add_option(&mut self, part: Option<impl AsRef<[u8]>>) -> &mut Fingerprint {
        match part {
            Some(part) => self.add([1]).add(part),
            None => self.add([0]),
        }
    }

    pub(crate) fn add_attachments(&mut self, attachments: &[Attachment]) -> &mut Fingerprint {
        self.add((attachments.len() as u64).to_le_bytes());
        for attachment in attachments {
            self.add(&attachment.name)
                .add_option(attachment.mime.as_deref())
                .add(&attachment.bytes);
        }
        self
    }

    /// The `Idempotency Key` header value of a write with this key: `KEY FINGERPRINT`.
    pub(crate) fn stamp(&self, key: &IdempotencyKey) -> String {
        format!("{} {:016x}", key.as_str(), self.0)
    }
}

/// The key a stamp (an `Idempotency Key` header value) records.
fn stamped_key(stamp: &str) -> &str {
    stamp.split(' ').next().unwrap_or_default()
}

/// The lock that serialises every keyed write of `key` from `mailbox` (its owner's): held
/// from the look for an earlier write to the end of the new one. A hash names it, since a key
/// may hold `/`; two keys sharing a hash only wait for each other.
pub(crate) fn lock_path(mailbox: &Mailbox, key: &IdempotencyKey) -> PathBuf {
    let mut hash = Fingerprint::new();
    hash.add(key.as_str());
    mailbox
        .state_dir()
        .join("locks")
        .join(format!("idempotency-{:016x}.lock", hash.0))
}

/// The file `name` in the first of `folders` of `mailbox` that holds it as an earlier write of
/// mine with `key` within [`WINDOW`] (my record: my `outbox/`, or `done/` for an answered
/// question; a recipient's `inbox/`): written (published: every store write is a new file)
/// since then, and its header says I wrote its latest version with this key.
pub(crate) fn find_earlier(
    mailbox: &Mailbox,
    folders: &[Folder],
    me: &AgentId,
    key: &IdempotencyKey,
    name: &FileName,
) -> Result<Option<Envelope>> {
    for &folder in folders {
        let found = keyed_by(mailbox, folder, name, me, window_start())?;
        let found =
            found.filter(|envelope| stamp_of(envelope).map(stamped_key) == Some(key.as_str()));
        if found.is_some() {
            return Ok(found);
        }
    }
    Ok(None)
}

/// Every keyed write of mine within [`WINDOW`] in `folders` of `mailbox`: its key and file
/// name, from the headers of the files written there within the window.
pub(crate) fn keyed_writes(
    mailbox: &Mailbox,
    folders: &[Folder],
    me: &AgentId,
) -> Result<Vec<(String, FileName)>> {
    let since = window_start();
    let mut found = Vec::new();
    for &folder in folders {
        let (entries, _not_messages) = mailbox.file_entries_unsorted(folder)?;
        for (name, _) in entries {
            if let Some(envelope) = keyed_by(mailbox, folder, &name, me, since)? {
                let key = stamp_of(&envelope).map(stamped_key).unwrap_or_default();
                found.push((key.to_owned(), name));
            }
        }
    }
    Ok(found)
}

fn window_start() -> SystemTime {
    SystemTime::now()
        .checked_sub(WINDOW)
        .unwrap_or(SystemTime::UNIX_EPOCH)
}

fn stamp_of(envelope: &Envelope) -> Option<&str> {
    envelope.header.get(field::IDEMPOTENCY_KEY)
}

/// The file `name` in `folder`, when it was written since `since`, by me, with a key.
fn keyed_by(
    mailbox: &Mailbox,
    folder: Folder,
    name: &FileName,
    me: &AgentId,
    since: SystemTime,
) -> Result<Option<Envelope>> {
    let path = mailbox.folder_path(folder).join(name.as_str());
    if store::modified(&path).is_none_or(|written| written < since) {
        return Ok(None);
    }
    let envelope = match mailbox.envelope(folder, name) {
        Ok(Some(envelope)) => envelope,
        // Gone meanwhile, or not a message FileBox wrote: not a record of mine.
        Ok(None) | Err(Error::Malformed { .. }) => return Ok(None),
        Err(e) => return Err(e),
    };
    let mine = envelope.header.get(field::SENDER) == Some(me.as_str());
    Ok((mine && stamp_of(&envelope).is_some()).then_some(envelope))
}

#[cfg(test)]
pub(super) mod tests {
    use super::*;
    use crate::{Config, Folder, Mailroom, MessageRef, MessageType, SendReceipt, SendRequest};

    /// dev and qa in a temp dir; the mailroom acting as dev.
    pub(in crate::mail) fn dev_and_qa(dir: &std::path::Path) -> Mailroom {
        acting_as(dir, "dev")
    }

    fn acting_as(dir: &std::path::Path, me: &str) -> Mailroom {
        crate::mailroom::test_mailroom::dev_and_qa_as(dir, me)
    }

    /// A message to qa with `body`, under `key`.
    pub(in crate::mail) fn keyed(key: &str, body: &str) -> SendRequest {
        SendRequest {
            idempotency_key: Some(IdempotencyKey::new(key).unwrap()),
            ..SendRequest::new("qa", MessageType::new("ER").unwrap(), body)
        }
    }

    /// How many files each of (dev's outbox, qa's inbox) holds.
    pub(in crate::mail) fn files(dev: &Mailroom) -> (usize, usize) {
        let count = |agent: &str, folder| {
            let mailbox = dev.mailbox(&AgentId::new(agent).unwrap()).unwrap();
            mailbox.file_names(folder).unwrap().0.len()
        };
        (count("dev", Folder::Outbox), count("qa", Folder::Inbox))
    }

    #[test]
    fn a_repeat_returns_the_first_receipt_and_writes_nothing() {
        let dir = tempfile::tempdir().unwrap();
        let dev = dev_and_qa(dir.path());
        let first = dev.send(&keyed("k1", "build it")).unwrap();
        let again = dev.send(&keyed("k1", "build it")).unwrap();
        assert_eq!(again, first);
        assert_eq!(files(&dev), (1, 1));
        // Another key is another message.
        let other = dev.send(&keyed("k2", "build it")).unwrap();
        assert_ne!(other.id, first.id);
        assert_eq!(files(&dev), (2, 2));
    }

    #[test]
    fn the_files_remember_the_key_without_the_state_folder() {
        let dir = tempfile::tempdir().unwrap();
        let dev = dev_and_qa(dir.path());
        let first = dev.send(&keyed("k1", "build it")).unwrap();
        let mailbox = dev.my_mailbox().unwrap();
        std::fs::remove_dir_all(mailbox.state_dir()).unwrap();
        assert_eq!(dev.send(&keyed("k1", "build it")).unwrap(), first);
        assert_eq!(files(&dev), (1, 1));
    }

    #[test]
    fn a_key_reused_for_other_content_is_refused_and_nothing_is_written() {
        let dir = tempfile::tempdir().unwrap();
        let dev = dev_and_qa(dir.path());
        let first = dev.send(&keyed("k1", "build it")).unwrap();
        let error = dev.send(&keyed("k1", "build something else")).unwrap_err();
        assert!(
            matches!(&error, Error::KeyReused { key, id } if key == "k1" && *id == first.id),
            "{error}"
        );
        assert!(error.to_string().contains("\"k1\""), "{error}");
        assert_eq!(files(&dev), (1, 1));
    }

    #[test]
    fn a_key_past_its_window_sends_anew() {
        let dir = tempfile::tempdir().unwrap();
        let dev = dev_and_qa(dir.path());
        let first = dev.send(&keyed("k1", "build it")).unwrap();
        let outbox = dev.my_mailbox().unwrap().folder_path(Folder::Outbox);
        let old = SystemTime::now() - WINDOW - Duration::from_secs(60);
        std::fs::File::open(outbox.join(&first.file))
            .unwrap()
            .set_modified(old)
            .unwrap();
        let later = dev.send(&keyed("k1", "build it")).unwrap();
        assert_ne!(later.id, first.id);
        assert_eq!(files(&dev), (2, 2));
    }

    #[test]
    fn a_repeated_reply_adds_one_entry() {
        let dir = tempfile::tempdir().unwrap();
        let dev = dev_and_qa(dir.path());
        let sent = dev.send(&keyed("k1", "build it")).unwrap();
        let qa = acting_as(dir.path(), "qa");
        let reply = SendRequest {
            to: vec!["dev".into()],
            reply_to: Some(MessageRef::Id(sent.id.clone())),
            ..keyed("r1", "done")
        };
        let first = qa.send(&reply).unwrap();
        assert_eq!(qa.send(&reply).unwrap(), first);
        let copy = dev
            .my_mailbox()
            .unwrap()
            .find(&MessageRef::Id(sent.id.clone()), &[Folder::Inbox])
            .unwrap();
        let message = dev.my_mailbox().unwrap().read(&copy).unwrap();
        assert_eq!(message.conversation.len(), 1);
        // The key was qa's reply's: dev's send key no longer rides on the new version.
        assert!(
            message
                .header
                .get(field::IDEMPOTENCY_KEY)
                .unwrap()
                .starts_with("r1 ")
        );
    }

    /// The writer was killed after qa's copy and before its own: the retry finds qa's copy,
    /// makes the missing ones (here also me's, whom the kill left without) and answers with it.
    #[test]
    fn a_retry_finishes_a_send_killed_before_the_senders_copy() {
        let dir = tempfile::tempdir().unwrap();
        let dev = dev_and_qa(dir.path());
        let me = AgentId::new("me").unwrap();
        let config = Config::update(&dir.path().join(".filebox/config.json"), |file| {
            file.agents.insert(
                me.clone(),
                crate::AgentEntry::new(dir.path().join("mailboxes/me")),
            );
            Ok(())
        })
        .unwrap();
        let dev = Mailroom::new(config, Some(dev.me())).unwrap();
        let both = SendRequest {
            to: vec!["qa,me".into()],
            ..keyed("k1", "build it")
        };
        let first = dev.send(&both).unwrap();
        let unlink = |agent: &AgentId, folder| {
            let mailbox = dev.mailbox(agent).unwrap();
            std::fs::remove_file(mailbox.folder_path(folder).join(&first.file)).unwrap();
        };
        unlink(dev.me(), Folder::Outbox);
        unlink(&me, Folder::Inbox);
        assert_eq!(dev.send(&both).unwrap(), first);
        assert_eq!(files(&dev), (1, 1));
        let mine = dev.mailbox(&me).unwrap();
        assert_eq!(mine.file_names(Folder::Inbox).unwrap().0.len(), 1);
    }

    #[test]
    fn threads_sending_with_one_key_make_one_message() {
        let dir = tempfile::tempdir().unwrap();
        let dev = dev_and_qa(dir.path());
        let receipts: Vec<SendReceipt> = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..8)
                .map(|_| {
                    let dev = dev.clone();
                    scope.spawn(move || dev.send(&keyed("same", "once only")).unwrap())
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).collect()
        });
        assert!(receipts.iter().all(|r| *r == receipts[0]), "{receipts:?}");
        let written = receipts.iter().filter(|r| r.written.is_some()).count();
        assert_eq!(written, 1, "one send wrote, the others answered from it");
        assert_eq!(files(&dev), (1, 1));
    }

    #[test]
    fn a_key_is_visible_ascii_of_bounded_length() {
        for good in [
            "a",
            "0b6a1c2e-7f00-4c1a-9d2e-3f4a5b6c7d8e",
            "order/42:retry#1",
        ] {
            assert!(IdempotencyKey::new(good).is_ok(), "{good}");
        }
        let long = "k".repeat(MAX_KEY_BYTES + 1);
        for bad in ["", "two words", "tab\there", "clé", long.as_str()] {
            let error = IdempotencyKey::new(bad).unwrap_err().to_string();
            assert!(error.contains("idempotency key"), "{error}");
        }
    }

    #[test]
    fn a_fingerprint_tells_apart_what_concatenation_would_merge() {
        let key = IdempotencyKey::new("k").unwrap();
        let of = |parts: &[&str]| {
            let mut fingerprint = Fingerprint::new();
            parts.iter().for_each(|part| {
                fingerprint.add(part);
            });
            fingerprint.stamp(&key)
        };
        assert_eq!(of(&["ab", "c"]), of(&["ab", "c"]));
        assert_ne!(of(&["ab", "c"]), of(&["a", "bc"]));
        assert_eq!(stamped_key(&of(&["x"])), "k");
        let mut absent = Fingerprint::new();
        absent.add_option(None::<&str>);
        let mut empty = Fingerprint::new();
        empty.add_option(Some(""));
        assert_ne!(absent.stamp(&key), empty.stamp(&key));
    }
}
