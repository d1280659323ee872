//! The wire types: `AgentEmail` and the params of the `email.*` methods, camelCase,
//! with doc comments that become the OpenRPC schemas. Plain data; the handlers translate them
//! to `filebox_api` arguments.

use std::collections::BTreeMap;

use filebox_core::{Folder, ForkReason, Priority, SourceType};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// Where to announce a reply: an HTTP endpoint the hub POSTs the reply to, signed.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct EmailCallback {
    /// `webhook` (the only kind this hub fires).
    #[serde(rename = "type")]
    pub(crate) kind: CallbackKind,
    /// The URL; it must be under an entry of the config's `hub.callback_allow` (the same
    /// scheme, host and port; the entry's path as whole segments).
    pub(crate) endpoint: String,
    /// Extra headers sent with the POST.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub(crate) headers: BTreeMap<String, String>,
}

/// The kinds of callback.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum CallbackKind {
    Webhook,
}

/// A reply in a message's conversation.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EmailReply {
    pub(crate) from: String,
    pub(crate) to: String,
    #[serde(rename = "type")]
    pub(crate) kind: String,
    pub(crate) body: String,
    pub(crate) created_at: String,
}

/// A line of a message's processing history.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EmailEvent {
    pub(crate) at: String,
    pub(crate) action: String,
    pub(crate) by: String,
    pub(crate) details: String,
}

/// `AgentEmail`: one mailbox's copy of a message.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AgentEmail {
    /// The Message ID.
    pub(crate) id: String,
    /// Who started the message.
    pub(crate) from: String,
    /// Who holds it now (after a reply: whom the reply went to).
    pub(crate) to: Vec<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) cc: Vec<String>,
    pub(crate) subject: String,
    /// The original content, byte for byte.
    pub(crate) body: String,
    /// The FileBox message type (ER, BR, DIS, ACK, SU, ASK, RPT, ...).
    #[serde(rename = "type")]
    pub(crate) kind: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) in_reply_to: Option<String>,
    pub(crate) thread_id: String,
    pub(crate) priority: Priority,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// pending, delivered, read, processing, replied, failed or obsolete.
    pub(crate) status: String,
    pub(crate) created_at: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) delivered_at: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) replied_at: Option<String>,
    /// agent, human, system or external: decides where replies go.
    pub(crate) source_type: SourceType,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) reply_to: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) callback: Option<EmailCallback>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fork_from: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) fork_reason: Option<String>,
    /// On the first message of a fork: the context it carries (its body).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub(crate) compressed_context: Option<String>,
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) obsoletes: Vec<String>,
    /// Whose mailbox this copy is in, its folder and file name.
    pub(crate) mailbox: String,
    pub(crate) folder: Folder,
    pub(crate) file: String,
    /// The conversation: every reply, oldest first.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) replies: Vec<EmailReply>,
    /// The processing history (resolved, rejected, held, runner and webhook attempts).
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) history: Vec<EmailEvent>,
}

/// Params of `email.send`.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SendParams {
    /// The sending agent (with a token: the token's agent).
    pub(crate) from: String,
    /// Recipients: agent ids, `@all` or `@group`.
    pub(crate) to: Vec<String>,
    #[serde(default)]
    pub(crate) cc: Option<Vec<String>>,
    pub(crate) subject: String,
    /// Markdown, kept byte for byte.
    pub(crate) body: String,
    /// The FileBox message type (default DIS).
    #[serde(default, rename = "type")]
    pub(crate) kind: Option<String>,
    /// Makes this a reply to that message (as `email.reply`, to the recipients given).
    #[serde(default)]
    pub(crate) in_reply_to: Option<String>,
    /// Join an existing thread.
    #[serde(default)]
    pub(crate) thread_id: Option<String>,
    #[serde(default)]
    pub(crate) priority: Option<Priority>,
    pub(crate) source_type: SourceType,
    /// Where replies go instead of the sender (an agent id).
    #[serde(default)]
    pub(crate) reply_to: Option<String>,
    #[serde(default)]
    pub(crate) callback: Option<EmailCallback>,
    /// Anything the sender wants back with the message (stored in the file as JSON).
    #[serde(default)]
    pub(crate) metadata: Option<serde_json::Map<String, serde_json::Value>>,
    /// Files to attach, as `email.reply` takes them.
    #[serde(default)]
    pub(crate) attachments: Option<Vec<filebox_api::AttachmentArg>>,
    /// A retry with the same key within 24 h returns the first result and writes nothing;
    /// with other content it is refused (`idempotency_key_reused`).
    #[serde(default)]
    pub(crate) idempotency_key: Option<String>,
}

