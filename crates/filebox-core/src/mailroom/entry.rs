//! `Mailroom`: the config plus the current agent and its reach, the entry point every adapter
//! uses. It opens mailboxes and resolves recipients; the verbs are its methods too, each in
//! the wing that does the work (`crate::mail`, `crate::human`, `crate::feed`, `crate::index`).

use std::collections::BTreeSet;
use std::path::PathBuf;

use crate::agent::AgentId;
use crate::error::{Error, Result};
use crate::mailbox::Mailbox;
use crate::mailroom::config::{AgentEntry, Config};

/// A mailbox of the config that could not be read; a verb that looks at many mailboxes goes on
/// without it and reports it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Unusable {
    pub agent: AgentId,
    pub reason: String,
}

impl Unusable {
    pub fn new(agent: &AgentId, error: &Error) -> Unusable {
        Unusable {
            agent: agent.clone(),
            reason: error.to_string(),
        }
    }
}

/// Which mailboxes besides my own a mailroom may look into and change: every one for the owner
/// of the files (a command, the hub's own tasks), fewer for a caller an access policy bounds
/// (a hub request, an MCP session of an agent with a token). The policy lives in the adapters'
/// `filebox_api::access`; the core only keeps to the set it is given wherever it reads or
/// changes other mailboxes (threads, search, forks, agent counts). Delivering mail into a
/// recipient's inbox, and a sender following its own message's copies (`status`, a question's
/// answer), are not bounded by it: they are the message's own path.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Reach {
    #[default]
    Everywhere,
    /// These mailboxes (mine is always within reach).
    Only(BTreeSet<AgentId>),
}

/// Whether a mailroom may answer a relayed permission prompt, i.e. approve or deny a tool run
/// (`crate::human::permission`): yes for the owner of the files (a command the user runs); a caller an
/// access policy could not prove to be the human (`filebox_api::access`) is refused, with the
/// policy's reason. Like [`Reach`], decided in the adapters and kept to by the core.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub enum Approvals {
    #[default]
    Allowed,
    /// Refused, saying what would prove the caller.
    Refused(String),
}

/// Who I am, where everyone's mailbox is, which of them I may look into, and whether I may
/// answer a permission prompt.
#[derive(Debug, Clone)]
pub struct Mailroom {
    config: Config,
    me: AgentId,
    reach: Reach,
    approvals: Approvals,
}

impl Mailroom {
    /// Bind a config to the current agent (`override_id`, else the config's `current_agent_id`),
    /// reaching every mailbox.
    pub fn new(config: Config, override_id: Option<&AgentId>) -> Result<Mailroom> {
        let me = config.current_agent(override_id)?;
        Ok(Mailroom {
            config,
            me,
            reach: Reach::Everywhere,
            approvals: Approvals::Allowed,
        })
    }

    /// The same mailroom, bounded to `reach`.
    pub fn within(self, reach: Reach) -> Mailroom {
        Mailroom { reach, ..self }
    }

    /// The same mailroom, answering permission prompts as `approvals` says.
    pub fn approving(self, approvals: Approvals) -> Mailroom {
        Mailroom { approvals, ..self }
    }

    /// Whether I may answer a permission prompt.
    pub fn approvals(&self) -> &Approvals {
        &self.approvals
    }

    /// The same agent and reach over a newer config.
    pub(crate) fn rebound(&self, config: Config) -> Mailroom {
        Mailroom {
            config,
            ..self.clone()
        }
    }

    pub fn me(&self) -> &AgentId {
        &self.me
    }

    pub fn reach(&self) -> &Reach {
        &self.reach
    }

    /// Whether `agent`'s mailbox is within my reach.
    pub fn reaches(&self, agent: &AgentId) -> bool {
        *agent == self.me
            || match &self.reach {
                Reach::Everywhere => true,
                Reach::Only(agents) => agents.contains(agent),
            }
    }

    /// The agents of the config whose mailboxes are within my reach.
    pub fn reachable(&self) -> impl Iterator<Item = &AgentId> {
        self.agents().filter(|agent| self.reaches(agent))
    }

    pub fn config(&self) -> &Config {
        &self.config
    }

    /// My mailbox.
    pub fn my_mailbox(&self) -> Result<Mailbox> {
        self.mailbox(&self.me)
    }

    /// Any configured agent's mailbox, opened to write (folders created, `tmp/` recovered).
    pub fn mailbox(&self, agent: &AgentId) -> Result<Mailbox> {
        Mailbox::open(agent.clone(), self.mailbox_root(agent)?)
    }

    /// Any configured agent's mailbox, opened to read: nothing created, nothing recovered.
    pub fn mailbox_to_read(&self, agent: &AgentId) -> Result<Mailbox> {
        self.config.mailbox_to_read(agent)
    }

    pub fn mailbox_root(&self, agent: &AgentId) -> Result<PathBuf> {
        self.config.mailbox_path(agent)
    }

    /// Every agent in the config (recipients; what may be looked into is [`Mailroom::reachable`]).
    pub fn agents(&self) -> impl Iterator<Item = &AgentId> {
        self.config.file.agents.keys()
    }

    /// Whether `agent` lives elsewhere, on another machine's hub (`name@hub`) or as a remote
    /// A2A agent: its mailbox here is a stand-in whose inbox is the outgoing spool.
    pub fn is_remote(&self, agent: &AgentId) -> bool {
        self.config()
            .agent(agent)
            .is_ok_and(AgentEntry::is_stand_in)
    }

    /// Resolve targets: agent ids, comma lists, `@all` (everyone but me) and `@group`.
    /// The result has no duplicates and keeps the order given.
    pub fn resolve_targets<S: AsRef<str>>(&self, targets: &[S]) -> Result<Vec<AgentId>> {
        let mut resolved: Vec<AgentId> = Vec::new();
        let mut push = |id: AgentId| {
            if !resolved.contains(&id) {
                resolved.push(id);
            }
        };
        for part in targets
            .iter()
            .flat_map(|t| t.as_ref().split(','))
            .map(str::trim)
            .filter(|p| !p.is_empty())
        {
            if part == "@all" {
                self.agents()
                    .filter(|a| **a != self.me)
                    .cloned()
                    .for_each(&mut push);
            } else if let Some(group) = part.strip_prefix('@') {
                let members = self.config.file.groups.get(group).ok_or_else(|| {
                    Error::invalid("group", part, "no such group in the config's `groups`")
                })?;
                for member in members {
                    self.config.agent(member)?;
                    push(member.clone());
                }
            } else {
                let id = AgentId::new(part)?;
                self.config.agent(&id)?;
                push(id);
            }
        }
        Ok(resolved)
    }
}
