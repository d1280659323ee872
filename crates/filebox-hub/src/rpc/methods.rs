//! The method table: the `email.*` methods and `agents.list`, each mapped to a handler over
//! `filebox_api::verbs` with its params and result types (which `rpc.discover` describes),
//! answering in camelCase: as the wire types write it, or, for a verb's view, renamed
//! (`casing.rs`).

use schemars::{Schema, SchemaGenerator};
use serde_json::Value;

use super::call::Ctx;
use super::{RpcError, casing};
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
    /// How the result's names reach camelCase (its schema's too, in `rpc.discover`).
    pub(crate) casing: Casing,
    pub(crate) call: fn(&Ctx, Value) -> Result<Value, RpcError>,
}

/// How a method's result is written camelCase.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Casing {
    /// A wire type that writes its names camelCase itself (`AgentEmail`): sent as serialized,
    /// so nothing inside it (a message's metadata, a callback's headers) is renamed.
    AsWritten,
    /// Holds a verb's view, written snake_case: every key renamed (`casing::camel_case`).
    Camel,
}

/// A table row: parse the params as `$params`, run `$handler`, encode its `$result` in
/// camelCase (`wire`: a wire type, camelCase as serialized).
macro_rules! method {
    ($name:literal, $summary:literal, $handler:path, $params:ty => $result:ty) => {
        method!(@row $name, $summary, $handler, $params => $result, Casing::Camel)
    };
    (wire $name:literal, $summary:literal, $handler:path, $params:ty => $result:ty) => {
        method!(@row $name, $summary, $handler, $params => $result, Casing::AsWritten)
    };
    (@row $name:literal, $summary:literal, $handler:path, $params:ty => $result:ty, $casing:expr) => {
        Method {
            name: $name,
            summary: $summary,
            params: |generator| generator.root_schema_for::<$params>(),
            result: |generator| generator.subschema_for::<$result>(),
            casing: $casing,
            call: |ctx, params| {
                let params: $params = super::call::params(params)?;
                let result: $result = $handler(ctx, params)?;
                let result = serde_json::to_value(result)?;
                Ok(match $casing {
                    Casing::Camel => casing::camel_case(result),
                    Casing::AsWritten => result,
                })
            },
        }
    };
}

/// Names of verbs that clients already call by another name: the same verb, the same params.
pub(crate) static ALIASES: &[(&str, &str)] = &[("questions.open", "open_questions")];

/// Every method the hub answers besides the verbs of the table (by their names and aliases)
/// and `rpc.discover` (`discover.rs`).
pub(crate) static METHODS: &[Method] = &[
    method!(wire "email.send", "Send a new message (or, with inReplyTo, a reply); returns the sender's stored copy.",
        email::send, SendParams => AgentEmail),
    method!(wire "email.inbox", "List an agent's folder (inbox by default), oldest first unless newestFirst; limit, offset and before page it.",
        email::inbox, InboxParams => Vec<AgentEmail>),
    method!(wire "email.read", "Read one message of an agent's mailbox (marks it read).",
        email::read, ReadParams => AgentEmail),
    method!(wire "email.reply", "Reply, routed by the message's replyTo, else its sourceType and sender; the file moves on.",
        email::reply, ReplyParams => AgentEmail),
    method!("email.threads", "An agent's threads, most recently active first.",
        email::threads, ThreadsParams => filebox_api::ThreadsResult),
    method!("email.thread", "The whole tree of a thread, forks and obsolete branches included.",
        email::thread, IdParams => filebox_api::ThreadResult),
    method!(wire "email.fork", "Start a thread again from an earlier node with compressed context; later nodes become obsolete.",
        email::fork, ForkParams => AgentEmail),
    method!("email.status", "Where a message stands: status, times and each recipient's copy.",
        email::status, IdParams => email::EmailStatus),
    method!(wire "email.resolve", "Resolve a message of the agent's inbox (or hold): it moves to done.",
        email::resolve, TransitionParams => AgentEmail),
    method!(wire "email.reject", "Reject a message: it moves to cancel (status failed).",
        email::reject, TransitionParams => AgentEmail),
    method!(wire "email.hold", "Put a message on hold (status processing).",
        email::hold, TransitionParams => AgentEmail),
    method!("email.search", "Full-text search of an agent's mailbox (or every mailbox), newest first.",
        email::search, SearchParams => filebox_api::SearchResult),
    method!("agents.list", "Every mailbox of the config, with its kind and counts.",
        email::agents, NoParams => Vec<email::AgentView>),
];
