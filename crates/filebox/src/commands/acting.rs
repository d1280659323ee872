//! Whom a command acts as: the config it finds and the agent `--agent` names, else the config's
//! current agent.

use std::path::PathBuf;

use anyhow::Context;
use filebox_core::{AgentId, Config, Mailroom};

use crate::cli::Global;

pub(crate) fn cwd() -> anyhow::Result<PathBuf> {
    std::env::current_dir().context("cannot read the current directory")
}

/// The `--agent` override, validated.
pub(crate) fn agent_override(global: &Global) -> anyhow::Result<Option<AgentId>> {
    Ok(global.agent.as_deref().map(AgentId::new).transpose()?)
}

/// The config and current agent every mailbox command works with.
pub(crate) fn mailroom(global: &Global) -> anyhow::Result<Mailroom> {
    mailroom_as(global, agent_override(global)?.as_ref())
}

/// The config, acting as `agent` (else the config's current agent).
pub(crate) fn mailroom_as(global: &Global, agent: Option<&AgentId>) -> anyhow::Result<Mailroom> {
    let config = Config::discover(global.config.as_deref(), &cwd()?)?;
    Ok(Mailroom::new(config, agent)?)
}
