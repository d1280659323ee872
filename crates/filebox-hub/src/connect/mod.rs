//! Connect RPC for Agent Assistant's clients: `SrvAgentAssist.AskQuestion` and
//! `.TaskFinish` (package `agentassistproto`, `proto/agentassist.proto`) over the Connect
//! unary protocol, both codecs. An adapter over the same verbs the MCP tools run
//! (`ask_question`, `task_finish`): the call blocks until the human answers or the timeout.

mod answer;
mod codec;
mod error;
mod proto;
mod service;

pub(crate) use service::routes;
