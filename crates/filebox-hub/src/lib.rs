//! The FileBox hub (`filebox serve`): an email-style API as one more surface over the core.
//! JSON-RPC 2.0 at `POST /rpc` and on `.filebox/hub.sock`, live events at `/events`, MCP at
//! `/mcp`, `/healthz`, signed webhooks for messages with a `callback`, runners for agents that
//! are not running, the Claude Code team bridges the config names (`bridges`), and the human
//! channel's page at `/`.
//!
//! Translation only: every method calls `filebox_api::verbs` (or `filebox_core`) as the agent
//! it names; the hub keeps no state that is not on disk (it re-reads the config for every
//! request), so it can be killed at any instant and started again.

mod a2a;
mod assistant_ws;
mod bridges;
mod connect;
mod connections;
mod email;
mod events;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod guard;
mod health;
mod hub;
mod human;
mod indexer;
mod limits;
mod mcp;
mod prompts;
mod refusal;
pub mod routes;
mod rpc;
mod runner;
mod server;
mod settings;
mod task_states;
mod tasks;
mod webhook;

/// The messages of the hub's binary protocols, for the clients outside this crate (tests, the
/// benchmarks) to speak them with the hub's own definitions: `/ws`, Agent Assistant's human
/// client (`WebsocketMessage`, one per binary frame, and its `cmd` names), and the Connect
/// service's messages that `/ws` carries. Encode and decode with `prost::Message`.
pub mod proto {
    pub use crate::assistant_ws::proto::*;
    pub use crate::connect::proto::*;
}

pub use a2a::check_a2a_remote;
pub use filebox_api::access::{TOKEN_FIELD, new_token, sha256_hex};
pub use hub::Hub;
pub use human::{PAGE_ASSETS, PageAsset};
pub use server::{Options, SOCKET_NAME, Server, check_hub_section, run, run_with, socket_path};
