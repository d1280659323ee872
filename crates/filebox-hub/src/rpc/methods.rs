//! The method table: the `email.*` and `agents.list` names, each mapped to a handler over
//! `filebox_api::verbs` with its params and result types (which `rpc.discover` describes).

use schemars::{Schema, SchemaGenerator};
use serde_json::Value;

use super::{Ctx, RpcError, discover};
use crate::email::handlers as email;
use crate::email::wire::{
    AgentEmail, ForkParams, IdParams, InboxParams, NoParams, ReadParams, ReplyParams, SearchParams,
    SendParams, ThreadsParams, TransitionParams,
};

/// One JSON-RPC method.
pub(crate) struct Method {
    pub(crate) name: &'static str,
    pub(crate) summary: &'static str,
    pub(crate) params: fn(&mut SchemaGenerator) -> Schema,
    pub(crate) result: fn(&mut SchemaGenerator) -> Schema,
    pub(crate) call: fn(&Ctx, Value) -> Result<Value, RpcError>,
}

/// A table row: parse the params as `$params`, run `$handler`, encode its `$result`.
macro_rules! method {
    ($name:literal, $summary:literal, $handler:path, $params:ty => $result:ty) => {
        Method {
            name: $name,
            summary: $summary,
            params: |generator| generator.root_schema_for::<$params>(),
            result: |generator| generator.subschema_for::<$result>(),
            call: |ctx, params| {
                let params: $params = super::params(params)?;
                let result: $result = $handler(ctx, params)?;
                Ok(serde_json::to_value(result)?)
            },
        }
    };
}

/// Names of verbs that clients already call by another name: the same verb, the same params.
pub(crate) static ALIASES: &[(&str, &str)] = &[("questions.open", "open_questions")];

/// Every method the hub answers besides the verbs of the table (by their names and aliases).
pub(crate) static METHODS: &[Method] = &[
    method!("email.send", "Send a new message (or, with inReplyTo, a reply); returns the sender's stored copy.",
        email::send, SendParams => AgentEmail),
    method!("email.inbox", "List an agent's folder (inbox by default), oldest first unless newestFirst; limit, offset and before page it.",
        email::inbox, InboxParams => Vec<AgentEmail>),
    method!("email.read", "Read one message of an agent's mailbox (marks it read).",
        email::read, ReadParams => AgentEmail),
    method!("email.reply", "Reply, routed by the message's replyTo, else its sourceType and sender; the file moves on.",
        email::reply, ReplyParams => AgentEmail),
    method!("email.threads", "An agent's threads, most recently active first.",
        email::threads, ThreadsParams => filebox_api::ThreadsResult),
    method!("email.thread", "The whole tree of a thread, forks and obsolete branches included.",
        email::thread, IdParams => filebox_api::ThreadResult),
    method!("email.fork", "Start a thread again from an earlier node with compressed context; later nodes become obsolete.",
        email::fork, ForkParams => AgentEmail),
    method!("email.status", "Where a message stands: status, times and each recipient's copy.",
        email::status, IdParams => email::EmailStatus),
    method!("email.resolve", "Resolve a message of the agent's inbox (or hold): it moves to done.",
        email::resolve, TransitionParams => AgentEmail),
    method!("email.reject", "Reject a message: it moves to cancel (status failed).",
        email::reject, TransitionParams => AgentEmail),
    method!("email.hold", "Put a message on hold (status processing).",
        email::hold, TransitionParams => AgentEmail),
    method!("email.search", "Full-text search of an agent's mailbox (or every mailbox), newest first.",
        email::search, SearchParams => filebox_api::SearchResult),
    method!("agents.list", "Every mailbox of the config, with its kind and counts.",
        email::agents, NoParams => Vec<email::AgentView>),
    method!("rpc.discover", "This API as an OpenRPC document.",
        discover::handler, NoParams => Value),
];
