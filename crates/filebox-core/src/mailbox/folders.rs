//! One agent's mailbox on disk: its folders, listing, and finding a message by reference.

use std::collections::HashMap;
use std::collections::hash_map::Entry;
use std::fs;
use std::path::{Path, PathBuf};

use crate::agent::AgentId;
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::fs::beneath;
use crate::message::limits::HEADER_LIMIT;
use crate::message::{self, FileName, Header, Message, MessageIdShort};
use crate::store;
use crate::store::checked_dirs::{DirSeen, ROOTS};
use crate::time;

/// How much of a file a listing reads: the header always fits in this for our own files.
const HEADER_PREFIX: usize = 8 * 1024;

/// A mailbox root with its folders present and its `tmp/` recovered.
#[derive(Debug, Clone)]
pub struct Mailbox {
    owner: AgentId,
    root: PathBuf,
}

/// A message in a folder, known from its header only.
#[derive(Debug, Clone)]
pub struct Envelope {
    pub folder: Folder,
    pub file: FileName,
    pub path: PathBuf,
    pub header: Header,
}

impl Envelope {
    /// The `YYYYMMDDTHHMMSS` the listing sorts and prints by: from the name, else the header.
    pub fn compact_time(&self) -> String {
        listing_time(&self.file, &self.header)
    }

    /// Put envelopes in listing order: oldest first by the time to the second, and within one
    /// second in the order the files were written (names would put `request-10` before
    /// `request-2`), then by name. Only files that share a second are looked at again.
    pub fn sort_oldest_first(envelopes: &mut [Envelope]) {
        envelopes.sort_by_cached_key(|m| (m.compact_time(), m.file.clone()));
        let times: Vec<String> = envelopes.iter().map(Envelope::compact_time).collect();
        let mut start = 0;
        while start < envelopes.len() {
            let end = start
                + times[start..]
                    .iter()
                    .take_while(|t| **t == times[start])
                    .count();
            if end - start > 1 {
                envelopes[start..end]
                    .sort_by_cached_key(|m| (store::modified(&m.path), m.file.clone()));
            }
            start = end;
        }
    }

    /// The listing line: `2025-06-27T153000 ER Title (file-name.md)`.
    pub fn listing_line(&self) -> String {
        let when = time::listing_form(&self.compact_time()).unwrap_or_else(|| "-".into());
        format!(
            "{when} {} {} ({})",
            self.header.kind, self.header.title, self.file
        )
    }
}

/// The `YYYYMMDDTHHMMSS` a listing sorts a file by: from its name, else its header's
/// timestamp, else empty (first).
pub(crate) fn listing_time(file: &FileName, header: &Header) -> String {
    file.compact_time()
        .map(str::to_owned)
        .or_else(|| {
            header
                .get(message::field::TIMESTAMP)
                .and_then(time::parse_iso)
                .map(time::compact)
        })
        .unwrap_or_default()
}

fn not_a_folder(path: PathBuf) -> Error {
    Error::Malformed {
        path,
        reason: "a mailbox folder must be a real directory, not a symlink or file".into(),
    }
}

/// A file's inode number, which changes whenever the store rewrites it (always by rename).
pub(crate) type Inode = u64;

/// A folder's message files with their inodes, and the entries that were skipped.
pub(crate) type FolderEntries = (Vec<(FileName, Inode)>, Vec<Problem>);

/// A file that could not be listed, and why. Listing goes on without it.
#[derive(Debug, Clone)]
pub struct Problem {
    pub path: PathBuf,
    pub reason: String,
}

/// A folder's messages, oldest first, one per Message ID, and the files that were skipped.
#[derive(Debug, Default)]
pub struct Listing {
    pub messages: Vec<Envelope>,
    pub problems: Vec<Problem>,
}

impl Listing {
    /// The listing of a folder from what reading each file (in name order) gave, after the
    /// folder's entries that were skipped.
    pub(crate) fn of(reads: Vec<Result<Option<Envelope>>>, mut problems: Vec<Problem>) -> Listing {
        let mut messages = Vec::with_capacity(reads.len());
        for read in reads {
            match read {
                Ok(Some(envelope)) => messages.push(envelope),
                Ok(None) => {}
                Err(e) => problems.push(problem(e)),
            }
        }
        Envelope::sort_oldest_first(&mut messages);
        Listing {
            messages: one_per_id(messages),
            problems,
        }
    }
}

