//! The core's error type: a kind a caller can act on, and the path or name it concerns.

use std::borrow::Cow;
use std::io;
use std::path::PathBuf;

/// Result alias for the core.
pub type Result<T, E = Error> = std::result::Result<T, E>;

/// Everything the core can fail with. Each variant names the thing that was wrong.
#[derive(Debug, thiserror::Error)]
pub enum Error {
    /// An argument from a caller failed validation (agent id, folder, file name, type, ...).
    #[error("invalid {what} {value:?}: {reason}")]
    Invalid {
        what: &'static str,
        value: String,
        reason: Cow<'static, str>,
    },
    /// The agent id is not in the configuration.
    #[error("unknown agent {0:?}: it is not in the config (see `filebox agents`)")]
    UnknownAgent(String),
    /// No message matched the reference in the folders searched.
    #[error("no message {reference:?} in {searched}")]
    NotFound { reference: String, searched: String },
    /// A short id matched more than one message.
    #[error("{reference:?} is ambiguous: it matches {candidates:?}; give the whole file name")]
    Ambiguous {
        reference: String,
        candidates: Vec<String>,
    },
    /// Another process (or an earlier command) already moved the message on.
    #[error("message {reference:?} was already handled: it is now in {folder}")]
    AlreadyHandled { reference: String, folder: String },
    /// An answer to a relayed permission prompt (it approves or denies a tool run) from a
    /// caller that was not proven to be the human (`crate::Approvals::Refused`).
    #[error(
        "{reference} is a permission prompt: answering it approves or denies a tool run, and {reason}"
    )]
    Unapproved { reference: String, reason: String },
    /// A resolve, reject or hold of a message I sent: only its recipient handles it.
    #[error(
        "{reference}: you sent it, so only its recipient ({recipient}) can {verb} it; answer with a reply or start over with a fork"
    )]
    NotMine {
        reference: String,
        recipient: String,
        verb: &'static str,
    },
    /// A fork point that is not in the thread the caller named.
    #[error(
        "{reference} belongs to thread {thread}, not to {wanted}: fork from a message of that thread"
    )]
    NotInThread {
        reference: String,
        thread: String,
        wanted: String,
    },
    /// A fork by an agent that holds no copy of the thread: only a participant rewrites a
    /// thread's later history.
    #[error("{agent} holds no copy of thread {thread}: only an agent in a thread may fork it")]
    NotParticipant { agent: String, thread: String },
    /// A message whose headers name no other agent of the config to answer.
    #[error("no one to reply to: {file} names no other agent of the config")]
    NoReplyTarget { file: String },
    /// A new message that no recipient could receive; nothing was written.
    #[error("message not sent: no recipient could receive it: {}", failed.join("; "))]
    NotSent { failed: Vec<String> },
    /// A new message reached some recipients but not all.
    #[error("message {id} was delivered to [{}] and is in my outbox, but not to: {}", delivered.join(", "), failed.join("; "))]
    Undelivered {
        id: String,
        delivered: Vec<String>,
        failed: Vec<String>,
    },
    /// An idempotency key used again within its window for a different message or reply;
    /// nothing was written.
    #[error(
        "idempotency key {key:?} was already used for a different message ({id}); nothing was sent"
    )]
    KeyReused { key: String, id: String },
    /// A body larger than the configured limit.
    #[error(
        "the message body is {size} bytes, over the limit of {limit} bytes (max_body_bytes in the config)"
    )]
    TooLarge { size: usize, limit: usize },
    /// A header field (the title, the hub's metadata, ...) over its bound in
    /// `message::limits`, or the whole header over its own; nothing was written.
    #[error("the {field} is {size} {unit}, over the limit of {limit} {unit}; nothing was written")]
    FieldTooLong {
        field: String,
        size: usize,
        limit: usize,
        unit: &'static str,
    },
    /// A file that is not a readable FileBox message.
    #[error("{path}: not a readable message: {reason}")]
    Malformed { path: PathBuf, reason: String },
    /// A file another agent tool owns (a Claude Code team inbox or team config) that is not
    /// in the form that tool writes; FileBox reported it and left it untouched.
    #[error("{path}: {reason}")]
    Foreign { path: PathBuf, reason: String },
    /// The configuration could not be found, read or understood.
    #[error("config {path}: {reason}")]
    Config { path: PathBuf, reason: String },
    /// No configuration file was found anywhere it is looked for.
    #[error("no FileBox config found: run `filebox init --agent ID` or pass --config PATH")]
    NoConfig,
    /// No current agent: none given and the config names none.
    #[error(
        "no current agent: pass --agent ID, set FILEBOX_AGENT, or set current_agent_id in the config"
    )]
    NoCurrentAgent,
    /// The search index failed.
    #[error("index {path}: {reason}")]
    Index { path: PathBuf, reason: String },
    /// An I/O error on a path.
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        #[source]
        source: io::Error,
    },
}

impl Error {
    pub(crate) fn io(path: impl Into<PathBuf>, source: io::Error) -> Self {
        Error::Io {
            path: path.into(),
            source,
        }
    }

    /// A caller's value that failed validation, and why.
    pub fn invalid(
        what: &'static str,
        value: impl Into<String>,
        reason: impl Into<Cow<'static, str>>,
    ) -> Self {
        Error::Invalid {
            what,
            value: value.into(),
            reason: reason.into(),
        }
    }
}

/// Attach a path to an `io::Result`.
pub(crate) trait IoContext<T> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T>;
}

impl<T> IoContext<T> for io::Result<T> {
    fn at(self, path: impl Into<PathBuf>) -> Result<T> {
        self.map_err(|e| Error::io(path, e))
    }
}
