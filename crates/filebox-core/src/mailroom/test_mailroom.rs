//! A test fixture shared by the core's unit tests: agents `dev` and `qa` under a folder.

use crate::{AgentEntry, AgentId, Config, Mailroom};

/// The mailroom of `dev` and `qa` in `dir` (their config made on first use), acting as `me`.
pub(crate) fn dev_and_qa_as(dir: &std::path::Path, me: &str) -> Mailroom {
    let path = dir.join(".filebox/config.json");
    let config = Config::update(&path, |file| {
        for id in ["dev", "qa"] {
            file.agents.insert(
                AgentId::new(id)?,
                AgentEntry::new(dir.join("mailboxes").join(id)),
            );
        }
        Ok(())
    })
    .unwrap();
    Mailroom::new(config, Some(&AgentId::new(me).unwrap())).unwrap()
}