/// How a caller names a message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MessageRef {
    File(FileName),
    /// The first 8 hex characters of the Message ID.
    Short(String),
    /// A whole Message ID.
    Id(String),
}

impl MessageRef {
    /// Parse a file name, an 8-character short id, or a whole message id.
    pub fn parse(value: &str) -> Result<MessageRef> {
        let value = value.trim();
        if value.ends_with(".md") {
            return FileName::new(value).map(MessageRef::File);
        }
        if MessageIdShort::is_short(value) {
            return Ok(MessageRef::Short(value.to_ascii_lowercase()));
        }
        let plausible = value.len() > 8
            && value.len() <= 128
            && value
                .chars()
                .all(|c| c.is_ascii_alphanumeric() || matches!(c, '-' | '_' | '.'));
        if plausible {
            Ok(MessageRef::Id(value.to_owned()))
        } else {
            Err(Error::invalid(
                "message reference",
                value,
                "expected a message id, its first 8 characters, or a file name ending in .md",
            ))
        }
    }

    /// The text the caller gave, for messages.
    pub fn text(&self) -> &str {
        match self {
            MessageRef::File(name) => name.as_str(),
            MessageRef::Short(s) | MessageRef::Id(s) => s,
        }
    }

    pub(crate) fn short(&self) -> Option<String> {
        match self {
            MessageRef::File(name) => name.short_id().map(str::to_owned),
            MessageRef::Short(s) => Some(s.clone()),
            MessageRef::Id(id) => Some(MessageIdShort::of(id)),
        }
    }
}

impl Mailbox {
    /// Open (creating its folders on first use) and clean up after crashed writers.
    pub fn open(owner: AgentId, root: PathBuf) -> Result<Mailbox> {
        let mailbox = Mailbox { owner, root };
        let seen = DirSeen::of(&mailbox.root);
        if !ROOTS.still(&mailbox.root, seen) {
            mailbox.check_and_create_folders()?;
            ROOTS.passed(&mailbox.root, seen);
        }
        store::recover(&mailbox.tmp())?;
        Ok(mailbox)
    }

    /// Make the mailbox folder and each of its folders unless it is there; refuse one that is
    /// not a directory (a symlink or a file).
    fn check_and_create_folders(&self) -> Result<()> {
        store::create_private_dir(&self.root)?;
        for dir in Folder::ALL
            .iter()
            .map(|f| self.folder_path(*f))
            .chain([self.tmp(), self.state_dir()])
        {
            match fs::symlink_metadata(&dir) {
                Ok(meta) if meta.file_type().is_dir() => {}
                Ok(_) => return Err(not_a_folder(dir)),
                Err(_) => beneath::create_dir(&self.root, &dir)
                    .map_err(|e| store::refuse_link(&dir, e))?,
            }
        }
        Ok(())
    }

    /// Open to read only: nothing is created and `tmp/` is not recovered (readers never look
    /// there; its owner's next write recovers it). A folder not created yet reads as empty; a
    /// folder that is a symlink or a file is refused, as on a writer's open.
    pub fn open_to_read(owner: AgentId, root: PathBuf) -> Result<Mailbox> {
        let mailbox = Mailbox { owner, root };
        if ROOTS.still(&mailbox.root, DirSeen::of(&mailbox.root)) {
            return Ok(mailbox);
        }
        for dir in Folder::ALL
            .iter()
            .map(|f| mailbox.folder_path(*f))
            .chain([mailbox.state_dir()])
        {
            match fs::symlink_metadata(&dir) {
                Ok(meta) if meta.file_type().is_dir() => {}
                Ok(_) => return Err(not_a_folder(dir)),
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
                Err(e) => return Err(Error::io(dir, e)),
            }
        }
        Ok(mailbox)
    }

