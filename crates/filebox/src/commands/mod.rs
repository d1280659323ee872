//! Dispatch: one module per command, each turning parsed arguments into a library call and
//! its output.

mod agents;
mod export;
mod federation;
mod fork;
mod init;
mod list;
mod mcp;
mod questions;
mod quickstart;
mod read;
mod reindex;
mod render;
mod reply;
mod search;
mod send;
mod serve;
mod status;
mod teams;
mod thread;
mod transition;
mod wait;

use std::path::PathBuf;

use anyhow::Context;
use filebox_api::{Standalone, Verb};
use filebox_core::{AgentId, Config, Mailroom, MessageType};

use crate::cli::{Cli, Command, Global};
use crate::output::{self, Outcome};

pub(crate) fn run(cli: Cli) -> anyhow::Result<Outcome> {
    let global = &cli.global;
    match cli.command {
        Command::Init(args) => init::run(global, &args),
        Command::Agents(args) => agents::run(global, &args),
        Command::List(args) => list::run(global, &args),
        Command::Read(args) => read::run(global, &args),
        Command::Send(args) => send::run(global, &args),
        Command::Resolved(args) => transition::resolved(global, &args),
        Command::Reject(args) => transition::reject(global, &args),
        Command::Onhold(args) => transition::onhold(global, &args),
        Command::Reply(args) => reply::run(global, &args),
        Command::Thread(args) => thread::run(global, &args),
        Command::Threads(args) => thread::run_list(global, &args),
        Command::Fork(args) => fork::run(global, &args),
        Command::Wait(args) => wait::run(global, &args),
        Command::Watch => wait::watch(global),
        Command::Search(args) => search::run(global, &args),
        Command::Reindex(args) => reindex::run(global, &args),
        Command::Status(args) => status::run(global, &args),
        Command::Ask(args) => questions::ask(global, &args),
        Command::Report(args) => questions::report(global, &args),
        Command::Answer(args) => questions::answer(global, &args),
        Command::Questions => questions::open(global),
        Command::Mcp(args) => mcp::run(global, &args),
        Command::Export(args) => export::run(global, &args),
        Command::Import(args) => export::run_import(global, &args),
        Command::Render(args) => render::run(global, &args),
        Command::Teams(args) => teams::run(global, &args),
        Command::Serve(args) => serve::run(global, &args),
        Command::Federation(args) => federation::run(global, &args),
        Command::Quickstart(args) => quickstart::run(global, &args),
    }
}

fn cwd() -> anyhow::Result<PathBuf> {
    std::env::current_dir().context("cannot read the current directory")
}

/// The `--agent` override, validated.
fn agent_override(global: &Global) -> anyhow::Result<Option<AgentId>> {
    Ok(global.agent.as_deref().map(AgentId::new).transpose()?)
}

/// A message type the CLI checked ([`crate::cli`]), normalised; says so on stderr when it is
/// written otherwise than given (`Feature` is written `FEATURE`).
fn message_type(given: &str) -> anyhow::Result<MessageType> {
    let kind = MessageType::new(given)?;
    if kind.as_str() != given.trim() {
        output::note(format!("the type {given:?} is written as {kind}"));
    }
    Ok(kind)
}

/// The config and current agent every mailbox command works with.
pub(crate) fn mailroom(global: &Global) -> anyhow::Result<Mailroom> {
    let config = Config::discover(global.config.as_deref(), &cwd()?)?;
    Ok(Mailroom::new(config, agent_override(global)?.as_ref())?)
}

/// Run verb `V` as the current agent and print its result: `--json` prints the whole
/// [`filebox_api::Outcome`], text is the verb's rendering; warnings go to stderr (exit 1).
pub(crate) fn run_verb<V: Verb>(global: &Global, args: V::Args) -> anyhow::Result<Outcome> {
    run_verb_as_text::<V>(global, args, V::render)
}

/// [`run_verb`] with another text than the verb's rendering, for the few commands whose text
/// output is a script contract (`send` and `reply` print the Message ID alone).
pub(crate) fn run_verb_as_text<V: Verb>(
    global: &Global,
    args: V::Args,
    text: impl FnOnce(&V::Output) -> String,
) -> anyhow::Result<Outcome> {
    let mailroom = mailroom(global)?;
    let outcome = V::run(&filebox_api::VerbContext::new(&mailroom), args)?;
    print_outcome(global, &outcome, text)
}

/// Run a [`Standalone`] verb (no FileBox config needed) and print it as [`run_verb`] does.
pub(crate) fn run_standalone<V: Standalone>(
    global: &Global,
    args: V::Args,
) -> anyhow::Result<Outcome> {
    print_outcome(global, &V::run_standalone(args)?, V::render)
}

/// `--json`: the whole outcome; else the text; warnings on stderr (exit code 1).
fn print_outcome<T: serde::Serialize>(
    global: &Global,
    outcome: &filebox_api::Outcome<T>,
    text: impl FnOnce(&T) -> String,
) -> anyhow::Result<Outcome> {
    if global.json {
        output::json(outcome)?;
    } else {
        output::text_line(&text(&outcome.value))?;
    }
    Ok(output::warnings(&outcome.warnings))
}
