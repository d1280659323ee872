//! Every FileBox verb declared once, for every surface: the CLI's text and `--json`, the MCP
//! tools and the hub's JSON-RPC methods.
//!
//! A verb is a [`Verb`] implementation in its own file under `verbs/`: names, [`Effect`], typed
//! arguments and result whose doc comments become the JSON Schema, what it does on a
//! [`filebox_core::Mailroom`], and its text. What several verbs share is in `args.rs`,
//! `views.rs`, [`render`] and `shared/`. [`verbs::TABLE`] lists them all as
//! [`VerbInfo`]s, which a JSON surface calls by name ([`verbs::call`]). Results are
//! [`Outcome`]s: the value and warnings about what was left out. [`advice`] says what a
//! caller should do about each error.

pub mod access;
pub mod advice;
mod args;
pub mod command_line;
mod decode;
mod digest;
mod error_chain;
mod extras;
mod outcome;
pub mod render;
mod schema;
mod shared;
mod surface;
mod verb;
pub mod verbs;
mod views;

/// The rules of text put in front of a model live in the core, so the bridge's
/// `<teammate-message>` blocks share them; every surface here reaches them by this name.
pub use filebox_core::model_text;

pub use args::*;
pub use decode::{ArgumentError, decode};
pub use digest::{Digest, Notice, Origin};
pub use error_chain::describe;
pub use extras::Extras;
pub use outcome::{Outcome, text_with_warnings};
pub use schema::schema_settings;
pub use verb::{
    CallError, CommandLineCall, Effect, Reply, Standalone, Verb, VerbContext, VerbInfo,
};
/// Each verb's arguments and result, declared in its file under `verbs/`, by name at the root as
/// the surfaces use them.
pub use verbs::{
    AgentInfo, AgentsResult, AskArgs, FolderCounts, ForkArgs, ForkResult, GetAnswerArgs, HoldArgs,
    ListAgentsArgs, ListArgs, ListResult, ListTeamsArgs, MemberView, MessageFormat, OpenQuestion,
    OpenQuestionsArgs, OpenQuestionsResult, ReadArgs, ReadResult, ReadTeamInboxArgs, RecipientView,
    ReindexArgs, ReindexResult, ReindexedMailbox, RejectArgs, ReplyArgs, ReportArgs, ResolveArgs,
    SearchArgs, SearchHit, SearchResult, SendArgs, SendResult, SendTeamMessageArgs,
    SendTeamMessageLine, Sent, StatusArgs, StatusResult, TeamInboxArgs, TeamInboxResult,
    TeamMessageView, TeamSendResult, TeamView, TeamsResult, ThreadArgs, ThreadNodeView,
    ThreadResult, ThreadSummary, ThreadsArgs, ThreadsResult, WaitArgs, WaitResult,
};
pub use views::*;