    pub fn owner(&self) -> &AgentId {
        &self.owner
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    pub fn folder_path(&self, folder: Folder) -> PathBuf {
        self.root.join(folder.as_str())
    }

    pub(crate) fn tmp(&self) -> PathBuf {
        self.root.join("tmp")
    }

    /// Create `.filebox/` (and the mailbox folder) unless it is there, never through a symlink.
    pub(crate) fn create_state_dir(&self) -> Result<()> {
        store::create_private_dir(&self.root)?;
        let dir = self.state_dir();
        beneath::create_dir(&self.root, &dir).map_err(|e| store::refuse_link(&dir, e))
    }

    /// Derived state (index, locks): `<root>/.filebox/`.
    pub fn state_dir(&self) -> PathBuf {
        self.root.join(".filebox")
    }

    /// The `.md` file names in a folder, sorted; symlinks and odd names are reported.
    pub fn file_names(&self, folder: Folder) -> Result<(Vec<FileName>, Vec<Problem>)> {
        let (entries, problems) = self.file_entries(folder)?;
        Ok((
            entries.into_iter().map(|(name, _)| name).collect(),
            problems,
        ))
    }

    /// Like [`Mailbox::file_names`], with each file's inode number: a file replaced by a
    /// rename (every rewrite the store makes) gets a new one, without a `stat` per file.
    pub(crate) fn file_entries(&self, folder: Folder) -> Result<FolderEntries> {
        let (mut names, problems) = self.file_entries_unsorted(folder)?;
        names.sort();
        Ok((names, problems))
    }

    /// [`Mailbox::file_entries`] in directory order, for callers that do not need an order
    /// (sorting 100,000 names costs more than listing them).
    pub(crate) fn file_entries_unsorted(&self, folder: Folder) -> Result<FolderEntries> {
        use std::os::unix::fs::DirEntryExt;
        let mut names = Vec::new();
        let problems = self.visit_file_entries(folder, |file, entry| {
            names.push((file, entry.ino()));
        })?;
        Ok((names, problems))
    }

    /// Visit each message file of a folder in directory order, collecting nothing (a look at a
    /// folder of 1,000,000 files that keeps only a few of them); the entries that are not
    /// message files are the problems returned.
    pub(crate) fn visit_file_entries(
        &self,
        folder: Folder,
        mut visit: impl FnMut(FileName, &fs::DirEntry),
    ) -> Result<Vec<Problem>> {
        let dir = self.folder_path(folder);
        let mut problems = Vec::new();
        let entries = match fs::read_dir(&dir) {
            Ok(entries) => entries,
            // A reader's open creates nothing: a folder not made yet holds nothing.
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => return Ok(Vec::new()),
            Err(e) => return Err(Error::io(dir, e)),
        };
        for entry in entries {
            let Ok(entry) = entry else { continue };
            let raw = entry.file_name();
            let Some(name) = raw.to_str() else {
                problems.push(Problem {
                    path: entry.path(),
                    reason: "the file name is not UTF-8".into(),
                });
                continue;
            };
            if !name.ends_with(".md") || name.starts_with('.') {
                continue;
            }
            match (entry.file_type(), FileName::new(name)) {
                (Ok(kind), Ok(file)) if kind.is_file() => visit(file, &entry),
                (Ok(kind), _) if kind.is_symlink() => problems.push(Problem {
                    path: entry.path(),
                    reason: "symlinks are not followed".into(),
                }),
                (_, Err(e)) => problems.push(Problem {
                    path: entry.path(),
                    reason: e.to_string(),
                }),
                (Ok(_), Ok(_)) => problems.push(Problem {
                    path: entry.path(),
                    reason: "not a regular file".into(),
                }),
                (Err(e), Ok(_)) => problems.push(Problem {
                    path: entry.path(),
                    reason: e.to_string(),
                }),
            }
        }
        Ok(problems)
    }

    /// Visit the header of each message file of a folder, one file at a time in directory
    /// order, so a look at every file of a folder of 1,000,000 holds only what `visit` keeps
    /// (a listing holds every header at once, and the allocator keeps that high-water mark).
    /// A file that cannot be read or parsed, or that vanished meanwhile, is passed over (a
    /// listing reports it).
    pub fn visit_envelopes(&self, folder: Folder, mut visit: impl FnMut(Envelope)) -> Result<()> {
        let mut buffer = Vec::new();
        self.visit_file_entries(folder, |file, _| {
            if let Ok(Some(envelope)) = self.envelope_with(folder, &file, &mut buffer) {
                visit(envelope);
            }
        })?;
        Ok(())
    }

    /// Read one file's header. A file that vanished meanwhile is `Ok(None)`.
    pub fn envelope(&self, folder: Folder, file: &FileName) -> Result<Option<Envelope>> {
        self.envelope_with(folder, file, &mut Vec::new())
    }

    /// [`Mailbox::envelope`] reading into `buffer`, which a listing reuses from file to file.
    fn envelope_with(
        &self,
        folder: Folder,
        file: &FileName,
        buffer: &mut Vec<u8>,
    ) -> Result<Option<Envelope>> {
        let path = self.folder_path(folder).join(file.as_str());
        let read = |limit: usize, buffer: &mut Vec<u8>| store::read_prefix(&path, limit, buffer);
        match listed_header(&path, read, buffer) {
            Ok(header) => Ok(Some(Envelope {
                folder,
                file: file.clone(),
                path,
                header,
            })),
            Err(e) if store::is_not_found(&e) => Ok(None),
            Err(e) => Err(e),
        }
    }

    /// [`Mailbox::envelope`] and, when the whole file parses, the message, from one read (the
    /// hub's event of an inbox arrival looks into the message for a read receipt).
    pub fn envelope_and_message(
        &self,
        folder: Folder,
        file: &FileName,
    ) -> Result<Option<(Envelope, Option<Message>)>> {
        let path = self.folder_path(folder).join(file.as_str());
        let bytes = match store::read_regular(&path) {
            Ok(bytes) => bytes,
            Err(e) if store::is_not_found(&e) => return Ok(None),
            Err(e) => return Err(e),
        };
        let prefix = |limit: usize, buffer: &mut Vec<u8>| {
            buffer.clear();
            buffer.extend_from_slice(&bytes[..limit.min(bytes.len())]);
            Ok(bytes.len() <= limit)
        };
        let header = listed_header(&path, prefix, &mut Vec::new())?;
        let message = parse_bytes(&path, &bytes).ok();
        let envelope = Envelope {
            folder,
            file: file.clone(),
            path,
            header,
        };
        Ok(Some((envelope, message)))
    }

    /// List a folder: oldest first, one entry per Message ID; unreadable files are reported in
    /// `problems` and skipped. Reads every file's header (`index::list` serves the same listing
    /// from the index when it is current).
    pub fn list(&self, folder: Folder) -> Result<Listing> {
        let (names, problems) = self.file_names(folder)?;
        Ok(Listing::of(self.envelopes(folder, &names), problems))
    }

    /// Read many headers, in order. A listing is one open and one read per file, so large
    /// folders are read by a few threads at once: the time is system calls, not CPU.
    fn envelopes(&self, folder: Folder, names: &[FileName]) -> Vec<Result<Option<Envelope>>> {
        crate::mailbox::parallel::map_chunks(names, |part| self.read_envelopes(folder, part))
    }

    fn read_envelopes(&self, folder: Folder, names: &[FileName]) -> Vec<Result<Option<Envelope>>> {
        let mut buffer = Vec::new();
        names
            .iter()
            .map(|n| self.envelope_with(folder, n, &mut buffer))
            .collect()
    }

    /// Read a whole message.
    pub fn read(&self, envelope: &Envelope) -> Result<Message> {
        read_message(&envelope.path)
    }

    /// Read a message and its Markdown as it is on disk.
    pub fn read_with_markdown(&self, envelope: &Envelope) -> Result<(Message, String)> {
        let bytes = store::read_regular(&envelope.path)?;
        let message = parse_bytes(&envelope.path, &bytes)?;
        let markdown =
            String::from_utf8(bytes).map_err(|_| malformed(&envelope.path, "it is not UTF-8"))?;
        Ok((message, markdown))
    }

    /// Message counts per folder.
    pub fn counts(&self) -> Result<Vec<(Folder, usize)>> {
        Folder::ALL
            .iter()
            .map(|&f| self.file_names(f).map(|(names, _)| (f, names.len())))
            .collect()
    }
}

/// One envelope per Message ID, where the first of each stood; of several copies, the most
/// complete.
fn one_per_id(messages: Vec<Envelope>) -> Vec<Envelope> {
    let mut copies: Vec<Vec<Envelope>> = Vec::with_capacity(messages.len());
    let mut place: HashMap<String, usize> = HashMap::with_capacity(messages.len());
    for envelope in messages {
        match place.entry(envelope.header.id().to_owned()) {
            Entry::Occupied(at) => copies[*at.get()].push(envelope),
            Entry::Vacant(at) => {
                at.insert(copies.len());
                copies.push(vec![envelope]);
            }
        }
    }
    copies.into_iter().map(most_complete).collect()
}

/// Of several files with one Message ID in a folder (a damaged or older copy another tool
/// left, a version kept beside a recovered claim), the most complete: one that parses whole,
/// then the longest conversation and history, then the most bytes; the first given on a tie.
/// Only duplicates are read whole, so a listing without them costs no more.
pub(crate) fn most_complete(mut copies: Vec<Envelope>) -> Envelope {
    if copies.len() == 1 {
        return copies.swap_remove(0);
    }
    let completeness = |envelope: &Envelope| match store::read_regular(&envelope.path) {
        Ok(bytes) => match parse_bytes(&envelope.path, &bytes) {
            Ok(message) => (
                true,
                message.conversation.len(),
                message.processing.len(),
                bytes.len(),
            ),
            Err(_) => (false, 0, 0, bytes.len()),
        },
        Err(_) => (false, 0, 0, 0),
    };
    let mut best = 0;
    let mut best_key = completeness(&copies[0]);
    for (n, copy) in copies.iter().enumerate().skip(1) {
        let key = completeness(copy);
        if key > best_key {
            (best, best_key) = (n, key);
        }
    }
    copies.swap_remove(best)
}

/// Parse a message file.
pub(crate) fn read_message(path: &Path) -> Result<Message> {
    let bytes = store::read_regular(path)?;
    parse_bytes(path, &bytes)
}

pub(crate) fn parse_bytes(path: &Path, bytes: &[u8]) -> Result<Message> {
    let text = std::str::from_utf8(bytes).map_err(|_| malformed(path, "it is not UTF-8"))?;
    message::parse(text).map_err(|reason| malformed(path, reason))
}

/// The header a listing shows for the file at `path`, from its first 8 KiB, or its first MiB
/// when the header is longer; `read(limit, buffer)` fills `buffer` with at most `limit` bytes
/// from the file's start and says whether that was all of it. The index computes the same from
/// the bytes it read (`index/sync.rs`), so a listing served from the index is this exactly.
pub(crate) fn listed_header(
    path: &Path,
    mut read: impl FnMut(usize, &mut Vec<u8>) -> Result<bool>,
    buffer: &mut Vec<u8>,
) -> Result<Header> {
    let complete = read(HEADER_PREFIX, buffer)?;
    let parsed = match header_text(buffer, complete).map_err(|reason| malformed(path, reason))? {
        Some(text) => message::parse_header(text),
        None => {
            // A header longer than the prefix: read more, up to a limit.
            let mut longer = Vec::new();
            let complete = read(HEADER_LIMIT, &mut longer)?;
            let text = header_text(&longer, complete)
                .map_err(|reason| malformed(path, reason))?
                .ok_or_else(|| malformed(path, "no header in its first MiB"))?;
            message::parse_header(text)
        }
    };
    parsed.map_err(|reason| malformed(path, reason))
}

/// The header part of a file prefix: `Ok(None)` when the prefix is too short to hold it all.
fn header_text(bytes: &[u8], complete: bool) -> Result<Option<&str>, &'static str> {
    let text = match std::str::from_utf8(bytes) {
        Ok(text) => text,
        // Cut inside a multi-byte character: keep the valid part.
        Err(e) if !complete && e.error_len().is_none() => {
            std::str::from_utf8(&bytes[..e.valid_up_to()]).map_err(|_| "it is not UTF-8")?
        }
        Err(_) => return Err("it is not UTF-8"),
    };
    Ok((complete || text.contains("\n---")).then_some(text))
}

