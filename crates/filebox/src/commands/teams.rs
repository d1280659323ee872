//! `filebox teams ...`: Claude Code team inboxes (list, inbox, read, send).

use std::path::PathBuf;

use anyhow::Context;
use filebox_bridge::team_bridge::{Bridge, PassReport};
use filebox_bridge::team_inbox::names;
use filebox_bridge::teams::{self, TeamInboxResult, TeamMessageView, TeamSendRequest};

use crate::cli::{Global, TeamsAction, TeamsArgs};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &TeamsArgs) -> anyhow::Result<Outcome> {
    let claude_dir = claude_dir(args.claude_dir.as_deref())?;
    match &args.action {
        None => list(global, &claude_dir),
        Some(TeamsAction::Inbox {
            team,
            member,
            unread,
        }) => {
            let result = teams::inbox(&claude_dir, team, member, *unread)?;
            output::either(global.json, &result, inbox_lines)?;
            Ok(Outcome::Success)
        }
        Some(TeamsAction::Read { team, member }) => {
            let result = teams::read(&claude_dir, team, member)?;
            output::either(global.json, &result, inbox_lines)?;
            Ok(Outcome::Success)
        }
        Some(TeamsAction::Bridge {
            team,
            mailbox,
            once,
            interval_ms,
        }) => bridge(
            global,
            &claude_dir,
            team,
            mailbox.as_deref(),
            *once,
            *interval_ms,
        ),
        Some(TeamsAction::Send {
            team,
            to,
            text,
            from,
            summary,
            color,
        }) => {
            let request = TeamSendRequest {
                to: to.clone(),
                text: text.clone(),
                from: Some(from.clone()),
                summary: summary.clone(),
                color: color.clone(),
            };
            let result = teams::send(&claude_dir, team, &request)?;
            output::either(global.json, &result, |r| {
                vec![format!(
                    "sent to {} in team {} as {} at {}",
                    r.to.join(", "),
                    r.team,
                    r.from,
                    r.timestamp
                )]
            })?;
            Ok(Outcome::Success)
        }
    }
}

/// `--claude-dir`, else `CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub(crate) fn claude_dir(explicit: Option<&std::path::Path>) -> anyhow::Result<PathBuf> {
    names::claude_dir(explicit)
        .context("no Claude config folder: pass --claude-dir DIR or set CLAUDE_CONFIG_DIR")
}

fn list(global: &Global, claude_dir: &std::path::Path) -> anyhow::Result<Outcome> {
    let result = teams::list(claude_dir)?;
    let problems: Vec<&String> = result.teams.iter().flat_map(|t| &t.problems).collect();
    for problem in &problems {
        output::warn(problem);
    }
    output::either(global.json, &result, |r| {
        if r.teams.is_empty() {
            return vec![format!("no teams in {}", r.teams_dir)];
        }
        r.teams
            .iter()
            .flat_map(|team| {
                let heading = match &team.description {
                    Some(d) => format!("{} — {d}", team.name),
                    None => team.name.clone(),
                };
                std::iter::once(heading).chain(team.members.iter().map(|m| {
                    format!(
                        "  {} ({} messages, {} unread)",
                        m.name, m.messages, m.unread
                    )
                }))
            })
            .collect()
    })?;
    Ok(if problems.is_empty() {
        Outcome::Success
    } else {
        Outcome::Partial
    })
}

/// Each message: `* 2026-04-01T10:30:00.000Z researcher: summary` (`*` = unread), then its
/// text indented, or for a structured message its kind and details on the same line.
fn inbox_lines(result: &TeamInboxResult) -> Vec<String> {
    if result.messages.is_empty() {
        return vec![format!(
            "no {}messages for {} in team {}",
            if result.marked_read.is_some() {
                "unread "
            } else {
                ""
            },
            result.member,
            result.team
        )];
    }
    result.messages.iter().flat_map(message_lines).collect()
}

fn message_lines(message: &TeamMessageView) -> Vec<String> {
    let mark = if message.read { ' ' } else { '*' };
    let head = format!("{mark} {} {}", message.timestamp, message.from);
    match &message.description {
        Some(description) => vec![format!("{head} {description}")],
        None => {
            let summary = message
                .summary
                .as_deref()
                .map(|s| format!(": {s}"))
                .unwrap_or_default();
            std::iter::once(format!("{head}{summary}"))
                .chain(message.text.lines().map(|l| format!("    {l}")))
                .collect()
        }
    }
}

/// `teams bridge`: one pass with `--once`, else pass after pass until killed.
fn bridge(
    global: &Global,
    claude_dir: &std::path::Path,
    team: &str,
    mailbox: Option<&str>,
    once: bool,
    interval_ms: u64,
) -> anyhow::Result<Outcome> {
    let mailroom = super::mailroom(global)?;
    let agent = match mailbox {
        Some(id) => filebox_core::AgentId::new(id)?,
        None => mailroom.me().clone(),
    };
    let bridge = Bridge::new(mailroom.config(), claude_dir, team, &agent)?;
    if once {
        let report = bridge.pass()?;
        print_pass(global.json, &report)?;
        return Ok(if report.problems.is_empty() {
            Outcome::Success
        } else {
            Outcome::Partial
        });
    }
    eprintln!(
        "filebox: bridging team {} ({}) with {agent}; stop with Ctrl-C",
        team,
        bridge.team().inbox_dir.display()
    );
    // Only a failure to print (standard output closed) stops it.
    let failure = std::cell::RefCell::new(None);
    bridge.run(
        std::time::Duration::from_millis(interval_ms),
        &|| failure.borrow().is_some(),
        &mut |pass| match pass {
            Ok(report) => {
                if let Err(e) = print_pass(global.json, &report) {
                    *failure.borrow_mut() = Some(e);
                }
            }
            Err(e) => output::warn(format!("bridge pass failed (tried again): {e}")),
        },
    );
    Err(failure
        .into_inner()
        .unwrap_or_else(|| anyhow::anyhow!("the bridge stopped")))
}

/// Text: a line per message carried, problems on stderr. JSON: the report (with `--once`), or
/// one line per pass that did something.
fn print_pass(json: bool, report: &PassReport) -> anyhow::Result<()> {
    for problem in &report.problems {
        output::warn(problem);
    }
    let idle = report.carried.is_empty() && report.members_added.is_empty();
    if json {
        if !idle {
            output::lines([serde_json::to_string(report)?])?;
        }
        return Ok(());
    }
    let added = report
        .members_added
        .iter()
        .map(|m| format!("added {m} to the config"));
    let carried = report.carried.iter().map(|c| {
        format!(
            "{} {} → {}: {} ({})",
            c.direction, c.from, c.to, c.title, c.id
        )
    });
    output::lines(added.chain(carried))
}
