//! `filebox init`: create or extend a config and an agent's mailbox.

use filebox_api::InitResult;
use filebox_core::config::{self, FILE_NAME, PROJECT_DIR};
use filebox_core::{Config, Mailroom};

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
        file.set_mailbox(&agent, mailbox.clone());
        file.current_agent_id.get_or_insert_with(|| agent.clone());
        Ok(())
    })?;
    let mailroom = Mailroom::new(config, Some(&agent))?;
    let opened = mailroom.my_mailbox()?;
    let report = InitResult {
        config: path.display().to_string(),
        agent: agent.to_string(),
        mailbox: opened.root().display().to_string(),
    };
    output::either(global.json, &report, |r| {
        vec![format!(
            "agent {} has its mailbox at {} (config {})",
            r.agent, r.mailbox, r.config
        )]
    })?;
    Ok(Outcome::Success)
}