fn malformed(path: &Path, reason: impl Into<String>) -> Error {
    Error::Malformed {
        path: path.to_owned(),
        reason: reason.into(),
    }
}

/// A problem from the error of reading a file: the file and what was wrong with it.
impl From<Error> for Problem {
    fn from(error: Error) -> Problem {
        problem(error)
    }
}

pub(crate) fn problem(error: Error) -> Problem {
    match error {
        Error::Malformed { path, reason } => Problem { path, reason },
        Error::Io { path, source } => Problem {
            path,
            reason: source.to_string(),
        },
        other => Problem {
            path: PathBuf::new(),
            reason: other.to_string(),
        },
    }
}

pub(crate) fn describe_folders(mailbox: &Mailbox, folders: &[Folder]) -> String {
    let names: Vec<&str> = folders.iter().map(|f| f.as_str()).collect();
    format!("{}'s {}", mailbox.owner, names.join(", "))
}

#[cfg(test)]
mod tests {
    use std::sync::Barrier;

    use super::*;
    use crate::store::Destination;

    const NAME: &str = "20250101T000000-DIS-hi-00000001.md";
    const TEXT: &str =
        "# DIS: hi\n\n**Message ID:** 00000001-0000\n\n---\n\n## Original Request/Content\n\nx\n";

