//! `filebox agents add` and `filebox agents token` (`filebox agents` alone is the verb
//! `list_agents`).

use filebox_api::AgentAdded;
use filebox_core::{AgentId, AgentKind, Config, Mailbox, config};

use super::acting::cwd;
use crate::cli::{AgentsAction, Global};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, action: AgentsAction) -> anyhow::Result<Outcome> {
    match action {
        AgentsAction::Add { id, mailbox, kind } => add(global, &id, mailbox, kind),
        AgentsAction::Token { id } => token(global, &id),
    }
}

/// Add an agent, or point an existing one at another mailbox or kind (its other settings
/// stay), and create the mailbox's folders.
fn add(
    global: &Global,
    id: &str,
    mailbox: Option<std::path::PathBuf>,
    kind: Option<AgentKind>,
) -> anyhow::Result<Outcome> {
    let cwd = cwd()?;
    let id = AgentId::new(id)?;
    let path =
        Config::locate(global.config.as_deref(), &cwd).ok_or(filebox_core::Error::NoConfig)?;
    let mailbox = config::absolute(&mailbox.unwrap_or_else(|| default_mailbox(&id)), &cwd);
    let config = Config::update(&path, |file| {
        file.set_mailbox(&id, mailbox.clone());
        if let (Some(kind), Some(entry)) = (kind, file.agents.get_mut(&id)) {
            entry.kind = Some(kind);
        }
        Ok(())
    })?;
    Mailbox::open(id.clone(), config.mailbox_path(&id)?)?;
    let human = config.agent(&id)?.kind == Some(AgentKind::Human);
    let added = AgentAdded {
        agent: id.to_string(),
        mailbox: mailbox.display().to_string(),
    };
    output::either(global.json, &added, |added| {
        vec![format!(
            "added {} {} with mailbox {}",
            if human { "human" } else { "agent" },
            added.agent,
            added.mailbox
        )]
    })?;
    Ok(Outcome::Success)
}

/// Where a new agent's mailbox goes unless told: `./mailboxes/<ID>`.
pub(super) fn default_mailbox(id: &AgentId) -> std::path::PathBuf {
    std::path::Path::new("mailboxes").join(id.as_str())
}

/// `agents token ID`: a new token, printed once; only its SHA-256 is stored.
fn token(global: &Global, id: &str) -> anyhow::Result<Outcome> {
    let id = AgentId::new(id)?;
    let path =
        Config::locate(global.config.as_deref(), &cwd()?).ok_or(filebox_core::Error::NoConfig)?;
    let token = filebox_hub::new_token()?;
    let hash = filebox_hub::sha256_hex(&token);
    Config::update(&path, |file| {
        let entry = file
            .agents
            .get_mut(&id)
            .ok_or_else(|| filebox_core::Error::UnknownAgent(id.to_string()))?;
        entry
            .extra
            .insert(filebox_hub::TOKEN_FIELD.into(), hash.clone().into());
        Ok(())
    })?;
    let report = serde_json::json!({ "agent": id.to_string(), "token": token });
    output::either(global.json, &report, |_| vec![token.clone()])?;
    output::warn(format!(
        "this is {id}'s token for the hub (Authorization: Bearer ...); it is not shown again"
    ));
    Ok(Outcome::Success)
}
