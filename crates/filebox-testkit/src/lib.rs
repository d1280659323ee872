//! Test fixtures every crate's tests need, written once: a config of mailboxes in a temp
//! folder and a mailroom acting in it ([`mailroom`]); with the `hub` feature, a hub running
//! in-process on `127.0.0.1:0` and the clients that speak to it as a remote program would
//! ([`hub`]: HTTP, JSON-RPC, SSE).
//!
//! A dev-dependency only (`publish = false`): it panics on anything unexpected, as a test
//! does.

#[cfg(feature = "hub")]
pub mod hub;
pub mod mailroom;

pub use mailroom::{mailroom, write_config};
