//! `list_agents`: who I am and whom I can write to.

use filebox_core::{AgentKind, Result, Unusable};

use crate::args::ListAgentsArgs;
use crate::outcome::Outcome;
use crate::render;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::{AgentInfo, AgentsResult, FolderCounts};

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

    fn render(agents: &AgentsResult) -> String {
        render::agents(agents)
    }
}
