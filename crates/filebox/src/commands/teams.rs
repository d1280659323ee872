//! `filebox teams bridge`: the live bridge of a Claude Code team and FileBox. The other
//! `teams` subcommands are the verb table's team verbs (`list_teams`, `team_inbox`,
//! `read_team_inbox`, `send_team_message`), run without a FileBox config.

use std::path::PathBuf;

use anyhow::Context;
use filebox_bridge::team_bridge::{Bridge, PassReport};
use filebox_bridge::team_inbox::names;

use crate::cli::{Global, TeamsAction};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, action: TeamsAction) -> anyhow::Result<Outcome> {
    match action {
        TeamsAction::Bridge {
            team,
            mailbox,
            once,
            interval_ms,
            claude_dir: dir,
        } => {
            let claude_dir = claude_dir(dir.as_deref())?;
            bridge(
                global,
                &claude_dir,
                team.as_deref(),
                mailbox.as_deref(),
                once,
                interval_ms,
            )
        }
    }
}

/// `--claude-dir`, else `CLAUDE_CONFIG_DIR`, else `~/.claude`.
pub(crate) fn claude_dir(explicit: Option<&std::path::Path>) -> anyhow::Result<PathBuf> {
    names::claude_dir(explicit)
        .context("no Claude config folder: pass --claude-dir DIR or set CLAUDE_CONFIG_DIR")
}

/// `teams bridge`: one pass with `--once`, else pass after pass until killed.
fn bridge(
    global: &Global,
    claude_dir: &std::path::Path,
    team: Option<&str>,
    mailbox: Option<&str>,
    once: bool,
    interval_ms: u64,
) -> anyhow::Result<Outcome> {
    let mailroom = super::acting::mailroom(global)?;
    let agent = match mailbox {
        Some(id) => filebox_core::AgentId::new(id)?,
        None => mailroom.me().clone(),
    };
    let mut bridge = Bridge::new(mailroom.config(), claude_dir, team, &agent)?;
    if once {
        let report = bridge.pass()?;
        print_pass(global.json, &report)?;
        return Ok(if report.problems.is_empty() && report.refused.is_empty() {
            Outcome::Success
        } else {
            Outcome::Partial
        });
    }
    eprintln!(
        "filebox: bridging team {} ({}) with {agent}{}; stop with Ctrl-C",
        bridge.team().name,
        bridge.team().inbox_dir.display(),
        match team {
            Some(_) => "",
            None => ", following the team Claude Code picks",
        }
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

/// Text: a line per message carried, problems and refused team files on stderr. JSON: the
/// report (with `--once`), or one line per pass that did something or refused a file.
fn print_pass(json: bool, report: &PassReport) -> anyhow::Result<()> {
    for problem in report.problems.iter().chain(&report.refused) {
        output::warn(problem);
    }
    let idle = report.carried.is_empty()
        && report.members_added.is_empty()
        && report.notices.is_empty()
        && report.refused.is_empty();
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
    output::lines(report.notices.iter().cloned().chain(added).chain(carried))
}
