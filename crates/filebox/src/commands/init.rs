//! `filebox init`: create or extend a config with an agent's mailbox, a person's, or both.

use std::path::PathBuf;

use filebox_api::InitResult;
use filebox_core::config::{self, FILE_NAME, PROJECT_DIR};
use filebox_core::{AgentId, AgentKind, Config, Mailbox};

use super::acting::{agent_override, cwd};
use super::agents::default_mailbox;
use crate::cli::{Global, InitArgs};
use crate::output::{self, Outcome};

/// One mailbox `init` writes into the config.
struct Entry {
    id: AgentId,
    mailbox: PathBuf,
    kind: AgentKind,
}

pub(crate) fn run(global: &Global, args: &InitArgs) -> anyhow::Result<Outcome> {
    let cwd = cwd()?;
    let agent = agent_override(global)?;
    let human = args.human.as_deref().map(AgentId::new).transpose()?;
    // --mailbox is the agent's, or the person's when there is no agent.
    let mut entries = Vec::new();
    if let Some(id) = agent {
        let mailbox = args.mailbox.clone().unwrap_or_else(|| default_mailbox(&id));
        entries.push(Entry {
            id,
            mailbox,
            kind: AgentKind::Agent,
        });
    }
    if let Some(id) = human {
        let given = args.mailbox.clone().filter(|_| entries.is_empty());
        let mailbox = given.unwrap_or_else(|| default_mailbox(&id));
        entries.push(Entry {
            id,
            mailbox,
            kind: AgentKind::Human,
        });
    }
    let Some(first) = entries.first().map(|entry| entry.id.clone()) else {
        anyhow::bail!(
            "name the agent to create: filebox init --agent ID (or --human NAME for a person)"
        );
    };
    // An explicit config, else the project's nearest one, else a new one here; init never
    // writes the user-wide config unless asked to with --config.
    let path = global
        .config
        .clone()
        .or_else(|| Config::locate_project(&cwd))
        .unwrap_or_else(|| cwd.join(PROJECT_DIR).join(FILE_NAME));
    let path = config::absolute(&path, &cwd);
    let config = Config::update(&path, |file| {
        for entry in &entries {
            file.set_mailbox(&entry.id, config::absolute(&entry.mailbox, &cwd));
            if entry.kind == AgentKind::Human
                && let Some(written) = file.agents.get_mut(&entry.id)
            {
                written.kind = Some(AgentKind::Human);
            }
        }
        file.current_agent_id.get_or_insert_with(|| first.clone());
        Ok(())
    })?;
    let mut reports = Vec::new();
    for entry in &entries {
        let opened = Mailbox::open(entry.id.clone(), config.mailbox_path(&entry.id)?)?;
        reports.push(InitResult {
            config: path.display().to_string(),
            agent: entry.id.to_string(),
            mailbox: opened.root().display().to_string(),
        });
    }
    // --json: the first mailbox created (the agent's when there is one), as before --human.
    output::either(global.json, &reports[0], |_| {
        entries
            .iter()
            .zip(&reports)
            .map(|(entry, report)| {
                format!(
                    "{} {} has its mailbox at {} (config {})",
                    entry.kind, report.agent, report.mailbox, report.config
                )
            })
            .collect()
    })?;
    Ok(Outcome::Success)
}
