//! Verb arguments, one struct per verb, named as the MCP tools and RPC methods name them.

use filebox_core::{Folder, ForkReason, MessageType, Priority, SourceType, Status};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One recipient or several.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(untagged)]
pub enum Recipients {
    /// An agent id, a comma-separated list of ids, `@all` (everyone but me) or `@group`.
    One(String),
    /// Several agent ids (or `@all` / `@group`).
    Many(Vec<String>),
}

impl Recipients {
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            Recipients::One(one) => vec![one.clone()],
            Recipients::Many(many) => many.clone(),
        }
    }
}

/// Arguments of `list_messages`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListArgs {
    /// The folder to list: inbox (default), outbox, done, cancel or hold.
    #[serde(default)]
    pub folder: Option<Folder>,
    /// Only messages from this agent (the Sender header).
    #[serde(default)]
    pub from: Option<String>,
    /// Only messages of this type (ER, BR, DIS, ACK, SU, ...).
    #[serde(default, rename = "type")]
    pub kind: Option<MessageType>,
    /// Only messages I have not read (with `read_message`) since they last changed: a message
    /// that comes back with a new reply is unread again.
    #[serde(default)]
    pub unread: Option<bool>,
    /// Only messages of this thread (a thread id, as `get_thread` and `list_threads` give it, or
    /// its first 8 characters); a thread your mailbox does not hold is an error.
    #[serde(default)]
    pub thread: Option<String>,
    /// At most this many messages (the oldest first).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Arguments of `read_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReadArgs {
    /// The message: its id, the id's first 8 characters, or its file name.
    pub id: String,
    /// The folder to look in; all folders (inbox first) when omitted.
    #[serde(default)]
    pub folder: Option<Folder>,
}

/// Arguments of `send_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SendArgs {
    /// Recipient: an agent id, a comma-separated list, `@all` or `@group`.
    pub to: Recipients,
    /// Agents to copy (same forms as `to`).
    #[serde(default)]
    pub cc: Option<Recipients>,
    /// Message type: ER (enhancement request), BR (bug report), DIS (discussion), ACK
    /// (acknowledgement), SU (status update), ASK (question), RPT (work report), or your own
    /// upper-case word.
    #[serde(rename = "type")]
    pub kind: MessageType,
    /// A short title; defaults to the content's first line.
    #[serde(default)]
    pub title: Option<String>,
    /// The message body, in Markdown. Kept byte for byte.
    pub content: String,
    /// To answer a message instead of starting a new one: its id, short id or file name. The
    /// reply is appended to that message's conversation and the file moves to `to`.
    #[serde(default)]
    pub reply_to: Option<String>,
    /// `normal` (default) or `urgent`.
    #[serde(default)]
    pub priority: Option<Priority>,
    /// Who is sending: `agent` (default), `human`, `system` or `external`.
    #[serde(default)]
    pub source_type: Option<SourceType>,
    /// Where replies to this message should go instead of to me (an agent id).
    #[serde(default)]
    pub reply_to_agent: Option<String>,
    /// Files to attach: stored beside the message and linked from the end of its body.
    #[serde(default)]
    pub attachments: Option<Vec<AttachmentArg>>,
}

/// A file attached to a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AttachmentArg {
    /// The file name (made safe: letters, digits, `.`, `_`, `-`).
    pub name: String,
    /// The MIME type, e.g. `image/png`; guessed from the name when omitted.
    #[serde(default, alias = "mimeType")]
    pub mime_type: Option<String>,
    /// The file's bytes, base64-encoded.
    pub data: String,
}

impl AttachmentArg {
    /// An attachment of these bytes (encoded for the wire).
    pub fn from_bytes(name: &str, mime_type: Option<String>, bytes: &[u8]) -> Self {
        use base64::Engine;
        AttachmentArg {
            name: name.to_owned(),
            mime_type,
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        }
    }

    /// The attachment for the core: the bytes decoded.
    pub fn decode(&self) -> filebox_core::Result<filebox_core::Attachment> {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(self.data.trim())
            .map_err(|_| filebox_core::Error::Invalid {
                what: "attachment data",
                value: self.name.clone(),
                reason: "not valid base64".into(),
            })?;
        Ok(filebox_core::Attachment {
            name: self.name.clone(),
            mime: self.mime_type.clone(),
            bytes,
        })
    }
}

impl SendArgs {
    /// A plain new message: no copy, title, reply, priority, source type or Reply To.
    pub fn new(to: impl Into<String>, kind: MessageType, content: impl Into<String>) -> SendArgs {
        SendArgs {
            to: Recipients::One(to.into()),
            cc: None,
            kind,
            title: None,
            content: content.into(),
            reply_to: None,
            priority: None,
            source_type: None,
            reply_to_agent: None,
            attachments: None,
        }
    }
}

/// Arguments of `resolve_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ResolveArgs {
    /// The message in my inbox (or hold): id, short id or file name.
    pub id: String,
    /// What was done: the resolution recorded in the processing history.
    pub details: String,
}

