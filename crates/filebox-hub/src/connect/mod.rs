//! Connect RPC for Agent Assistant's clients: `SrvAgentAssist.AskQuestion`, `.TaskFinish` and
//! its newer name `.WorkReport`, and `.SendMcpClientInfo` (package `agentassistproto`,
//! `proto/agentassist.proto`) over the Connect unary protocol, both codecs. An adapter over
//! the same verbs the MCP tools run (`ask_question`, `task_finish`): the call blocks until the
//! human answers or the timeout. The messages (`proto.rs`) are shared with the origin's
//! human-client WebSocket (`assistant_ws`).

mod answer;
mod codec;
mod error;
pub(crate) mod proto;
mod service;

pub(crate) use service::routes;
