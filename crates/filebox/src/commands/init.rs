//! `filebox init`: create or extend a config and an agent's mailbox.

use filebox_core::config::{self, FILE_NAME, PROJECT_DIR};
use filebox_core::{AgentEntry, Config, Mailroom};

use super::{agent_override, cwd};
use crate::cli::{Global, InitArgs};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &InitArgs) -> anyhow::Result<Outcome> {
    let cwd = cwd()?;
    let agent = agent_override(global)?
        .ok_or_else(|| anyhow::anyhow!("name the agent to create: filebox init --agent ID"))?;
    // An explicit config, else the project's nearest one, else a new one here; init never
    // writes the user-wide config unless asked to with --config.
    let path = global
        .config
        .clone()
        .or_else(|| Config::locate_project(&cwd))
        .unwrap_or_else(|| cwd.join(PROJECT_DIR).join(FILE_NAME));
    let path = config::absolute(&path, &cwd);
    let mailbox = config::absolute(
        &args
            .mailbox
            .clone()
            .unwrap_or_else(|| format!("mailboxes/{agent}").into()),
        &cwd,
    );
    let config = Config::update(&path, |file| {
        file.agents
            .entry(agent.clone())
            .and_modify(|entry| entry.mailbox_path = mailbox.clone())
            .or_insert_with(|| AgentEntry {
                mailbox_path: mailbox.clone(),
                kind: None,
                extra: Default::default(),
            });
        file.current_agent_id.get_or_insert_with(|| agent.clone());
        Ok(())
    })?;
    let mailroom = Mailroom::new(config, Some(&agent))?;
    let opened = mailroom.my_mailbox()?;
    let report = serde_json::json!({
        "config": path.display().to_string(),
        "agent": agent.to_string(),
        "mailbox": opened.root().display().to_string(),
    });
    output::either(global.json, &report, |_| {
        vec![format!(
            "agent {agent} has its mailbox at {} (config {})",
            opened.root().display(),
            path.display()
        )]
    })?;
    Ok(Outcome::Success)
}
