//! `list_agents`: who I am and whom I can write to.

use std::sync::Arc;

use filebox_api::{AgentsResult, ListAgentsArgs, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};

use super::{Effect, outcome};
use crate::blocking;

pub(super) const NAME: &str = "list_agents";

pub(super) fn definition() -> Tool {
    super::definition::<ListAgentsArgs, AgentsResult>(
        NAME,
        "List agents",
        "List the agents of the FileBox configuration (the ids send_message accepts), which one \
         you are, and how many messages each mailbox holds per folder.",
        Effect::ReadOnly,
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    _args: ListAgentsArgs,
) -> Result<CallToolResult, ErrorData> {
    let result = blocking::run(Arc::clone(mailroom), |m| verbs::agents(&m)).await;
    outcome::respond(result, render)
}

fn render(agents: &AgentsResult) -> String {
    agents
        .agents
        .iter()
        .map(|a| {
            let me = if a.current { " (you)" } else { "" };
            format!(
                "{}{me}: {} in inbox, {} on hold, {} done",
                a.id, a.counts.inbox, a.counts.hold, a.counts.done
            )
        })
        .collect::<Vec<_>>()
        .join("\n")
}
