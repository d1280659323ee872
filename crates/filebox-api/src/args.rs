//! Verb arguments, one struct per verb, named as the MCP tools and RPC methods name them.

use filebox_core::{Folder, ForkReason, MessageType, Priority, SourceType, Status};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One recipient or several. Its schema is a string (an agent id, comma-separated ids, `@all`
/// or `@group`), which is all a model needs; a list of those is accepted as well, for programs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Recipients {
    /// An agent id, a comma-separated list of ids, `@all` (everyone but me) or `@group`.
    One(String),
    /// Several agent ids (or `@all` / `@group`).
    Many(Vec<String>),
}

impl JsonSchema for Recipients {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Recipients".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }
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
    /// Default inbox.
    #[serde(default)]
    pub folder: Option<Folder>,
    /// Only from this agent.
    #[serde(default)]
    pub from: Option<String>,
    /// Only this type.
    #[serde(default, rename = "type")]
    pub kind: Option<MessageType>,
    /// Only unread.
    #[serde(default)]
    pub unread: Option<bool>,
    /// Only this thread.
    #[serde(default)]
    pub thread: Option<String>,
    /// Page size (default 50; 0: all).
    #[serde(default)]
    pub limit: Option<usize>,
    /// Skip this many.
    #[serde(default)]
    pub offset: Option<usize>,
}

impl ListArgs {
    /// How many messages a listing shows when no `limit` is given: enough for a page of
    /// work, few enough to spare a model's context.
    pub const DEFAULT_LIMIT: usize = 50;
}

/// Arguments of `read_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReadArgs {
    /// Id or short id.
    pub id: String,
    /// Only this folder.
    #[serde(default)]
    pub folder: Option<Folder>,
}

/// Arguments of `send_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SendArgs {
    /// Agent id, comma-separated ids, @all or @group.
    pub to: Recipients,
    /// Agents to copy, as in `to`.
    #[serde(default)]
    pub cc: Option<Recipients>,
    /// ER (enhancement), BR (bug), DIS, ACK, SU (status) or your own.
    #[serde(rename = "type")]
    pub kind: MessageType,
    /// Default: the content's first line.
    #[serde(default)]
    pub title: Option<String>,
    /// Markdown.
    pub content: String,
    /// Answer this message (it moves to `to`).
    #[serde(default)]
    pub reply_to: Option<String>,
    /// Default normal.
    #[serde(default)]
    pub priority: Option<Priority>,
    /// Default agent.
    #[serde(default)]
    pub source_type: Option<SourceType>,
    /// Where replies go instead of to you.
    #[serde(default)]
    pub reply_to_agent: Option<String>,
    /// Files to attach.
    #[serde(default)]
    pub attachments: Option<Vec<AttachmentArg>>,
}

/// A file attached to a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AttachmentArg {
    /// File name.
    pub name: String,
    /// Default: from the name.
    #[serde(default, alias = "mimeType")]
    pub mime_type: Option<String>,
    /// Base64.
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
    /// Id or short id.
    pub id: String,
    /// What was done.
    pub details: String,
}

/// Arguments of `reject_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RejectArgs {
    /// Id or short id.
    pub id: String,
    /// Why, so the sender can do better.
    pub reason: String,
}

/// Arguments of `hold_message`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct HoldArgs {
    /// Id or short id.
    pub id: String,
    /// Why it waits.
    pub reason: String,
}

/// Arguments of `list_agents` (none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListAgentsArgs {}

/// Arguments of `search_messages`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SearchArgs {
    /// All these words (empty: filters only).
    #[serde(default)]
    pub query: String,
    /// Every mailbox.
    #[serde(default)]
    pub all: Option<bool>,
    /// Only where this agent wrote.
    #[serde(default)]
    pub from: Option<String>,
    /// Only this type.
    #[serde(default, rename = "type")]
    pub kind: Option<MessageType>,
    /// Only this folder.
    #[serde(default)]
    pub folder: Option<Folder>,
    /// Only this thread.
    #[serde(default)]
    pub thread: Option<String>,
    /// Only this status.
    #[serde(default)]
    pub status: Option<Status>,
    /// Only activity since (2025-06-27[T15:30:00Z]).
    #[serde(default)]
    pub since: Option<String>,
    /// Default 20; 0: all.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Arguments of `message_status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StatusArgs {
    /// Id or short id.
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
    /// Id or short id.
    pub id: String,
    /// Markdown.
    pub content: String,
    /// Default DIS.
    #[serde(default, rename = "type")]
    pub kind: Option<MessageType>,
    /// Files to attach.
    #[serde(default)]
    pub attachments: Option<Vec<AttachmentArg>>,
}

