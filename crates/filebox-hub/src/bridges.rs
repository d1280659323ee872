//! The Claude Code team bridges the config names, run while the hub serves:
//! `"bridges": [{"claude_team": "my-team", "mailbox": "alice", "claude_dir": "/home/u/.claude"}]`
//! (`claude_team` defaults to the team Claude Code picks when none is named: the hub's
//! `CLAUDE_CODE_TEAM_NAME`, else its session's team while it exists, else `default`, looked at
//! again before every pass, so the bridge follows that choice as it changes; `mailbox` to the current
//! agent, `claude_dir` to `CLAUDE_CONFIG_DIR`, else `~/.claude`). Each bridge runs pass after pass on a blocking thread until the hub stops;
//! a failed pass is reported on stderr and tried again (a team that does not exist yet is
//! waited for), and a bridge whose thread ends abnormally is started again (`tasks.rs`).
//! A pass that failed or refused a team file (a link, a FIFO, a device, one too large), or the
//! team itself (named like a federated hub), makes the bridge degraded in `/healthz` until a
//! pass is clean again; a refusal is logged when it starts and when it ends, not every second.

use std::path::PathBuf;

use anyhow::Context;
use filebox_bridge::team_bridge::{Bridge, POLL_INTERVAL};
use filebox_bridge::team_inbox::names;
use filebox_core::{AgentId, Config};
use serde::Deserialize;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::hub::Hub;
use crate::task_states::Run;
use crate::tasks::{self, keep_running};

/// One entry of the config's `bridges`.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub(crate) struct BridgeSetting {
    #[serde(default)]
    claude_team: Option<String>,
    #[serde(default)]
    mailbox: Option<String>,
    #[serde(default)]
    claude_dir: Option<PathBuf>,
}

/// A bridge ready to start: its agent and Claude folder resolved; its team as configured
/// (`None`: the one Claude Code picks, followed pass by pass).
#[derive(Debug, Clone)]
pub(crate) struct Planned {
    team: Option<String>,
    agent: AgentId,
    claude_dir: PathBuf,
}

/// Read and check the config's `bridges` (a malformed entry is a config error, so the hub
/// refuses to start rather than silently not bridging).
pub(crate) fn plan(config: &Config) -> anyhow::Result<Vec<Planned>> {
    let Some(value) = config.file.extra.get("bridges") else {
        return Ok(Vec::new());
    };
    let context = || format!("config {}: the \"bridges\" section", config.path.display());
    let settings: Vec<BridgeSetting> =
        serde_json::from_value(value.clone()).with_context(context)?;
    settings
        .into_iter()
        .map(|setting| {
            let agent = match &setting.mailbox {
                Some(id) => AgentId::new(id)?,
                None => config.current_agent(None)?,
            };
            config.agent(&agent).with_context(context)?;
            let claude_dir = names::claude_dir(setting.claude_dir.as_deref())
                .context("no Claude config folder: set claude_dir or CLAUDE_CONFIG_DIR")
                .with_context(context)?;
            let claude_dir = config.base_dir().join(claude_dir);
            Ok(Planned {
                team: setting.claude_team,
                agent,
                claude_dir,
            })
        })
        .collect()
}

/// Start every planned bridge; they stop when the hub does.
pub(crate) fn start(hub: &Hub, config: &Config, planned: Vec<Planned>) -> Vec<JoinHandle<()>> {
    planned
        .into_iter()
        .map(|plan| {
            let (hub, config) = (hub.clone(), config.clone());
            let team = plan.team.as_deref().unwrap_or("(Claude Code's choice)");
            let label = format!("bridge {team} ↔ {}", plan.agent);
            tokio::spawn(keep_running(hub.clone(), label.clone(), move |run| {
                let (config, plan, label, stop) =
                    (config.clone(), plan.clone(), label.clone(), hub.sessions());
                tasks::blocking(move || {
                    bridge(&config, &plan, &label, &stop, &run);
                    Ok(())
                })
            }))
        })
        .collect()
}

/// Log the team files (or the team) refused now that were not before, and when none is
/// refused any more. Each refusal says what is left unbridged.
fn report_refused(label: &str, before: &[String], now: &[String]) {
    for refusal in now.iter().filter(|r| !before.contains(r)) {
        tracing::warn!("{label}: {refusal}; looked at again every pass");
    }
    if now.is_empty() && !before.is_empty() {
        tracing::info!("{label}: no team file is refused any more");
    }
}

fn bridge(config: &Config, plan: &Planned, label: &str, stop: &CancellationToken, run: &Run) {
    let mut waiting_reported = false;
    while !stop.is_cancelled() {
        match Bridge::new(config, &plan.claude_dir, plan.team.as_deref(), &plan.agent) {
            Ok(mut bridge) => {
                tracing::info!("{label} started on team {}", bridge.team().name);
                run.up();
                let mut refused = Vec::new();
                bridge.run(
                    POLL_INTERVAL,
                    &|| stop.is_cancelled(),
                    &mut |pass| match pass {
                        Ok(report) => {
                            for notice in report.notices {
                                tracing::info!("{label}: {notice}");
                            }
                            for problem in report.problems {
                                tracing::warn!("{label}: {problem}");
                            }
                            report_refused(label, &refused, &report.refused);
                            match report.refused.is_empty() {
                                true => run.up(),
                                false => run.degraded(report.refused.join("; ")),
                            }
                            refused = report.refused;
                        }
                        Err(e) => {
                            tracing::warn!("{label}: pass failed (tried again): {e}");
                            run.degraded(format!("its last pass failed (tried again): {e}"));
                        }
                    },
                );
                return;
            }
            Err(e) => {
                if !waiting_reported {
                    tracing::info!("{label} waits: {e}");
                    waiting_reported = true;
                }
                std::thread::sleep(POLL_INTERVAL);
            }
        }
    }
}
