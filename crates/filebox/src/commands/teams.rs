//! `filebox teams ...`: Claude Code team inboxes (list, inbox, read, send).

use std::path::PathBuf;

use anyhow::Context;
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