/// Params of `email.inbox`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct InboxParams {
    pub(crate) agent: String,
    /// inbox (default), outbox, done, cancel or hold.
    #[serde(default)]
    pub(crate) folder: Option<Folder>,
    /// Only messages not read (with `email.read`) since they last changed.
    #[serde(default)]
    pub(crate) unread: Option<bool>,
    /// At most this many (0 or absent: all).
    #[serde(default)]
    pub(crate) limit: Option<usize>,
    /// Skip this many first (the newest ones, with `newestFirst`).
    #[serde(default)]
    pub(crate) offset: Option<usize>,
    /// Newest first, as a person reads a folder (default: oldest first, as the folder sorts).
    #[serde(default)]
    pub(crate) newest_first: Option<bool>,
    /// With `newestFirst`: only what is older than this file (the last one a page showed), so
    /// the next page neither repeats nor skips a message when mail arrives or leaves meanwhile.
    #[serde(default)]
    pub(crate) before: Option<String>,
}

/// Params of `email.read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ReadParams {
    pub(crate) agent: String,
    /// Message ID, its first 8 characters, or the file name.
    pub(crate) id: String,
}

/// Params of `email.reply`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ReplyParams {
    /// The replying agent; the message must be in its mailbox.
    pub(crate) from: String,
    pub(crate) id: String,
    pub(crate) body: String,
    /// Message type of the reply (default DIS).
    #[serde(default, rename = "type")]
    pub(crate) kind: Option<String>,
    /// Files to attach (`{name, mimeType?, data}` with base64 data), stored beside the
    /// message and linked from the end of the reply.
    #[serde(default)]
    pub(crate) attachments: Option<Vec<filebox_api::AttachmentArg>>,
    /// A retry with the same key within 24 h returns the first result and writes nothing;
    /// with other content it is refused (`idempotency_key_reused`).
    #[serde(default)]
    pub(crate) idempotency_key: Option<String>,
}

/// Params of `email.threads`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ThreadsParams {
    pub(crate) agent: String,
    /// At most this many, most recently active first (default 20; 0: all).
    #[serde(default)]
    pub(crate) limit: Option<usize>,
}

/// Params of `email.thread` and `email.status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct IdParams {
    /// Any message id (or `id#n`, a reply in its conversation).
    pub(crate) id: String,
    /// Look from this agent's mailbox (default: the token's agent, else the first mailbox
    /// holding the sender's record of it).
    #[serde(default)]
    pub(crate) agent: Option<String>,
}

/// Params of `email.fork`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct ForkParams {
    pub(crate) from: String,
    /// The earlier node to start again from (a message id or `id#n`).
    pub(crate) fork_from: String,
    pub(crate) fork_reason: ForkReason,
    /// The conclusions or lessons the new branch starts with, in Markdown.
    pub(crate) compressed_context: String,
    /// Recipients; by default whoever received the fork point.
    #[serde(default)]
    pub(crate) to: Option<Vec<String>>,
}

/// Params of `email.resolve`, `email.reject` and `email.hold`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct TransitionParams {
    pub(crate) agent: String,
    pub(crate) id: String,
    /// What was done, or why; recorded in the processing history.
    pub(crate) details: String,
}

/// Params of `email.search`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct SearchParams {
    /// Search this agent's mailbox; every mailbox when omitted (not allowed with a token).
    #[serde(default)]
    pub(crate) agent: Option<String>,
    /// Words to find (all must occur); empty: filters only.
    #[serde(default)]
    pub(crate) query: String,
    #[serde(default)]
    pub(crate) from: Option<String>,
    #[serde(default, rename = "type")]
    pub(crate) kind: Option<String>,
    #[serde(default)]
    pub(crate) thread_id: Option<String>,
    /// pending, delivered, read, processing, replied, failed or obsolete.
    #[serde(default)]
    pub(crate) status: Option<String>,
    /// A date (2025-06-27) or time (2025-06-27T15:30:00Z).
    #[serde(default)]
    pub(crate) since: Option<String>,
    #[serde(default)]
    pub(crate) limit: Option<usize>,
}

/// Params of methods that take none.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(deny_unknown_fields)]
pub(crate) struct NoParams {}
