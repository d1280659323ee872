//! The verb table: every verb once, in the order surfaces list them. A surface enumerates
//! [`TABLE`] (or looks one up with [`find`]) and calls [`VerbInfo::call`] with JSON; the CLI
//! builds a subcommand from each ([`VerbInfo::command`]) and runs its
//! [`VerbInfo::command_line_call`], handing the verbs that write mail to a running hub
//! ([`VerbInfo::through_hub`]).
//!
//! To add a verb: its argument and result structs (`args.rs`, `views.rs`), a unit struct that
//! implements [`Verb`](crate::Verb) in one of these modules, and a line in [`TABLE`]. Every
//! surface picks it up from there: MCP, the hub, and the CLI, whose subcommands are generated
//! from this table.

mod agents;
mod messages;
mod questions;
mod search;
mod send;
mod status;
mod teams;
mod threads;
mod transition;

use crate::verb::VerbInfo;

pub use agents::ListAgents;
pub use messages::{ListMessages, ReadMessage, WaitForMessages};
pub use questions::{
    AskQuestion, DEFAULT_TIMEOUT_SECS, GetAnswer, MediaKind, OpenQuestions, TaskFinish, WorkReport,
    answer_in_host, answer_timeout, attachment, look_for_answer, wait_for_answer,
    withdraw_question,
};
pub use search::{Reindex, SearchMessages};
pub use send::{ReplyMessage, SendMessage};
pub use status::MessageStatus;
pub use teams::{ListTeams, ReadTeamInbox, SendTeamMessage, TeamInbox};
pub use threads::{ForkThread, GetThread, ListThreads};
pub use transition::{HoldMessage, RejectMessage, ResolveMessage};

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

/// The one warning for a mailbox of the config that could not be read (every verb that looks
/// at several mailboxes goes on without it).
pub(crate) fn unusable_warnings(unusable: &[filebox_core::Unusable]) -> Vec<String> {
    unusable
        .iter()
        .map(|u| format!("the mailbox of {} is unusable: {}", u.agent, u.reason))
        .collect()
}

/// Agent ids as the views carry them.
pub(crate) fn names(agents: &[filebox_core::AgentId]) -> Vec<String> {
    agents.iter().map(ToString::to_string).collect()
}

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
