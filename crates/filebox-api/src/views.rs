//! The result types several verbs share, plain serde structs, the same for `--json`, MCP
//! structured content and JSON-RPC results: a message as listings show it and whole, a move out
//! of the inbox, a question's outcome, and the results of the setup commands (`init`, `agents
//! add`). A verb's own result lives in its file under `verbs/`.

use std::collections::BTreeMap;

use filebox_core::message::field;
use filebox_core::{Envelope, Folder, Message};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A message as a listing shows it (from its header only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MessageSummary {
    pub file: String,
    pub folder: Folder,
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub timestamp: String,
    pub sender: String,
    pub receiver: String,
    /// Not read (with `read_message`) since it last changed.
    pub unread: bool,
    /// The listing line: `2025-06-27T153000 ER Title (file.md)`.
    pub line: String,
}

impl MessageSummary {
    /// A listed message, read or not.
    pub fn new(envelope: &Envelope, unread: bool) -> Self {
        let h = &envelope.header;
        MessageSummary {
            file: envelope.file.to_string(),
            folder: envelope.folder,
            id: h.id().to_owned(),
            kind: h.kind.clone(),
            title: h.title.clone(),
            timestamp: h.get(field::TIMESTAMP).unwrap_or_default().to_owned(),
            sender: h.get(field::SENDER).unwrap_or_default().to_owned(),
            receiver: h.get(field::RECEIVER).unwrap_or_default().to_owned(),
            unread,
            line: envelope.listing_line(),
        }
    }

    /// The messages of `folder` a verb lists, each with its unread mark.
    pub(crate) fn listed(
        mailbox: &filebox_core::Mailbox,
        folder: Folder,
        messages: &[Envelope],
    ) -> filebox_core::Result<Vec<MessageSummary>> {
        let unread = mailbox.unread_flags(folder, messages)?;
        Ok(messages
            .iter()
            .zip(unread)
            .map(|(m, unread)| MessageSummary::new(m, unread))
            .collect())
    }
}

/// Agent ids as the views carry them.
pub(crate) fn names(agents: &[filebox_core::AgentId]) -> Vec<String> {
    agents.iter().map(ToString::to_string).collect()
}

/// A reply in the conversation history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ConversationView {
    pub timestamp: String,
    pub from: String,
    pub to: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub body: String,
}

/// A line of the processing history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ProcessingView {
    pub timestamp: String,
    pub action: String,
    pub by: String,
    pub details: String,
}

/// A whole message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MessageDetail {
    pub id: String,
    pub file: String,
    pub folder: Folder,
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub format_version: String,
    pub sender: String,
    pub receiver: String,
    pub timestamp: String,
    /// Who wrote the message: `Original Sender`, else (a hand-written file) `Sender`.
    pub original_sender: String,
    /// Whom the message was first sent to: `receiver` until someone answered, then the
    /// recipient who answered first (a reply rewrites `receiver`).
    pub original_recipients: Vec<String>,
    pub current_owner: String,
    /// This copy's status: pending, delivered, read, processing, replied, failed or obsolete.
    pub status: String,
    /// Every header field as written, v1.1 fields and unknown ones included.
    pub headers: BTreeMap<String, String>,
    /// The Original Request/Content, exactly as sent.
    pub body: String,
    pub conversation: Vec<ConversationView>,
    pub processing: Vec<ProcessingView>,
}

impl MessageDetail {
    /// The message as `owner`'s copy of it (the status of an outbox copy depends on who owns it).
    pub fn new(owner: &filebox_core::AgentId, envelope: &Envelope, message: &Message) -> Self {
        let h = &message.header;
        let get = |key| h.get(key).unwrap_or_default().to_owned();
        MessageDetail {
            id: h.id().to_owned(),
            file: envelope.file.to_string(),
            folder: envelope.folder,
            kind: h.kind.clone(),
            title: h.title.clone(),
            format_version: h.get(field::FORMAT_VERSION).unwrap_or("1.0").to_owned(),
            sender: get(field::SENDER),
            receiver: get(field::RECEIVER),
            timestamp: get(field::TIMESTAMP),
            original_sender: filebox_core::copy::sender(message).to_owned(),
            original_recipients: filebox_core::copy::original_recipients(message),
            current_owner: get(field::CURRENT_OWNER),
            status: filebox_core::copy_status(envelope, message, owner).to_string(),
            headers: h.fields().iter().cloned().collect(),
            body: message.body.clone(),
            conversation: message
                .conversation
                .iter()
                .map(|c| ConversationView {
                    timestamp: c.timestamp.clone(),
                    from: c.from.clone(),
                    to: c.to.clone(),
                    kind: c.kind.clone(),
                    body: c.body.clone(),
                })
                .collect(),
            processing: message
                .processing
                .iter()
                .map(|p| ProcessingView {
                    timestamp: p.timestamp.clone(),
                    action: p.action.clone(),
                    by: p.by.clone(),
                    details: p.details.clone(),
                })
                .collect(),
        }
    }
}

/// The result of `resolve_message`, `reject_message` and `hold_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TransitionResult {
    pub id: String,
    pub file: String,
    /// Where the message is now: done, cancel or hold.
    pub folder: Folder,
}

/// What `filebox init` set up.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct InitResult {
    /// The config file written.
    pub config: String,
    pub agent: String,
    pub mailbox: String,
}

/// What `filebox agents add` changed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AgentAdded {
    pub agent: String,
    pub mailbox: String,
}

/// Where a question stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum QuestionStatus {
    /// Waiting in the human's inbox.
    Open,
    /// The human answered.
    Answered,
    /// The asker stopped waiting; the human no longer sees it as open.
    Withdrawn,
}

/// A question's outcome, as the asking agent sees it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct QuestionResult {
    /// The question's Message ID: `get_answer` takes it.
    pub id: String,
    /// `ASK` (a question) or `RPT` (a work report).
    #[serde(rename = "type")]
    pub kind: String,
    pub status: QuestionStatus,
    /// How long the call waited, in seconds.
    pub waited_secs: u64,
    /// The answer, when there is one.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub answer: Option<AnswerView>,
}

/// A human's answer.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AnswerView {
    /// Who answered.
    pub from: String,
    /// When (ISO 8601 UTC).
    pub at: String,
    /// The answer's text (Markdown), without the attachment links.
    pub text: String,
    pub attachments: Vec<AttachmentView>,
}

/// A file attached to an answer, stored in the asker's mailbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AttachmentView {
    pub name: String,
    pub mime_type: String,
    /// Where the file is.
    pub path: String,
}
