//! `filebox agents add` (also of an agent on another hub) and `filebox agents token`
//! (`filebox agents` alone is the verb `list_agents`).

use filebox_api::AgentAdded;
use filebox_core::config::{self, HUB_FIELD};
use filebox_core::{A2aRemote, AgentId, AgentKind, Config, ConfigFile, Mailbox};

use super::acting::{config_path, cwd};
use super::config_edit::ConfigEdit;
use crate::cli::{AgentsAction, AgentsAddArgs, Global};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, action: AgentsAction) -> anyhow::Result<Outcome> {
    match action {
        AgentsAction::Add(args) => add(global, &args),
        AgentsAction::Token { id } => token(global, &id),
    }
}

/// Add an agent, or point an existing one at another mailbox, kind, hub or remote A2A agent
/// (its other settings stay), and create the mailbox's folders (for an agent elsewhere, its
/// stand-in).
fn add(global: &Global, args: &AgentsAddArgs) -> anyhow::Result<Outcome> {
    let cwd = cwd()?;
    let id = AgentId::new(&args.id)?;
    let path = config_path(global)?;
    let a2a = args.a2a.as_ref().map(|url| A2aRemote {
        url: url.clone(),
        token: args.token.clone(),
    });
    let mailbox = match (&args.hub, &a2a) {
        (Some(_), _) | (_, Some(_)) => std::path::PathBuf::new(),
        (None, None) => config::absolute(
            &args.mailbox.clone().unwrap_or_else(|| default_mailbox(&id)),
            &cwd,
        ),
    };
    let edit = ConfigEdit {
        path: &path,
        dry_run: args.dry_run,
    };
    let change = |file: &mut ConfigFile| {
        file.set_mailbox(&id, mailbox.clone());
        let entry = file
            .agents
            .get_mut(&id)
            .ok_or_else(|| filebox_core::Error::UnknownAgent(id.to_string()))?;
        match &args.hub {
            Some(hub) => entry
                .extra
                .insert(HUB_FIELD.to_owned(), hub.as_str().into()),
            None => entry.extra.remove(HUB_FIELD),
        };
        entry.set_a2a(a2a.as_ref());
        if let Some(kind) = args.kind {
            entry.kind = Some(kind);
        }
        Ok(())
    };
    let check = |_: &Config| match (&args.hub, &a2a) {
        (Some(hub), _) => filebox_federation::check_remote_agent(&id, hub),
        (None, Some(remote)) => filebox_hub::check_a2a_remote(&id, remote),
        (None, None) => Ok(()),
    };
    let Some(config) = edit.apply(change, check)? else {
        return Ok(Outcome::Success);
    };
    let opened = Mailbox::open(id.clone(), config.mailbox_path(&id)?)?;
    let human = config.agent(&id)?.kind == Some(AgentKind::Human);
    let added = AgentAdded {
        agent: id.to_string(),
        mailbox: opened.root().display().to_string(),
    };
    output::either(global.json, &added, |added| {
        let what = if human { "human" } else { "agent" };
        vec![match (&args.hub, &a2a) {
            (None, Some(remote)) => format!(
                "added {what} {} for the A2A agent at {}; mail to it waits in {} until the \
                 hub (`filebox serve`) sends it",
                added.agent, remote.url, added.mailbox
            ),
            (Some(hub), _) => format!(
                "added {what} {} on hub {hub}; mail to it waits in {} until this hub hands it \
                 to the federation",
                added.agent, added.mailbox
            ),
            (None, None) => format!(
                "added {what} {} with mailbox {}",
                added.agent, added.mailbox
            ),
        }]
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
    let path = config_path(global)?;
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
