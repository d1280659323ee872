//! Dispatch: a verb of the table runs through [`run_verb`], one path for all of them; the
//! other commands have a module each.

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
mod wait;

use std::path::PathBuf;

use anyhow::Context;
use clap::{ArgMatches, FromArgMatches};
use filebox_api::verbs::{SendMessage, WaitForMessages};
use filebox_api::{CallError, Reply, Verb, VerbContext, VerbInfo};
use filebox_core::{AgentId, Config, Mailroom, MessageType};

use crate::cli::{Command, Global, Invocation};
use crate::output::{self, Outcome};

use self::handoff::Handoff;
pub(crate) use self::handoff::HubError;
pub(crate) use self::setup::{STOP_WAIT_SECONDS, host_names as setup_host_names};

pub(crate) fn run(global: &Global, invocation: Invocation) -> anyhow::Result<Outcome> {
    match invocation {
        Invocation::Verb { verb, matches } => run_verb(global, verb, &matches),
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
            Command::Quickstart(args) => quickstart::run(global, &args),
            Command::Email(action) => email::run(global, action),
            Command::Setup(args) => setup::run(global, &args),
            Command::Hook(args) => hook::run(global, &args),
        },
    }
}

/// Run a verb of the table from its subcommand's arguments, as the current agent (a
/// standalone verb needs no config), and print the result: `--json` prints the whole
/// [`filebox_api::Outcome`], text is the verb's rendering; warnings go to stderr (exit 1),
/// notes too (exit 0).
fn run_verb(global: &Global, verb: &VerbInfo, matches: &ArgMatches) -> anyhow::Result<Outcome> {
    // The one verb the command line runs its own way: `wait` moves its cursor only once what
    // it returns is printed and flushed, and ends with exit code 3 on a timeout.
    if verb.name == WaitForMessages::NAME {
        return wait::run(global, filebox_api::WaitArgs::from_arg_matches(matches)?);
    }
    note_written_type(matches);
    // A standalone verb runs without a config, and with one as its agent (`teams send` is
    // then from that agent).
    let reply = match mailroom(global) {
        Ok(mailroom) if verb.name == SendMessage::NAME => {
            return send(global, &mailroom, verb, matches);
        }
        Ok(mailroom) => verb.call_command_line(&VerbContext::new(&mailroom), matches),
        Err(e) => match verb.call_standalone(matches) {
            Some(reply) => reply,
            None => return Err(e),
        },
    };
    print_reply(global, &reply.map_err(failure)?)
}

/// Print a verb's reply as [`run_verb`] prints it.
fn print_reply(global: &Global, reply: &Reply) -> anyhow::Result<Outcome> {
    print(
        global,
        &reply.value,
        &reply.text,
        &reply.warnings,
        &reply.notes,
    )
}

/// `send`: handed to the hub serving the config when one answers its socket, else written
/// here (see `handoff.rs`), printed as [`run_verb`] prints.
fn send(
    global: &Global,
    mailroom: &Mailroom,
    verb: &VerbInfo,
    matches: &ArgMatches,
) -> anyhow::Result<Outcome> {
    let args = filebox_api::SendArgs::from_arg_matches(matches)?;
    match handoff::send(mailroom, args)? {
        Handoff::Sent(value, outcome) => {
            return print(
                global,
                &value,
                &SendMessage::render(&outcome.value),
                &outcome.warnings,
                &outcome.notes,
            );
        }
        Handoff::Unanswered => output::note(
            "the hub stopped before answering: sent here with the same idempotency key (one \
             message either way)",
        ),
        Handoff::NoHub => {}
    }
    let reply = verb
        .call_command_line(&VerbContext::new(mailroom), matches)
        .map_err(failure)?;
    print_reply(global, &reply)
}

/// Run verb `V` with arguments the command line gave in another form (`filebox email ...`),
/// printed as [`run_verb`] prints.
fn run_typed_verb<V: Verb>(
    mailroom: &Mailroom,
    global: &Global,
    args: V::Args,
) -> anyhow::Result<Outcome> {
    let outcome = V::run(&VerbContext::new(mailroom), args)?;
    let value = serde_json::to_value(&outcome)?;
    print(
        global,
        &value,
        &V::render(&outcome.value),
        &outcome.warnings,
        &outcome.notes,
    )
}

/// `--json`: the whole outcome; else the text; warnings (exit code 1) and notes on stderr.
fn print(
    global: &Global,
    value: &serde_json::Value,
    text: &str,
    warnings: &[String],
    notes: &[String],
) -> anyhow::Result<Outcome> {
    if global.json {
        output::json(value)?;
    } else {
        output::text_line(text)?;
    }
    notes.iter().for_each(output::note);
    Ok(output::warnings(warnings))
}

/// A failed call as the error the output reports: a core error keeps its kind (`--json`'s
/// `kind`).
fn failure(error: CallError) -> anyhow::Error {
    match error {
        CallError::Failed(core) => core.into(),
        other => other.into(),
    }
}

/// A message type (`--type`, `send`'s TYPE) that is written otherwise than given is noted
/// on stderr (`Feature` is written `FEATURE`), whichever verb took it.
fn note_written_type(matches: &ArgMatches) {
    let given = matches.try_get_raw("kind").ok().flatten();
    if let Some(given) = given.and_then(|mut raw| raw.next()?.to_str()) {
        note_type(given);
    }
}

/// Say so when the type `given` is written otherwise.
fn note_type(given: &str) {
    if let Ok(kind) = MessageType::new(given)
        && kind.as_str() != given.trim()
    {
        output::note(format!("the type {given:?} is written as {kind}"));
    }
}

fn cwd() -> anyhow::Result<PathBuf> {
    std::env::current_dir().context("cannot read the current directory")
}

/// The `--agent` override, validated.
fn agent_override(global: &Global) -> anyhow::Result<Option<AgentId>> {
    Ok(global.agent.as_deref().map(AgentId::new).transpose()?)
}

/// The config and current agent every mailbox command works with.
pub(crate) fn mailroom(global: &Global) -> anyhow::Result<Mailroom> {
    mailroom_as(global, agent_override(global)?.as_ref())
}

/// The config, acting as `agent` (else the config's current agent).
fn mailroom_as(global: &Global, agent: Option<&AgentId>) -> anyhow::Result<Mailroom> {
    Ok(Mailroom::new(discover(global)?, agent)?)
}

/// The config every command finds (`Config::locate`), loaded.
fn discover(global: &Global) -> anyhow::Result<Config> {
    Ok(Config::load(&config_path(global)?)?)
}

/// Where the config every command finds is: `--config` (or `FILEBOX_CONFIG`), else the
/// nearest `.filebox/config.json` upward, else the user's; none is an error that says where
/// it looked.
fn config_path(global: &Global) -> anyhow::Result<PathBuf> {
    let cwd = cwd()?;
    Config::locate(global.config.as_deref(), &cwd).ok_or_else(|| {
        let user = filebox_core::config::user_config_path()
            .map_or(String::new(), |path| format!(", nor at {}", path.display()));
        anyhow::Error::from(filebox_core::Error::NoConfig).context(format!(
            "no .filebox/config.json in {} or any folder above it{user}",
            cwd.display()
        ))
    })
}
