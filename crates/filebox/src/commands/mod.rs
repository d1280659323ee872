//! Dispatch: a verb of the table runs through `verb.rs`, one path for all of them; the other
//! commands have a module each.

mod acting;
mod agents;
mod config_edit;
mod email;
mod export;
mod federation;
mod handoff;
mod hook;
mod hub;
mod init;
mod mcp;
mod quickstart;
mod render;
mod serve;
mod setup;
mod teams;
mod verb;
mod wait;

use crate::cli::{Command, Global, Invocation};
use crate::output::Outcome;

pub(crate) use self::handoff::HubError;
pub(crate) use self::setup::{STOP_WAIT_SECONDS, host_names as setup_host_names};

pub(crate) fn run(global: &Global, invocation: Invocation) -> anyhow::Result<Outcome> {
    match invocation {
        Invocation::Verb { verb, matches } => verb::run(global, verb, &matches),
        Invocation::Agents(action) => agents::run(global, action),
        Invocation::Teams(action) => teams::run(global, action),
        Invocation::Command(command) => match command {
            Command::Init(args) => init::run(global, &args),
            Command::Watch => wait::watch(global),
            Command::Mcp(args) => mcp::run(global, &args),
            Command::Export(args) => export::run(global, &args),
            Command::Import(args) => export::run_import(global, &args),
            Command::Render(args) => render::run(global, &args),
            Command::Serve(args) => serve::run(global, &args),
            Command::Federation(args) => federation::run(global, &args),
            Command::Hub(args) => hub::run(global, &args),
            Command::Quickstart(args) => quickstart::run(global, &args, run),
            Command::Email(action) => email::run(global, action),
            Command::Setup(args) => setup::run(global, &args),
            Command::Hook(args) => hook::run(global, &args),
        },
    }
}
