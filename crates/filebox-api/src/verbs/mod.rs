//! The verb table: every verb once, in the order surfaces list them. A surface enumerates
//! [`TABLE`] (or looks one up with [`find`]) and calls [`VerbInfo::call`] with JSON; the CLI
//! builds a subcommand from each ([`VerbInfo::command`]) and runs its
//! [`VerbInfo::command_line_call`], handing the verbs that write mail to a running hub
//! ([`VerbInfo::through_hub`]).
//!
//! One file per verb, named by the verb (`list_messages.rs`, `send_message.rs`, ...): its
//! argument struct (serde, `JsonSchema` and `clap::Args`: the MCP input schema, the JSON-RPC
//! params and the CLI's arguments at once), its result, the unit struct that implements
//! [`Verb`](crate::Verb), and its text (`Verb::render`, `Verb::brief`). What several verbs share
//! is elsewhere: argument types in `args.rs`, result types in `views.rs`, text in `render.rs`,
//! the rest in `shared/`. A verb file may use another verb's (`reply_message` runs
//! `send_message`); this file uses them all, so none of them uses this file.
//!
//! To add a verb: write `verbs/<name>.rs`, declare it here (`mod <name>;` and a `pub use` of its
//! verb, arguments and result) and give it a line in [`TABLE`]. Every surface picks it up from
//! there: MCP, the hub, and the CLI, whose subcommands are generated from this table.
//! ARCHITECTURE.md has a worked example (`count_messages`), which compiles as it stands once its
//! `run` is written.

mod ask_question;
mod fork_thread;
pub(crate) mod get_answer;
pub(crate) mod get_thread;
mod hold_message;
mod list_agents;
pub(crate) mod list_messages;
mod list_teams;
mod list_threads;
mod message_status;
mod open_questions;
mod read_message;
mod read_team_inbox;
mod reindex;
mod reject_message;
mod reply_message;
mod resolve_message;
mod search_messages;
mod send_message;
mod send_team_message;
mod task_finish;
mod team_inbox;
mod wait_for_messages;
mod work_report;

use crate::verb::VerbInfo;

pub use crate::shared::question::{
    DEFAULT_TIMEOUT_SECS, MediaKind, answer_in_host, answer_timeout, attachment, withdraw_question,
};
pub use ask_question::{AskArgs, AskQuestion, wait_for_answer};
pub use fork_thread::{ForkArgs, ForkResult, ForkThread};
pub use get_answer::{GetAnswer, GetAnswerArgs, look_for_answer};
pub use get_thread::{GetThread, ThreadArgs, ThreadNodeView, ThreadResult};
pub use hold_message::{HoldArgs, HoldMessage};
pub use list_agents::{AgentInfo, AgentsResult, FolderCounts, ListAgents, ListAgentsArgs};
pub use list_messages::{ListArgs, ListMessages, ListResult};
pub use list_teams::{ListTeams, ListTeamsArgs, MemberView, TeamView, TeamsResult};
pub use list_threads::{ListThreads, ThreadSummary, ThreadsArgs, ThreadsResult};
pub use message_status::{MessageStatus, RecipientView, StatusArgs, StatusResult};
pub use open_questions::{OpenQuestion, OpenQuestions, OpenQuestionsArgs, OpenQuestionsResult};
pub use read_message::{ReadArgs, ReadMessage, ReadResult};
pub use read_team_inbox::{ReadTeamInbox, ReadTeamInboxArgs};
pub use reindex::{Reindex, ReindexArgs, ReindexResult, ReindexedMailbox};
pub use reject_message::{RejectArgs, RejectMessage};
pub use reply_message::{ReplyArgs, ReplyMessage};
pub use resolve_message::{ResolveArgs, ResolveMessage};
pub use search_messages::{SearchArgs, SearchHit, SearchMessages, SearchResult};
pub use send_message::{SendArgs, SendMessage, SendResult, Sent};
pub use send_team_message::{
    SendTeamMessage, SendTeamMessageArgs, SendTeamMessageLine, TeamSendResult,
};
pub use task_finish::{ReportArgs, TaskFinish};
pub use team_inbox::{TeamInbox, TeamInboxArgs, TeamInboxResult, TeamMessageView};
pub use wait_for_messages::{MessageFormat, WaitArgs, WaitForMessages, WaitResult};
pub use work_report::WorkReport;

/// Every verb, in the order `tools/list` shows them.
pub static TABLE: &[VerbInfo] = &[
    VerbInfo::of::<ListMessages>(),
    VerbInfo::of::<ReadMessage>(),
    VerbInfo::of::<SendMessage>().through_hub(),
    VerbInfo::of::<ReplyMessage>().through_hub(),
    VerbInfo::of::<ResolveMessage>().through_hub(),
    VerbInfo::of::<RejectMessage>().through_hub(),
    VerbInfo::of::<HoldMessage>().through_hub(),
    VerbInfo::of::<ListAgents>(),
    VerbInfo::of::<WaitForMessages>(),
    VerbInfo::of::<SearchMessages>(),
    VerbInfo::of::<MessageStatus>(),
    VerbInfo::of::<ListThreads>(),
    VerbInfo::of::<GetThread>(),
    VerbInfo::of::<ForkThread>().through_hub(),
    VerbInfo::of::<AskQuestion>(),
    VerbInfo::of::<TaskFinish>(),
    VerbInfo::of::<WorkReport>(),
    VerbInfo::of::<GetAnswer>(),
    VerbInfo::of::<OpenQuestions>(),
    VerbInfo::of::<Reindex>(),
    VerbInfo::standalone::<ListTeams>(),
    VerbInfo::standalone::<TeamInbox>(),
    VerbInfo::standalone::<ReadTeamInbox>(),
    VerbInfo::standalone::<SendTeamMessage>(),
];

/// The verb with this name (MCP tool name), if any.
pub fn find(name: &str) -> Option<&'static VerbInfo> {
    TABLE.iter().find(|verb| verb.name == name)
}

/// Run the verb `name` with JSON arguments: the one entry point for surfaces that speak JSON.
pub fn call(
    cx: &crate::VerbContext<'_>,
    name: &str,
    args: serde_json::Value,
) -> Result<crate::Reply, crate::CallError> {
    find(name)
        .ok_or_else(|| crate::CallError::UnknownVerb(name.to_owned()))?
        .call(cx, args)
}
