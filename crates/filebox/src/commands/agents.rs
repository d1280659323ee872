//! `filebox agents` and `filebox agents add`.

use filebox_api::verbs;
use filebox_core::{AgentEntry, AgentId, Config, config};

use super::{cwd, mailroom};
use crate::cli::{AgentsAction, AgentsArgs, Global};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &AgentsArgs) -> anyhow::Result<Outcome> {
    match &args.action {
        None => {
            let result = verbs::agents(&mailroom(global)?)?;
            output::either(global.json, &result, |result| {
                result
                    .agents
                    .iter()
                    .map(|a| {
                        let c = &a.counts;
                        let marker = if a.current { "*" } else { " " };
                        match &a.problem {
                            Some(_) => format!("{marker} {}  {}  unusable", a.id, a.mailbox_path),
                            None => format!(
                                "{marker} {}  {}  inbox {} outbox {} done {} cancel {} hold {}",
                                a.id, a.mailbox_path, c.inbox, c.outbox, c.done, c.cancel, c.hold
                            ),
                        }
                    })
                    .collect()
            })?;
            let problems: Vec<_> = result
                .agents
                .iter()
                .filter_map(|a| Some((&a.id, a.problem.as_ref()?)))
                .collect();
            for (id, problem) in &problems {
                output::warn(format!("the mailbox of {id} is unusable: {problem}"));
            }
            if !problems.is_empty() {
                return Ok(Outcome::Partial);
            }
        }
        Some(AgentsAction::Add { id, mailbox }) => {
            let cwd = cwd()?;
            let id = AgentId::new(id)?;
            let path = Config::locate(global.config.as_deref(), &cwd)
                .ok_or(filebox_core::Error::NoConfig)?;
            let mailbox = config::absolute(mailbox, &cwd);
            let config = Config::update(&path, |file| {
                file.agents.insert(
                    id.clone(),
                    AgentEntry {
                        mailbox_path: mailbox.clone(),
                        kind: None,
                        extra: Default::default(),
                    },
                );
                Ok(())
            })?;
            filebox_core::Mailbox::open(id.clone(), config.mailbox_path(&id)?)?;
            let report = serde_json::json!({ "agent": id.to_string(), "mailbox": mailbox.display().to_string() });
            output::either(global.json, &report, |_| {
                vec![format!(
                    "added agent {id} with mailbox {}",
                    mailbox.display()
                )]
            })?;
        }
    }
    Ok(Outcome::Success)
}
