//! A verb of the table run from its subcommand, one path for all of them: its arguments
//! decoded once, a verb that writes mail handed to a running hub (`handoff.rs`), and the reply
//! printed: `--json` the whole [`filebox_api::Outcome`], else the verb's text; warnings on
//! stderr (exit code 1), notes too (exit code 0).

use anyhow::Context;
use clap::{ArgMatches, FromArgMatches};
use filebox_api::verbs::WaitForMessages;
use filebox_api::{CallError, CommandLineCall, Reply, Verb, VerbContext, VerbInfo};
use filebox_core::{Mailroom, MessageType};

use super::acting::mailroom;
use super::handoff::{self, Handoff};
use super::wait;
use crate::cli::Global;
use crate::output::{self, Outcome};

/// Run a verb of the table from its subcommand's arguments, as the current agent (a
/// standalone verb needs no config), and print the result.
pub(crate) fn run(
    global: &Global,
    verb: &VerbInfo,
    matches: &ArgMatches,
) -> anyhow::Result<Outcome> {
    // The one verb the command line runs its own way: `wait` moves its cursor only once what
    // it returns is printed and flushed, and ends with exit code 3 on a timeout.
    if verb.name == WaitForMessages::NAME {
        return wait::run(global, filebox_api::WaitArgs::from_arg_matches(matches)?);
    }
    note_written_type(matches);
    // A standalone verb runs without a config, and with one as its agent (`teams send` is
    // then from that agent).
    let mailroom = match mailroom(global) {
        Ok(mailroom) => mailroom,
        Err(e) => {
            let reply = verb.call_standalone(matches).ok_or(e)?;
            return print_reply(global, &reply.map_err(failure)?);
        }
    };
    let call = verb.command_line_call(matches).map_err(failure)?;
    if verb.through_hub {
        return through_hub(global, &mailroom, verb, call);
    }
    print_reply(
        global,
        &call.run(&VerbContext::new(&mailroom)).map_err(failure)?,
    )
}

/// A verb that writes mail: handed to the hub serving the config when one answers its socket,
/// else run here (see `handoff.rs`).
fn through_hub(
    global: &Global,
    mailroom: &Mailroom,
    verb: &VerbInfo,
    mut call: Box<dyn CommandLineCall>,
) -> anyhow::Result<Outcome> {
    match handoff::offer(mailroom, verb, || call.arguments().map_err(failure))? {
        Handoff::Answered(outcome) => {
            let reply = call
                .answered(outcome.clone())
                .with_context(|| format!("reading the hub's answer {outcome}"))?;
            return print_reply(global, &reply);
        }
        Handoff::Unanswered => output::note(
            "the hub stopped before answering: sent here with the same idempotency key (one \
             message either way)",
        ),
        Handoff::NoHub => {}
    }
    print_reply(
        global,
        &call.run(&VerbContext::new(mailroom)).map_err(failure)?,
    )
}

/// Run verb `V` with arguments the command line gave in another form (`filebox email ...`),
/// printed as [`run`] prints.
pub(crate) fn run_typed<V: Verb>(
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

/// Print a verb's reply as [`run`] prints it.
fn print_reply(global: &Global, reply: &Reply) -> anyhow::Result<Outcome> {
    print(
        global,
        &reply.value,
        &reply.text,
        &reply.warnings,
        &reply.notes,
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
pub(crate) fn note_type(given: &str) {
    if let Ok(kind) = MessageType::new(given)
        && kind.as_str() != given.trim()
    {
        output::note(format!("the type {given:?} is written as {kind}"));
    }
}
