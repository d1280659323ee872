//! Wire types shared by every surface: the CLI's `--json`, the MCP tools and the JSON-RPC API.
//! Argument structs document their fields; the documentation becomes the JSON Schema.
//!
//! [`verbs`] runs each verb on a [`filebox_core::Mailroom`], so every surface does exactly the
//! same thing for the same arguments.

mod args;
pub mod verbs;
mod views;

pub use args::*;
pub use views::*;
