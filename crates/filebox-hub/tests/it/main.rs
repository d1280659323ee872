//! The hub's integration tests, one binary: the hub in-process on 127.0.0.1:0 over a temp
//! config (`filebox_testkit::hub`), spoken to over HTTP, JSON-RPC, SSE and `/ws` as a remote
//! program would.

mod support;

mod a2a;
mod a2a_callers;
mod a2a_out;
mod a2a_parts;
mod a2a_push_bounds;
mod access;
mod attachments;
mod auth;
mod concurrency;
mod events;
mod origin;
mod page;
mod paths;
mod resources;
mod routing;
mod rpc;
mod runner;
mod webhook;
