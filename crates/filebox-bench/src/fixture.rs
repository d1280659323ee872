//! Temp mailboxes for benchmarks: a config with agents, opened through the core.

use std::error::Error;
use std::path::{Path, PathBuf};

use filebox_core::{AgentId, Config, Mailroom};

pub(crate) type Result<T> = std::result::Result<T, Box<dyn Error>>;

/// A temp dir holding `config.json` and `mailboxes/<agent>/`; removed on drop.
pub(crate) struct Fixture {
    dir: tempfile::TempDir,
}

impl Fixture {
    pub(crate) fn new(base: Option<&Path>, agents: &[String]) -> Result<Fixture> {
        let mut builder = tempfile::Builder::new();
        builder.prefix("filebox-bench-");
        let dir = match base {
            Some(base) => builder.tempdir_in(base)?,
            None => builder.tempdir()?,
        };
        let entries: serde_json::Map<String, serde_json::Value> = agents
            .iter()
            .map(|a| {
                (
                    a.clone(),
                    serde_json::json!({ "mailbox_path": format!("mailboxes/{a}") }),
                )
            })
            .collect();
        let config = serde_json::json!({ "current_agent_id": agents[0], "agents": entries });
        std::fs::write(dir.path().join("config.json"), config.to_string())?;
        let fixture = Fixture { dir };
        // Open every mailbox once, so the folders exist.
        for agent in agents {
            let mailroom = fixture.mailroom(agent)?;
            mailroom.my_mailbox()?;
        }
        Ok(fixture)
    }

    pub(crate) fn config(&self) -> PathBuf {
        self.dir.path().join("config.json")
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    pub(crate) fn folder(&self, agent: &str, folder: &str) -> PathBuf {
        self.dir.path().join("mailboxes").join(agent).join(folder)
    }

    pub(crate) fn mailroom(&self, agent: &str) -> Result<Mailroom> {
        mailroom(&self.config(), agent)
    }
}

/// The mailroom of `agent` under the config at `config`.
pub(crate) fn mailroom(config: &Path, agent: &str) -> Result<Mailroom> {
    let config = Config::load(config)?;
    Ok(Mailroom::new(config, Some(&AgentId::new(agent)?))?)
}
