//! The derived record of a keyed write in `.filebox/`, so that a repeat finds its earlier
//! write by one file name instead of reading the headers of the whole outbox. The key's lock
//! file holds the name of the file its last keyed write published, written (and synced)
//! under the lock before that write publishes anything. The files still decide: a record is
//! believed only when the file it names carries the key. When `.filebox/` has no records yet
//! (a new or deleted one), the keyed files of the window are read once and recorded, and a
//! marker says that was done: slower once, never wrong.

use std::fs::{File, OpenOptions};
use std::os::unix::fs::{FileExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use crate::error::{IoContext, Result};
use crate::fs::beneath::Place;
use crate::mail::idempotency::{self, IdempotencyKey};
use crate::mailbox::Mailbox;
use crate::message::FileName;
use crate::store;

/// The marker in `.filebox/`: present once the keyed files of the window have records.
const MARKER: &str = "idempotency-records";

/// The longest record read back: a file name and its newline.
const MAX_RECORD_BYTES: usize = 512;

/// A keyed write in progress: the key's lock, held until dropped, and its record.
pub(crate) struct KeyedWrite {
    lock: store::Lock,
    path: PathBuf,
    stamp: String,
}

impl KeyedWrite {
    /// Take the lock of `key` in `mailbox` (mine). Without the marker, first record every
    /// keyed write of mine that `keyed_writes` finds in the files (key, file name), then make
    /// the marker: from then on every keyed write has a record.
    pub(crate) fn take(
        mailbox: &Mailbox,
        key: &IdempotencyKey,
        stamp: String,
        keyed_writes: impl FnOnce() -> Result<Vec<(String, FileName)>>,
    ) -> Result<Self> {
        let path = idempotency::lock_path(mailbox, key);
        let lock = store::Lock::take(Place::new(mailbox.root(), &path))?;
        let marker = mailbox.state_dir().join(MARKER);
        if store::modified(&marker).is_none() {
            // Lock order: a key's lock, then this one; the files of other keys are written
            // while their writers wait here.
            let all = mailbox
                .state_dir()
                .join("locks")
                .join("idempotency-records.lock");
            store::with_lock(Place::new(mailbox.root(), &all), || {
                if store::modified(&marker).is_some() {
                    return Ok(());
                }
                for (key, name) in keyed_writes()? {
                    // A key no write could have used (a hand-edited header) has no lock.
                    let Ok(key) = IdempotencyKey::new(&key) else {
                        continue;
                    };
                    let record = idempotency::lock_path(mailbox, &key);
                    write_record(&open_record(&record)?, &record, &name)?;
                }
                store::create_private_file(&marker)
            })?;
        }
        Ok(KeyedWrite { lock, path, stamp })
    }

    /// The `Idempotency Key` header value every copy of this write carries.
    pub(crate) fn stamp(&self) -> &str {
        &self.stamp
    }

    /// The file the last keyed write with this key (or one sharing its hash) said it would
    /// publish; `None` without a whole record (never written, or cut short by a crash).
    pub(crate) fn recorded(&self) -> Result<Option<FileName>> {
        let mut bytes = vec![0; MAX_RECORD_BYTES];
        let read = self.lock.file().read_at(&mut bytes, 0).at(&self.path)?;
        let text = std::str::from_utf8(&bytes[..read]).unwrap_or_default();
        Ok(text
            .strip_suffix('\n')
            .filter(|name| !name.contains('\n'))
            .and_then(|name| FileName::new(name).ok()))
    }

    /// Say, durably, that this write publishes `name`: called before its first copy is
    /// published, so a write that a crash cut short is found by its name, or was never seen.
    pub(crate) fn record(&self, name: &FileName) -> Result<()> {
        write_record(self.lock.file(), &self.path, name)
    }
}

fn open_record(path: &Path) -> Result<File> {
    OpenOptions::new()
        .read(true)
        .write(true)
        .create(true)
        // The lock file holds the record a crashed holder left: opening it never empties it.
        .truncate(false)
        .mode(0o600)
        .open(path)
        .at(path)
}

fn write_record(file: &File, path: &Path, name: &FileName) -> Result<()> {
    let record = format!("{}\n", name.as_str());
    file.set_len(0).at(path)?;
    file.write_all_at(record.as_bytes(), 0).at(path)?;
    file.sync_data().at(path)
}

#[cfg(test)]
mod tests {
    use std::time::{Duration, SystemTime};

    use super::*;
    use crate::mail::idempotency::tests::{dev_and_qa, files, keyed};
    use crate::{Folder, Mailroom, MessageType, SendRequest};

    /// Make `key`'s record in dev's mailbox name `name`.
    fn plant_record(dev: &Mailroom, key: &str, name: &str) {
        let mailbox = dev.my_mailbox().unwrap();
        let path = idempotency::lock_path(&mailbox, &IdempotencyKey::new(key).unwrap());
        std::fs::create_dir_all(path.parent().unwrap()).unwrap();
        std::fs::write(path, format!("{name}\n")).unwrap();
    }

    /// The record names the earlier write, so the other files of the window are not read:
    /// two hundred of them, each claiming the key for other content, would make a scan of
    /// the outbox refuse the repeat (`KeyReused`), as main's did.
    #[test]
    fn a_recorded_repeat_is_found_without_reading_the_outbox() {
        let dir = tempfile::tempdir().unwrap();
        let dev = dev_and_qa(dir.path());
        let first = dev.send(&keyed("k1", "build it")).unwrap();
        let outbox = dev.my_mailbox().unwrap().folder_path(Folder::Outbox);
        let bytes = std::fs::read_to_string(outbox.join(&first.file)).unwrap();
        let (stamp_line, _) = bytes.split_once("k1 ").unwrap();
        let impostor = format!(
            "{stamp_line}k1 00000000deadbeef{}",
            &bytes[stamp_line.len() + 19..]
        );
        let an_hour_ago = SystemTime::now() - Duration::from_secs(3600);
        for n in 0..200 {
            let path = outbox.join(format!("20260101-000000-ER-other-{n:08x}.md"));
            std::fs::write(&path, &impostor).unwrap();
            std::fs::File::open(&path)
                .unwrap()
                .set_modified(an_hour_ago)
                .unwrap();
        }
        assert_eq!(dev.send(&keyed("k1", "build it")).unwrap(), first);
    }

    /// A writer killed after its record and before its first copy wrote nothing: the retry
    /// writes the message once.
    #[test]
    fn a_record_naming_no_file_is_a_write_that_never_happened() {
        let dir = tempfile::tempdir().unwrap();
        let dev = dev_and_qa(dir.path());
        plant_record(&dev, "k1", "20260101-000000-ER-build-it-0123abcd.md");
        let first = dev.send(&keyed("k1", "build it")).unwrap();
        assert!(first.written.is_some());
        assert_eq!(files(&dev), (1, 1));
        assert_eq!(dev.send(&keyed("k1", "build it")).unwrap(), first);
        assert_eq!(files(&dev), (1, 1));
    }

    /// A record is believed only when its file carries the key: one naming another message
    /// (a hash shared with another key, a hand-made record) is not that key's earlier write.
    #[test]
    fn a_record_naming_a_file_without_the_key_is_ignored() {
        let dir = tempfile::tempdir().unwrap();
        let dev = dev_and_qa(dir.path());
        let plain = dev
            .send(&SendRequest::new(
                "qa",
                MessageType::new("ER").unwrap(),
                "build it",
            ))
            .unwrap();
        plant_record(&dev, "k1", &plain.file);
        let keyed_send = dev.send(&keyed("k1", "build it")).unwrap();
        assert_ne!(keyed_send.id, plain.id);
        assert_eq!(files(&dev), (2, 2));
        assert_eq!(dev.send(&keyed("k1", "build it")).unwrap(), keyed_send);
    }
}