    /// Move the message from one folder to the other, as a transition does.
    fn bounce(mailbox: &Mailbox, from: Folder, to: Folder) {
        let target = Destination {
            tmp: mailbox.tmp(),
            dir: mailbox.folder_path(to),
            name: NAME.to_owned(),
        };
        let origin = mailbox.folder_path(from).join(NAME);
        store::move_message(&mailbox.tmp(), &origin, &[target], |bytes| {
            Ok(vec![bytes.to_vec()])
        })
        .unwrap();
    }

    /// Each round, a read races one move of the message by another thread: it finds the
    /// message wherever the move leaves it, never "not found" while it is in `tmp/`.
    #[test]
    fn a_message_moved_while_it_is_read_is_found() {
        let dir = tempfile::tempdir().unwrap();
        let mailbox = Mailbox::open(AgentId::new("a").unwrap(), dir.path().join("a")).unwrap();
        let inbox = mailbox.folder_path(Folder::Inbox);
        store::publish_new(&mailbox.tmp(), &inbox, NAME, TEXT.as_bytes()).unwrap();
        let reference = MessageRef::parse("00000001-0000").unwrap();
        const ROUNDS: usize = 120;
        let start = Barrier::new(2);
        let mut missed = Vec::new();
        std::thread::scope(|scope| {
            scope.spawn(|| {
                let mut folders = (Folder::Inbox, Folder::Hold);
                for _ in 0..ROUNDS {
                    start.wait();
                    bounce(&mailbox, folders.0, folders.1);
                    folders = (folders.1, folders.0);
                }
            });
            // Every round runs (a failed one is recorded, not raised), so the mover is never
            // left waiting at the barrier.
            for round in 0..ROUNDS {
                start.wait();
                let read = mailbox.with_settled(&reference, &Folder::ALL, |envelope| {
                    mailbox.mark_read(envelope)?;
                    mailbox.read(envelope).map(|message| message.body)
                });
                match read {
                    Ok((envelope, body)) if body == "x" => {
                        assert!(matches!(envelope.folder, Folder::Inbox | Folder::Hold));
                    }
                    Ok((_, body)) => missed.push(format!("round {round}: body {body:?}")),
                    Err(e) => missed.push(format!("round {round}: {e}")),
                }
            }
        });
        assert_eq!(missed, Vec::<String>::new());
    }
}
