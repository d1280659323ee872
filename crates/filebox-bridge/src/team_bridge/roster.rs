//! The team's members as FileBox agents `member@team`, added to the config (with a mailbox
//! beside it, `bridges/TEAM/MEMBER`) so that FileBox mail can be addressed to them.
//!
//! `member@team` is the shape of a federated agent's name, `name@hub`: a team named like a
//! hub the config knows (one its agents live on, or this machine's own `federation.hub`)
//! would give whoever writes its inboxes the names of that hub's agents, and the replies to
//! them would go to the real ones. Such a team is not bridged at all ([`refusal`]).

use filebox_core::{AgentEntry, AgentId, Config, Mailbox, Mailroom};

use super::report::BridgeError;
use crate::team_inbox::{Team, names};

/// Where bridged members' mailboxes live, beside the config.
const BRIDGES_DIR: &str = "bridges";

/// A team member reachable from FileBox.
#[derive(Debug, Clone)]
pub(super) struct BridgedMember {
    pub(super) name: String,
    pub(super) agent: AgentId,
}

pub(super) struct Roster {
    pub(super) bridged: Vec<BridgedMember>,
    pub(super) added: Vec<String>,
}

/// The FileBox agent id of a team member: `member@team`, both sanitized as Claude Code
/// sanitizes inbox paths. `None` when the result is still not an agent id (a name made only
/// of punctuation).
pub fn member_agent(member: &str, team: &str) -> Option<AgentId> {
    AgentId::new(&format!(
        "{}@{}",
        names::path_component(member),
        names::path_component(team)
    ))
    .ok()
}

/// Why `team` is not bridged, when its name (as it is in its members' names) is that of a
/// hub `config` knows, compared without regard to case; `None` when it may be bridged.
pub(super) fn refusal(config: &Config, team: &Team) -> Option<String> {
    let domain = names::path_component(&team.name);
    let hub = known_hubs(config).find(|hub| hub.eq_ignore_ascii_case(&domain))?;
    Some(format!(
        "team {} is not bridged: {hub} is a federated hub in {}, and the team's members would \
         be named MEMBER@{domain} as that hub's agents are, so whoever writes the team's \
         inboxes could pass for them; give the Claude Code team another name to bridge it",
        team.name,
        config.path.display()
    ))
}

/// Every hub the config names: the ones its agents live on, and this machine's own (the
/// `federation` section's `hub`, which `filebox-federation` reads and checks).
fn known_hubs(config: &Config) -> impl Iterator<Item = &str> {
    let own = config
        .file
        .extra
        .get("federation")
        .and_then(|section| section.get("hub"))
        .and_then(serde_json::Value::as_str);
    config
        .file
        .agents
        .values()
        .filter_map(AgentEntry::hub)
        .chain(own)
}

/// Whether the bridge carries mail for `agent`: not when the config places it on another
/// machine's hub (`bob@ci-1` with `"hub": "ci-1"`), which only federation reaches, even if a
/// bridged team is named like that hub and has a member named like it.
pub(super) fn reached_by_bridge(mailroom: &Mailroom, agent: &AgentId) -> bool {
    !mailroom.is_remote(agent)
}

/// Every member but the bridge's own agent, added to `config` if missing; the config as it
/// now is.
pub(super) fn ensure(
    config: Config,
    team: &Team,
    me: &AgentId,
) -> Result<(Config, Roster), BridgeError> {
    let bridged: Vec<BridgedMember> = team
        .member_names()?
        .into_iter()
        .filter(|name| names::path_component(name) != names::path_component(me.as_str()))
        .filter_map(|name| {
            Some(BridgedMember {
                agent: member_agent(&name, &team.name)?,
                name,
            })
        })
        .collect();
    let missing: Vec<&BridgedMember> = bridged
        .iter()
        .filter(|m| config.agent(&m.agent).is_err())
        .collect();
    if missing.is_empty() {
        return Ok((
            config,
            Roster {
                bridged,
                added: Vec::new(),
            },
        ));
    }
    let folder = config
        .config_dir()
        .join(BRIDGES_DIR)
        .join(names::path_component(&team.name));
    let config = Config::update(&config.path, |file| {
        for member in &missing {
            file.agents.entry(member.agent.clone()).or_insert_with(|| {
                AgentEntry::new(folder.join(names::path_component(&member.name)))
            });
        }
        Ok(())
    })?;
    for member in &missing {
        Mailbox::open(member.agent.clone(), config.mailbox_path(&member.agent)?)?;
    }
    let added = missing.iter().map(|m| m.agent.to_string()).collect();
    Ok((config, Roster { bridged, added }))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team_inbox::Teams;

    #[test]
    fn a_team_is_refused_when_named_like_a_known_hub_in_any_case() {
        let mut config = Config {
            path: "/config.json".into(),
            file: Default::default(),
        };
        let bob = AgentId::new("bob@ci-1").unwrap();
        config.file.agents.insert(bob, AgentEntry::on_hub("ci-1"));
        config.file.extra.insert(
            "federation".to_owned(),
            serde_json::json!({ "nats": "nats://127.0.0.1:4222", "hub": "laptop" }),
        );
        let teams = Teams::new(std::path::Path::new("/claude"));
        for refused in ["ci-1", "CI-1", "ci 1", "laptop"] {
            assert!(
                refusal(&config, &teams.team(refused)).is_some(),
                "{refused}"
            );
        }
        for bridged in ["ci-2", "my-team"] {
            assert_eq!(refusal(&config, &teams.team(bridged)), None, "{bridged}");
        }
    }
}