/// Arguments of `reject_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RejectArgs {
    /// The message in my inbox (or hold): id, short id or file name.
    pub id: String,
    /// Why it is rejected; recorded in the processing history.
    pub reason: String,
}

/// Arguments of `hold_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HoldArgs {
    /// The message in my inbox: id, short id or file name.
    pub id: String,
    /// Why it waits; recorded in the processing history.
    pub reason: String,
}

/// Arguments of `list_agents` (none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListAgentsArgs {}

/// Arguments of `search_messages`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// Words to find in titles, bodies and conversations, in any language (all must occur;
    /// two or more Chinese characters match where they occur together). Empty: filters only.
    #[serde(default)]
    pub query: String,
    /// Search every mailbox of the config, not only mine.
    #[serde(default)]
    pub all: Option<bool>,
    /// Only messages from this agent (the Sender header).
    #[serde(default)]
    pub from: Option<String>,
    /// Only messages of this type (ER, BR, DIS, ...).
    #[serde(default, rename = "type")]
    pub kind: Option<MessageType>,
    /// Only this folder; all five (inbox, outbox, done, cancel, hold) when omitted.
    #[serde(default)]
    pub folder: Option<Folder>,
    /// Only this thread (a thread id, as `get_thread` and `list_threads` give it).
    #[serde(default)]
    pub thread: Option<String>,
    /// Only messages with this status: pending, delivered, processing, replied, failed, obsolete.
    #[serde(default)]
    pub status: Option<Status>,
    /// Only messages sent or answered at or after this date (`2025-06-27`) or time
    /// (`2025-06-27T15:30:00Z`).
    #[serde(default)]
    pub since: Option<String>,
    /// At most this many hits, newest activity first (default 20; 0: all).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Arguments of `message_status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StatusArgs {
    /// The message in my mailbox: id, short id or file name.
    pub id: String,
}

/// Arguments of `reindex`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReindexArgs {
    /// Rebuild the index of every mailbox of the config, not only mine.
    #[serde(default)]
    pub all: Option<bool>,
}

/// Arguments of `reply_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReplyArgs {
    /// The message to answer: id, short id or file name. The reply goes to its Reply To when
    /// set, else to whoever sent it to me.
    pub id: String,
    /// The reply, in Markdown.
    pub content: String,
    /// Message type of the reply (default DIS).
    #[serde(default, rename = "type")]
    pub kind: Option<MessageType>,
    /// Files to attach: stored beside the message and linked from the end of the reply.
    #[serde(default)]
    pub attachments: Option<Vec<AttachmentArg>>,
}

/// Arguments of `get_thread`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ThreadArgs {
    /// Any message of the thread: id, short id or file name (or `id#n`, a conversation entry).
    pub id: String,
}

/// Arguments of `list_threads`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ThreadsArgs {
    /// At most this many threads, most recently active first (default 20; 0: all).
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Arguments of `fork_thread`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ForkArgs {
    /// The earlier node to start again from: a message id (short id, file name) or `id#n`, the
    /// n-th reply in that message's conversation. Everything after it on its branch becomes
    /// obsolete.
    pub from: String,
    /// `context-compression` (right direction, too much context: carry the conclusions) or
    /// `direction-change` (wrong direction: carry the lessons and the new plan).
    pub reason: ForkReason,
    /// The compressed context the new branch starts with, in Markdown.
    pub context: String,
    /// Recipients; by default whoever received the fork point.
    #[serde(default)]
    pub to: Option<Recipients>,
    /// When given, refuse unless `from` belongs to this thread.
    #[serde(default)]
    pub thread: Option<String>,
}

/// Arguments of `wait_for_messages`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WaitArgs {
    /// Give up after this many seconds (returning no messages); wait indefinitely when omitted.
    #[serde(default)]
    pub timeout: Option<u64>,
}

/// Arguments of `ask_question`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AskArgs {
    /// The project you work in (its absolute path), shown to the human with the question.
    pub project_directory: String,
    /// The question, in Markdown: say what you need to know and why.
    pub question: String,
    /// Seconds to wait for the answer (default 600, bounded by the config's
    /// `max_question_timeout_secs`). When it passes, the question stays open.
    #[serde(default)]
    pub timeout: Option<u64>,
    /// Quick answers the human can pick with one click (e.g. ["Yes", "No"]).
    #[serde(default)]
    pub options: Option<Vec<String>>,
}

/// Arguments of `task_finish` and `work_report`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReportArgs {
    /// The project you work in (its absolute path), shown to the human with the report.
    pub project_directory: String,
    /// What you did, in Markdown: the result, what changed, anything left open.
    pub summary: String,
    /// Seconds to wait for the human's reply (default 600, bounded by the config's
    /// `max_question_timeout_secs`). No reply by then means no objection.
    #[serde(default)]
    pub timeout: Option<u64>,
}

/// Arguments of `get_answer`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GetAnswerArgs {
    /// The question's id, as `ask_question` or `task_finish` returned it.
    pub id: String,
}

/// Arguments of `open_questions` (none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OpenQuestionsArgs {}
