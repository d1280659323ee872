//! `filebox agents` (the `list_agents` verb) and `filebox agents add`.

use filebox_api::AgentAdded;
use filebox_api::verbs::ListAgents;
use filebox_core::{AgentId, Config, Mailbox, config};

use super::{cwd, run_verb};
use crate::cli::{AgentsAction, AgentsArgs, Global};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &AgentsArgs) -> anyhow::Result<Outcome> {
    match &args.action {
        None => run_verb::<ListAgents>(global, filebox_api::ListAgentsArgs {}),
        Some(AgentsAction::Add { id, mailbox }) => add(global, id, mailbox),
        Some(AgentsAction::Token { id }) => token(global, id),
    }
}

/// Add an agent, or point an existing one at another mailbox (its other settings stay), and
/// create the mailbox's folders.
fn add(global: &Global, id: &str, mailbox: &std::path::Path) -> anyhow::Result<Outcome> {
    let cwd = cwd()?;
    let id = AgentId::new(id)?;
    let path =
        Config::locate(global.config.as_deref(), &cwd).ok_or(filebox_core::Error::NoConfig)?;
    let mailbox = config::absolute(mailbox, &cwd);
    let config = Config::update(&path, |file| {
        file.set_mailbox(&id, mailbox.clone());
        Ok(())
    })?;
    Mailbox::open(id.clone(), config.mailbox_path(&id)?)?;
    let added = AgentAdded {
        agent: id.to_string(),
        mailbox: mailbox.display().to_string(),
    };
    output::either(global.json, &added, |added| {
        vec![format!(
            "added agent {} with mailbox {}",
            added.agent, added.mailbox
        )]
    })?;
    Ok(Outcome::Success)
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
