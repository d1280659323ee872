//! What the index keeps of one message file: the header fields that searches filter and
//! threads link by, its derived status, and its text.

use crate::folder::Folder;
use crate::mailbox::Status;
use crate::message::{Message, field};
use crate::time;

/// `,original sender,author of each reply,` without repeats, for an exact match of one id
/// between commas.
fn authors(message: &Message) -> String {
    let h = &message.header;
    let original = h
        .get(field::ORIGINAL_SENDER)
        .or_else(|| h.get(field::SENDER));
    let mut authors = String::from(",");
    for author in original
        .into_iter()
        .chain(message.conversation.iter().map(|c| c.from.as_str()))
    {
        let listed = format!(",{author},");
        if !authors.contains(&listed) {
            authors.push_str(author);
            authors.push(',');
        }
    }
    authors
}

/// How much of a message's text is kept for snippets (all of it is indexed).
const SNIPPET_SOURCE: usize = 16 * 1024;

/// One indexed message file, as queries return it.
#[derive(Debug, Clone)]
pub(crate) struct Row {
    pub(crate) folder: Folder,
    pub(crate) name: String,
    pub(crate) id: String,
    pub(crate) thread: String,
    pub(crate) kind: String,
    pub(crate) title: String,
    pub(crate) sender: String,
    pub(crate) receiver: String,
    pub(crate) timestamp: String,
    /// The latest of the timestamp and the conversation entries' timestamps.
    pub(crate) activity: String,
    pub(crate) status: Status,
    pub(crate) in_reply_to: Option<String>,
    pub(crate) forked_from: Option<String>,
    pub(crate) fork_reason: Option<String>,
}

/// A row plus what goes into the full-text table.
pub(crate) struct Record {
    pub(crate) row: Row,
    pub(super) cc: String,
    /// Everyone who wrote part of it (its original sender, each reply's author), each
    /// between commas (`,qa,dev,`), which `search --from` looks in.
    pub(super) authors: String,
    /// Its conversation entries: the thread tree draws the message and each of them.
    pub(super) replies: usize,
    /// Body and conversation, as written.
    pub(super) body: String,
}

impl Record {
    pub(crate) fn new(folder: Folder, name: &str, owner: &str, message: &Message) -> Record {
        let h = &message.header;
        let get = |key| h.get(key).unwrap_or_default().to_owned();
        let id = h.id().to_owned();
        let thread = h.thread_id();
        let timestamp = normalized(&get(field::TIMESTAMP));
        let activity = message
            .conversation
            .iter()
            .map(|c| normalized(&c.timestamp))
            .chain([timestamp.clone()])
            .max()
            .unwrap_or_default();
        let last_from = message.conversation.last().map(|c| c.from.as_str());
        let mut body = message.body.clone();
        for entry in &message.conversation {
            body.push_str("\n\n");
            body.push_str(&entry.body);
        }
        Record {
            row: Row {
                folder,
                name: name.to_owned(),
                id,
                thread,
                kind: h.kind.clone(),
                title: h.title.clone(),
                sender: get(field::SENDER),
                receiver: get(field::RECEIVER),
                timestamp,
                activity,
                status: Status::of_copy(folder, h, last_from, owner),
                in_reply_to: h.get(field::IN_REPLY_TO).map(str::to_owned),
                forked_from: h.get(field::FORKED_FROM).map(str::to_owned),
                fork_reason: h.get(field::FORK_REASON).map(str::to_owned),
            },
            cc: get(field::CC),
            authors: authors(message),
            replies: message.conversation.len(),
            body,
        }
    }

    /// The start of the text, for snippets.
    pub(super) fn snippet_source(&self) -> &str {
        let mut end = self.body.len().min(SNIPPET_SOURCE);
        while !self.body.is_char_boundary(end) {
            end -= 1;
        }
        &self.body[..end]
    }
}

/// A timestamp in the one form the index compares (`2025-06-27T15:30:00Z`); kept as written
/// when it does not parse.
fn normalized(value: &str) -> String {
    time::parse_iso(value).map_or_else(|| value.trim().to_owned(), time::iso)
}

/// Rowids per second of activity: a rowid is `seconds << ACTIVITY_SHIFT` plus a sequence
/// number, so rowid order is activity order (ties: the later indexed first, as before).
pub(super) const ACTIVITY_SHIFT: u32 = 20;

/// The first rowid of a row active at `activity` (a normalized timestamp); a time that does
/// not parse (or is before 1970) sorts before every other.
pub(super) fn activity_key(activity: &str) -> i64 {
    time::parse_iso(activity).map_or(0, |t| t.as_second().max(0) << ACTIVITY_SHIFT)
}
