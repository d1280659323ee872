//! The text several verbs share, for the CLI's text output and MCP text content: the words for
//! a status, listing lines and their short model form, recipients, and how a header's values
//! are shown. Each verb's own text is its `Verb::render` and `Verb::brief`, in its file under
//! `verbs/`; the three texts other crates show without calling the verb are forwarded here.
//! What a message's header or words hold (titles, senders, types, ids, snippets, a team
//! message's text) is shown through [`model_text`], since a model may be the reader; the
//! listing lines of `list` and `wait` on the command line and the CLI's `read` are the
//! exceptions, kept as the file says for scripts (their model forms are [`brief_lines`] and
//! `model_text::whole`).

/// A question's outcome as a model reads it, declared with `get_answer`.
pub use crate::verbs::get_answer::question;
/// A thread's text (the `filebox://thread/{id}` resource's), declared with `get_thread`.
pub use crate::verbs::get_thread::thread;
/// The `filebox://inbox` resource's text, declared with `list_messages`.
pub use crate::verbs::list_messages::inbox;

use filebox_core::{Folder, Status};

use crate::model_text;
use crate::views::MessageSummary;

/// What happened to a copy, in words: the status (the JSON's `status`) read with the folder
/// the copy is in. `replied` is `resolved` in done/ and `answered` elsewhere,
/// `failed` is `rejected`, `processing` is `on hold`, `pending` with a copy is `in flight`
/// (queued for another machine's hub, not yet received there).
pub fn status_word(status: Status, folder: Option<Folder>) -> &'static str {
    match (status, folder) {
        (Status::Obsolete, _) => "obsolete",
        // A copy that is pending sits in the outgoing spool of an agent on another machine.
        (Status::Pending, Some(_)) => "in flight",
        (Status::Pending, None) => "pending",
        (Status::Delivered, _) => "delivered",
        (Status::Read, _) => "read",
        (Status::Processing, _) => "on hold",
        (Status::Failed, _) => "rejected",
        (Status::Replied, Some(Folder::Done)) => "resolved",
        (Status::Replied, _) => "answered",
    }
}

/// Listing lines (`2025-06-27T153000 ER Title (file.md)`); the file name is a reference every
/// verb accepts, and ends with the short id.
pub fn message_lines(messages: &[MessageSummary], none: &str) -> String {
    if messages.is_empty() {
        return none.to_owned();
    }
    messages
        .iter()
        .map(|m| m.line.as_str())
        .collect::<Vec<_>>()
        .join("\n")
}

/// One short line per message, for a model: unread mark, short id (which every verb accepts),
/// type, sender, age, title (`* 60bd0e69 ER dev 3h Title`).
pub fn brief_lines(messages: &[MessageSummary], none: &str) -> String {
    if messages.is_empty() {
        return none.to_owned();
    }
    let age = ages();
    messages
        .iter()
        .map(|m| {
            let mark = if m.unread { '*' } else { ' ' };
            format!("{mark} {}", brief_line(m, &age(&m.timestamp)))
        })
        .collect::<Vec<_>>()
        .join("\n")
}

/// `60bd0e69 ER dev 3h Title`: a message for a model, without its unread mark; `age` is how
/// long ago it was sent.
pub(crate) fn brief_line(m: &MessageSummary, age: &str) -> String {
    format!(
        "{} {} {} {age} {}",
        short_id(&m.id),
        name(&m.kind),
        name(&m.sender),
        title(&m.title)
    )
}

/// How long ago a header's timestamp was (`3h`; `-` if it is not a time), every one from the
/// same moment.
pub(crate) fn ages() -> impl Fn(&str) -> String {
    let now = filebox_core::time::now();
    move |timestamp| filebox_core::time::age(timestamp, now).unwrap_or_else(|| "-".into())
}

/// The length of a short id, the id's first characters that `MessageRef` accepts.
const SHORT_ID: usize = 8;
/// A file name's bound (a file name has at most 255 bytes).
const FILE_CHARS: usize = 255;

/// A message's short id as a model may read it (the header's id may say anything).
pub(crate) fn short_id(id: &str) -> String {
    let short: String = id.chars().take(SHORT_ID).collect();
    model_text::one_line(&short, model_text::NAME_CHARS)
}

/// A sender, recipient, type, id or time from a message's header, as a model may read it.
pub(crate) fn name(text: &str) -> String {
    model_text::one_line(text, model_text::NAME_CHARS)
}

/// A message's title as a model may read it.
pub(crate) fn title(text: &str) -> String {
    model_text::one_line(text, model_text::TITLE_CHARS)
}

/// A file's name as a model may read it (no control characters, but any other character).
pub(crate) fn file_name(text: &str) -> String {
    model_text::one_line(text, FILE_CHARS)
}

/// `to dev, ops`, `to dev, queued for bob@ci-1`, `queued for bob@ci-1`: recipients of another
/// machine are queued (in flight), never called delivered.
pub fn recipients(delivered: &[String], queued: &[String]) -> String {
    let delivered = (!delivered.is_empty()).then(|| format!("to {}", delivered.join(", ")));
    let queued = (!queued.is_empty()).then(|| format!("queued for {}", queued.join(", ")));
    delivered
        .into_iter()
        .chain(queued)
        .collect::<Vec<_>>()
        .join(", ")
}
