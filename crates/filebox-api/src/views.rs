//! What verbs return: plain serde structs, the same for `--json`, MCP structured content and
//! JSON-RPC results.

use std::collections::BTreeMap;

use filebox_core::message::field;
use filebox_core::{Envelope, Message};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A message as a listing shows it (from its header only).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MessageSummary {
    pub file: String,
    pub folder: String,
    pub id: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub timestamp: String,
    pub sender: String,
    pub receiver: String,
    /// Seed 000's listing line: `2025-06-27T153000 ER Title (file.md)`.
    pub line: String,
}

impl From<&Envelope> for MessageSummary {
    fn from(envelope: &Envelope) -> Self {
        let h = &envelope.header;
        MessageSummary {
            file: envelope.file.to_string(),
            folder: envelope.folder.to_string(),
            id: h.id().to_owned(),
            kind: h.kind.clone(),
            title: h.title.clone(),
            timestamp: h.get(field::TIMESTAMP).unwrap_or_default().to_owned(),
            sender: h.get(field::SENDER).unwrap_or_default().to_owned(),
            receiver: h.get(field::RECEIVER).unwrap_or_default().to_owned(),
            line: envelope.listing_line(),
        }
    }
}

/// A file that a listing skipped, and why.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SkippedFile {
    pub path: String,
    pub reason: String,
}

/// The result of `list`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListResult {
    pub messages: Vec<MessageSummary>,
    /// Files that could not be read; the listing went on without them.
    pub skipped: Vec<SkippedFile>,
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
    pub folder: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub format_version: String,
    pub sender: String,
    pub receiver: String,
    pub timestamp: String,
    pub original_sender: String,
    pub current_owner: String,
    /// Every header field as written, v1.1 fields and unknown ones included.
    pub headers: BTreeMap<String, String>,
    /// The Original Request/Content, exactly as sent.
    pub body: String,
    pub conversation: Vec<ConversationView>,
    pub processing: Vec<ProcessingView>,
}

impl MessageDetail {
    pub fn new(envelope: &Envelope, message: &Message) -> Self {
        let h = &message.header;
        let get = |key| h.get(key).unwrap_or_default().to_owned();
        MessageDetail {
            id: h.id().to_owned(),
            file: envelope.file.to_string(),
            folder: envelope.folder.to_string(),
            kind: h.kind.clone(),
            title: h.title.clone(),
            format_version: h.get(field::FORMAT_VERSION).unwrap_or("1.0").to_owned(),
            sender: get(field::SENDER),
            receiver: get(field::RECEIVER),
            timestamp: get(field::TIMESTAMP),
            original_sender: get(field::ORIGINAL_SENDER),
            current_owner: get(field::CURRENT_OWNER),
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

/// The result of `read`: the parsed message and its Markdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReadResult {
    #[serde(flatten)]
    pub message: MessageDetail,
    /// The whole file as it is on disk.
    pub markdown: String,
}

/// The result of `send`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SendResult {
    /// The Message ID (for a reply: the id of the message answered).
    pub id: String,
    pub file: String,
    pub delivered_to: Vec<String>,
}

/// The result of `resolved`, `reject` and `onhold`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TransitionResult {
    pub id: String,
    pub file: String,
    /// Where the message is now: done, cancel or hold.
    pub folder: String,
}

/// Message counts of one mailbox.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FolderCounts {
    pub inbox: usize,
    pub outbox: usize,
    pub done: usize,
    pub cancel: usize,
    pub hold: usize,
}

/// An agent of the config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AgentInfo {
    pub id: String,
    pub mailbox_path: String,
    /// Whether this is the current agent ("me").
    pub current: bool,
    pub counts: FolderCounts,
}

/// The result of `list_agents`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AgentsResult {
    pub me: String,
    pub agents: Vec<AgentInfo>,
}
