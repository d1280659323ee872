//! FileBox as an MCP server: one tool per mailbox verb, inbox resources, and the inbox-work
//! prompt, over stdio or Streamable HTTP.
//!
//! Translation only: the tools are `filebox_api`'s verb table, run on a
//! [`filebox_core::Mailroom`]; nothing here touches mailbox files itself. Nothing here writes to stdout except the stdio transport.

mod blocking;
mod channel;
mod http;
mod inbox;
mod prompts;
mod resources;
mod server;
mod stdio;
mod subscriptions;
mod tools;

pub use channel::ChannelMode;
pub use http::{check_listen_address, router as http_router, serve_http};
pub use server::MailroomSource;
pub use stdio::{serve_stdio, serve_transport};
pub use tools::HostFiles;

/// Every tool this server offers, as `tools/list` shows it (for snapshots and docs).
pub fn tool_list() -> Vec<rmcp::model::Tool> {
    tools::definitions(HostFiles::Offered)
}
