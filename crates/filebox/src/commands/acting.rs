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
    Ok(Mailroom::new(discover(global)?, agent)?)
}

/// The config every command finds (`Config::locate`), loaded.
pub(crate) fn discover(global: &Global) -> anyhow::Result<Config> {
    Ok(Config::load(&config_path(global)?)?)
}

/// Where the config every command finds is: `--config` (or `FILEBOX_CONFIG`), else the
/// nearest `.filebox/config.json` upward, else the user's; none is an error that says where
/// it looked.
pub(crate) fn config_path(global: &Global) -> anyhow::Result<PathBuf> {
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
