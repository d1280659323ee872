//! `filebox setup HOST...`: write what a host needs to use FileBox as an agent (its MCP server
//! entry; for Claude Code and Codex, the hooks that bring mail into the session) into the
//! host's own files, merged with what is there; `--dry-run` shows the diff, `--check` says
//! what is configured and what is missing.

mod document;
mod entries;
mod hosts;
mod jsonc;
mod launcher;
mod toml;

use serde::Serialize;

use self::document::{Document, State};
use self::entries::Invocation;
use self::hosts::{HOSTS, Host, Places};
use super::acting::{cwd, mailroom};
use crate::cli::{Global, SetupArgs};
use crate::output::{self, Outcome};

pub(crate) use self::entries::shell_quote;
pub(crate) use self::hosts::{STOP_WAIT_SECONDS, host_names};

pub(crate) fn run(global: &Global, args: &SetupArgs) -> anyhow::Result<Outcome> {
    let mailroom = mailroom(global)?;
    let config_path = &mailroom.config().path;
    // The project is where the host is started: the folder setup runs in.
    let places = Places::new(cwd()?)?;
    let invocation = Invocation {
        launcher: launcher::of_this_process()?,
        config: config_path.display().to_string(),
        agent: mailroom.me().to_string(),
    };
    let hosts: Vec<&Host> = if args.hosts.is_empty() {
        HOSTS.iter().collect()
    } else {
        args.hosts
            .iter()
            .filter_map(|name| hosts::find(name))
            .collect()
    };
    if args.check {
        check(global, &hosts, &places, &invocation, !args.hosts.is_empty())
    } else {
        set_up(global, &hosts, &places, &invocation, args.dry_run)
    }
}

/// What setup did to one file.
#[derive(Debug, Serialize)]
struct Written {
    file: String,
    changed: bool,
    /// The old file, kept (when there was one and it changed).
    backup: Option<String>,
}

fn set_up(
    global: &Global,
    hosts: &[&Host],
    places: &Places,
    invocation: &Invocation,
    dry_run: bool,
) -> anyhow::Result<Outcome> {
    // Every file is read and every entry applied before anything is written: a file that
    // cannot be parsed stops the whole setup with nothing changed.
    let mut documents: Vec<Document> = Vec::new();
    for host in hosts {
        for entry in entries::entries(host, invocation) {
            let file = places.confined(entry.file());
            let index = match documents.iter().position(|doc| doc.path == file.path()) {
                Some(index) => index,
                None => {
                    documents.push(Document::load(file, entry.file().format)?);
                    documents.len() - 1
                }
            };
            documents[index].apply(&entry)?;
        }
    }
    let mut report = Vec::new();
    for document in &documents {
        let shown = places.show(&document.path);
        let changed = !document.existed || document.after() != document.before;
        if dry_run {
            if changed {
                output::text(&document.diff(&shown))?;
            }
            continue;
        }
        if changed {
            document.write()?;
        }
        report.push(Written {
            file: shown,
            changed,
            backup: (changed && document.existed).then(|| places.show(&document.backup_path())),
        });
    }
    if dry_run {
        if documents
            .iter()
            .all(|doc| doc.existed && doc.after() == doc.before)
        {
            output::lines(["nothing to change"])?;
        }
        return Ok(Outcome::Success);
    }
    output::either(global.json, &report, |report| {
        let files = report
            .iter()
            .map(|written| match (&written.backup, written.changed) {
                (_, false) => format!("unchanged {}", written.file),
                (Some(backup), true) => format!("wrote {} (the old one: {backup})", written.file),
                (None, true) => format!("created {}", written.file),
            });
        let next = hosts
            .iter()
            .map(|host| format!("{}: {}", host.title, host.next));
        files.chain(next).collect()
    })?;
    Ok(Outcome::Success)
}

/// One entry's state, for `--check`.
#[derive(Debug, Serialize)]
struct Checked {
    host: &'static str,
    file: String,
    key: String,
    state: State,
}

fn check(
    global: &Global,
    hosts: &[&Host],
    places: &Places,
    invocation: &Invocation,
    named: bool,
) -> anyhow::Result<Outcome> {
    let mut report = Vec::new();
    for host in hosts {
        for entry in entries::entries(host, invocation) {
            let file = places.confined(entry.file());
            let path = file.path().to_owned();
            let state = match Document::load(file, entry.file().format) {
                Ok(document) => document.state(&entry),
                Err(error) => {
                    output::warn(output::describe(&error));
                    State::Differs
                }
            };
            report.push(Checked {
                host: host.name,
                file: places.show(&path),
                key: entry.key(),
                state,
            });
        }
    }
    output::either(global.json, &report, |report| {
        report
            .iter()
            .map(|checked| {
                let state = match checked.state {
                    State::Configured => "configured",
                    State::Differs => "differs (another agent, config or binary)",
                    State::Missing => "missing",
                };
                format!("{} {} {}: {state}", checked.host, checked.file, checked.key)
            })
            .collect()
    })?;
    let incomplete: Vec<&str> = hosts
        .iter()
        .filter(|host| {
            report
                .iter()
                .any(|checked| checked.host == host.name && checked.state != State::Configured)
        })
        .map(|host| host.name)
        .collect();
    if named && !incomplete.is_empty() {
        eprintln!(
            "filebox: to configure: filebox --agent {} setup {}",
            invocation.agent,
            incomplete.join(" ")
        );
        return Ok(Outcome::Partial);
    }
    Ok(Outcome::Success)
}
