//! `list_agents` (`filebox agents`): who I am and whom I can write to.

use filebox_core::{AgentKind, Folder, Result, Unusable};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;
use crate::verb::{Effect, Verb, VerbContext};

/// List the agents of the config with their mailboxes and message counts; `agents add` adds
/// one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct ListAgentsArgs {}

/// Message counts of one mailbox.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct FolderCounts {
    pub inbox: usize,
    pub outbox: usize,
    pub done: usize,
    pub cancel: usize,
    pub hold: usize,
}

impl FolderCounts {
    pub fn new(per_folder: &[(Folder, usize)]) -> Self {
        let mut counts = FolderCounts::default();
        for &(folder, n) in per_folder {
            *match folder {
                Folder::Inbox => &mut counts.inbox,
                Folder::Outbox => &mut counts.outbox,
                Folder::Done => &mut counts.done,
                Folder::Cancel => &mut counts.cancel,
                Folder::Hold => &mut counts.hold,
            } = n;
        }
        counts
    }
}

/// An agent of the config.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AgentInfo {
    pub id: String,
    /// An agent, or a human whose mailbox a person reads.
    pub kind: AgentKind,
    pub mailbox_path: String,
    /// Whether this is the current agent ("me").
    pub current: bool,
    /// Messages per folder; null when the mailbox is unusable (a warning says why) or not
    /// yours to look into (it has a token you did not present).
    pub counts: Option<FolderCounts>,
}

/// The result of `list_agents`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AgentsResult {
    pub me: String,
    pub agents: Vec<AgentInfo>,
}

/// Every agent of the config, its mailbox and counts.
#[derive(Debug)]
pub struct ListAgents;

impl Verb for ListAgents {
    const NAME: &'static str = "list_agents";
    const CLI: &'static str = "agents";
    const TITLE: &'static str = "List agents";
    const DESCRIPTION: &'static str = "Agents (ids to send to), which one you are, message counts.";
    const EFFECT: Effect = Effect::ReadOnly;
    type Args = ListAgentsArgs;
    type Output = AgentsResult;

    fn run(cx: &VerbContext<'_>, _args: ListAgentsArgs) -> Result<Outcome<AgentsResult>> {
        let mailroom = cx.mailroom;
        let mut agents = Vec::new();
        let mut unusable = Vec::new();
        for id in mailroom.agents() {
            let entry = mailroom.config().agent(id)?;
            let root = mailroom.mailbox_root(id)?;
            // Counted only within my reach (a mailbox out of it says nothing about its mail);
            // one unusable mailbox is a warning, the others are still counted.
            let counts = match mailroom
                .reaches(id)
                .then(|| mailroom.mailbox_to_read(id).and_then(|m| m.counts()))
            {
                Some(Ok(per_folder)) => Some(FolderCounts::new(&per_folder)),
                Some(Err(e)) => {
                    unusable.push(Unusable::new(id, &e));
                    None
                }
                None => None,
            };
            agents.push(AgentInfo {
                id: id.to_string(),
                kind: entry.kind.unwrap_or(AgentKind::Agent),
                mailbox_path: root.display().to_string(),
                current: id == mailroom.me(),
                counts,
            });
        }
        Ok(Outcome::with_warnings(
            AgentsResult {
                me: mailroom.me().to_string(),
                agents,
            },
            crate::shared::warnings::unusable_warnings(&unusable),
        ))
    }

    /// A table, one row per agent, columns aligned; `(you)` marks the agent acting, `human` a
    /// person's mailbox:
    ///
    /// ```text
    /// AGENT     KIND   INBOX  HOLD  DONE  OUTBOX  CANCEL  MAILBOX
    /// dev       agent      1     0     3       2       0  /work/dev/mailbox
    /// qa (you)  agent      0     0     0       1       0  /work/qa/mailbox
    /// ```
    fn render(agents: &AgentsResult) -> String {
        let names: Vec<String> = agents
            .agents
            .iter()
            .map(|a| {
                if a.current {
                    format!("{} (you)", a.id)
                } else {
                    a.id.clone()
                }
            })
            .collect();
        let width = names
            .iter()
            .map(|n| n.chars().count())
            .max()
            .unwrap_or(0)
            .max("AGENT".len());
        let mut rows = vec![format!(
            "{:<width$}  KIND   INBOX  HOLD  DONE  OUTBOX  CANCEL  MAILBOX",
            "AGENT"
        )];
        for (agent, name) in agents.agents.iter().zip(&names) {
            let kind = agent.kind.as_str();
            let counts = match &agent.counts {
                Some(c) => format!(
                    "{:>5}  {:>4}  {:>4}  {:>6}  {:>6}",
                    c.inbox, c.hold, c.done, c.outbox, c.cancel
                ),
                // Unusable (a warning says why), or not the caller's to look into.
                None => format!("{:<33}", "(not counted)"),
            };
            rows.push(format!(
                "{name:<width$}  {kind:<5}  {counts}  {}",
                agent.mailbox_path
            ));
        }
        rows.join("\n")
    }
}
