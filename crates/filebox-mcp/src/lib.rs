//! FileBox as an MCP server: one tool per mailbox verb, inbox resources, and the inbox-work
//! prompt, over stdio or Streamable HTTP.
//!
//! Translation only: every tool calls `filebox_api::verbs` on a [`filebox_core::Mailroom`] and
//! never touches mailbox files itself. Nothing here writes to stdout except the stdio transport.

mod blocking;
mod http;
mod inbox;
mod prompts;
mod render;
mod resources;
mod server;
mod stdio;
mod subscriptions;
mod tools;

pub use http::{check_listen_address, serve_http};
pub use stdio::serve_stdio;

/// Every tool this server offers, as `tools/list` shows it (for snapshots and docs).
pub fn tool_list() -> Vec<rmcp::model::Tool> {
    tools::definitions()
}