/// Arguments of `get_thread`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ThreadArgs {
    /// Any message of it (or id#n, its n-th reply).
    pub id: String,
}

/// Arguments of `list_threads`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ThreadsArgs {
    /// Default 20; 0: all.
    #[serde(default)]
    pub limit: Option<usize>,
}

/// Arguments of `fork_thread`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ForkArgs {
    /// Message id or id#n (its n-th reply).
    pub from: String,
    /// context-compression: carry conclusions; direction-change: lessons and a new plan.
    pub reason: ForkReason,
    /// Markdown.
    pub context: String,
    /// Default: who received the fork point.
    #[serde(default)]
    pub to: Option<Recipients>,
    /// Only if `from` is in this thread.
    #[serde(default)]
    pub thread: Option<String>,
}

/// Arguments of `wait_for_messages`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WaitArgs {
    /// Seconds; omitted: no limit.
    #[serde(default)]
    pub timeout: Option<u64>,
    /// xml: also each message whole as <teammate-message>, marked read.
    #[serde(default)]
    pub format: Option<MessageFormat>,
}

/// How messages are shown.
#[derive(Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub enum MessageFormat {
    // One listing line per message.
    #[default]
    Lines,
    // The messages whole, as `<teammate-message>` blocks.
    Xml,
}

/// Where Claude Code keeps its teams. Not an argument of the JSON surfaces (MCP, JSON-RPC):
/// they use `CLAUDE_CONFIG_DIR`, else `~/.claude`, as Claude Code does; the CLI's
/// `--claude-dir` sets it.
pub type ClaudeDir = Option<std::path::PathBuf>;

/// Arguments of `list_teams`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListTeamsArgs {
    #[serde(skip)]
    pub claude_dir: ClaudeDir,
}

/// Arguments of `team_inbox`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TeamInboxArgs {
    /// Team name.
    pub team: String,
    /// Member (the lead: team-lead).
    pub member: String,
    /// Only unread.
    #[serde(default)]
    pub unread: Option<bool>,
    #[serde(skip)]
    pub claude_dir: ClaudeDir,
}

/// Arguments of `read_team_inbox`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReadTeamInboxArgs {
    /// Team name.
    pub team: String,
    /// Member (the lead: team-lead).
    pub member: String,
    #[serde(skip)]
    pub claude_dir: ClaudeDir,
}

/// Arguments of `send_team_message`.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SendTeamMessageArgs {
    /// Team name.
    pub team: String,
    /// A member, or * (all but the sender).
    pub to: String,
    /// Plain text, or a structured message as JSON.
    pub text: String,
    /// Sender (default team-lead).
    #[serde(default)]
    pub from: Option<String>,
    /// A 5-10 word preview.
    #[serde(default)]
    pub summary: Option<String>,
    /// Sender's colour (red, blue, ...).
    #[serde(default)]
    pub color: Option<String>,
    #[serde(skip)]
    pub claude_dir: ClaudeDir,
}

/// Arguments of `ask_question`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AskArgs {
    /// Absolute path of your project.
    pub project_directory: String,
    /// Markdown: what you need to know and why.
    pub question: String,
    /// Seconds (default 600).
    #[serde(default)]
    pub timeout: Option<u64>,
    /// One-click answers.
    #[serde(default)]
    pub options: Option<Vec<String>>,
}

/// Arguments of `task_finish` and `work_report`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReportArgs {
    /// Absolute path of your project.
    pub project_directory: String,
    /// Markdown: result, changes, what is left.
    pub summary: String,
    /// Seconds (default 600).
    #[serde(default)]
    pub timeout: Option<u64>,
}

/// Arguments of `get_answer`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct GetAnswerArgs {
    /// The id it returned.
    pub id: String,
}

/// Arguments of `open_questions` (none).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OpenQuestionsArgs {}
