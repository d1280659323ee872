//! What a remote A2A agent's stand-in mailbox asks of the hub, read from its files: a copy in
//! `inbox/` whose latest turn has no `A2A Sent` line is owed to the remote (the first message,
//! or the sender's reply to an ask-back: a follow-up in the same task); a copy in `inbox/` or
//! `hold/` whose latest turn was sent follows the remote task until it asks back or ends.

use filebox_core::attachment::{AttachmentRef, split_links};
use filebox_core::message::field;
use filebox_core::{AgentId, Envelope, Folder, Mailbox, Message};

/// The processing-history action recorded once a turn was handed to the remote agent; its
/// details are `task <task id> turn <n>` (n: the conversation entries the copy then had).
pub(super) const SENT: &str = "A2A Sent";
/// The processing-history action recording that the remote task ended (`task <id> <state>`):
/// a later reply by the sender starts a new task in the same context.
pub(super) const ENDED: &str = "A2A Task Ended";

/// One copy of the stand-in and what it calls for.
pub(super) struct Spooled {
    pub(super) envelope: Envelope,
    pub(super) message: Message,
    pub(super) work: Work,
}

pub(super) enum Work {
    /// Hand the latest turn over as `SendMessage`, in `task` when it continues one: its text
    /// without the attachment links, and the attachments it links to, read.
    Send {
        task: Option<String>,
        text: String,
        files: Vec<(AttachmentRef, Vec<u8>)>,
    },
    /// Follow the remote task `task` (`GetTask`).
    Follow { task: String },
}

/// Every copy of the stand-in `mailbox` that calls for work (unreadable files are skipped:
/// they are reported by `list` like anywhere else).
pub(super) fn owed(mailbox: &Mailbox) -> filebox_core::Result<Vec<Spooled>> {
    let mut owed = Vec::new();
    for folder in [Folder::Inbox, Folder::Hold] {
        for envelope in mailbox.list(folder)?.messages {
            let Ok(message) = mailbox.read(&envelope) else {
                continue;
            };
            // A copy whose attachment cannot be read stays where it is, `pending`: sent
            // without it, the remote would get less than was written.
            if let Ok(Some(work)) = work(mailbox, folder, &message) {
                owed.push(Spooled {
                    envelope,
                    message,
                    work,
                });
            }
        }
    }
    Ok(owed)
}

fn work(
    mailbox: &Mailbox,
    folder: Folder,
    message: &Message,
) -> filebox_core::Result<Option<Work>> {
    let turn = message.conversation.len();
    let task = match last_sent(message) {
        Some(sent) if sent.turn == turn => return Ok(Some(Work::Follow { task: sent.task })),
        _ if folder != Folder::Inbox => return Ok(None),
        Some(sent) if !ended(message, &sent.task) => Some(sent.task),
        _ => None,
    };
    let id = message.header.id();
    let (text, links) = split_links(latest_text(message), id);
    let mut files = Vec::with_capacity(links.len());
    for link in links {
        let bytes = mailbox.read_attachment(id, &link.name)?;
        files.push((link, bytes));
    }
    Ok(Some(Work::Send { task, text, files }))
}

/// A turn handed over: the remote task it went to, and the conversation length then.
struct Sent {
    task: String,
    turn: usize,
}

fn last_sent(message: &Message) -> Option<Sent> {
    let line = message.processing.iter().rev().find(|p| p.action == SENT)?;
    let mut words = line.details.split_whitespace();
    match (words.next(), words.next(), words.next(), words.next()) {
        (Some("task"), Some(task), Some("turn"), Some(turn)) => Some(Sent {
            task: task.to_owned(),
            turn: turn.parse().ok()?,
        }),
        _ => None,
    }
}

fn ended(message: &Message, task: &str) -> bool {
    message
        .processing
        .iter()
        .any(|p| p.action == ENDED && p.details.split_whitespace().nth(1) == Some(task))
}

/// The details of an [`SENT`] line.
pub(super) fn sent_details(task: &str, turn: usize) -> String {
    format!("task {task} turn {turn}")
}

/// The `messageId` of the copy's latest turn: the Message ID for the first, then one per
/// turn, so a retried send is the same A2A message (which a remote may deduplicate by).
pub(super) fn message_id(message: &Message) -> String {
    match message.conversation.len() {
        0 => message.header.id().to_owned(),
        turn => format!("{}-{turn}", message.header.id()),
    }
}

/// The text of the latest turn: the body, or the latest conversation entry.
fn latest_text(message: &Message) -> &str {
    message
        .conversation
        .last()
        .map_or(message.body.as_str(), |entry| entry.body.as_str())
}

/// The A2A `contextId`: the thread.
pub(super) fn context_id(message: &Message) -> String {
    message
        .header
        .get(field::THREAD_ID)
        .unwrap_or_else(|| message.header.id())
        .to_owned()
}

/// Who an answer goes back to: the author of the latest turn.
pub(super) fn asker(message: &Message) -> Option<AgentId> {
    let name = message
        .conversation
        .last()
        .map_or_else(|| filebox_core::copy::sender(message), |e| e.from.as_str());
    AgentId::new(name).ok()
}
