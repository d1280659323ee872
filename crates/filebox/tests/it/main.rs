//! Integration tests: the real `filebox` binary in temp dirs, through `support::Test`.

// `[name.clone()]` reads better than `std::slice::from_ref(&name)` in an assertion.
#![allow(clippy::cloned_ref_to_slice_refs)]

mod support;

mod channel;
mod cli_forms;
mod cluster;
mod concurrency;
mod copies;
mod crash;
mod disk;
mod exchange;
mod federation;
mod federation_security;
mod format;
mod hand_written;
mod handoff;
mod hook;
mod hostile;
mod hub_crash;
mod idempotency;
mod limits;
mod list_filters;
mod mcp;
mod mistakes;
mod new_user;
mod paging;
mod permissions;
mod readme;
mod render;
mod replies;
mod safety;
mod search;
mod serve;
mod setup;
mod setup_config;
mod setup_launcher;
mod team_bridge;
mod teams;
mod threads;
mod transcripts;
mod wait;
