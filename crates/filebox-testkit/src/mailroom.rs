//! A config naming test mailboxes, and a mailroom acting in it.

use std::path::Path;

use filebox_core::{AgentEntry, AgentId, Config, Mailbox, Mailroom};

/// Write the config at `path` naming `agents`, each `(id, kind)` with kind `agent` or `human`,
/// with its mailbox at `mailboxes/<id>` (made, folders and all); the first is the current
/// agent. Returns the config as written.
pub fn write_config(path: &Path, mailboxes: &Path, agents: &[(&str, &str)]) -> Config {
    let config = Config::update(path, |file| {
        for (id, kind) in agents {
            file.agents.insert(
                AgentId::new(id)?,
                AgentEntry {
                    mailbox_path: mailboxes.join(id),
                    kind: Some(kind.parse().expect("a kind: agent or human")),
                    extra: Default::default(),
                },
            );
        }
        if let Some((first, _)) = agents.first() {
            file.current_agent_id = Some(AgentId::new(first)?);
        }
        Ok(())
    })
    .expect("the test config is written");
    for id in config.file.agents.keys() {
        let path = config.mailbox_path(id).expect("a mailbox path");
        Mailbox::open(id.clone(), path).expect("the test mailbox opens");
    }
    config
}

/// A config at `dir/config.json` naming `agents` (as [`write_config`]) with mailboxes
/// `dir/<id>`, acting as `me`.
pub fn mailroom(dir: &Path, agents: &[(&str, &str)], me: &str) -> Mailroom {
    let config = write_config(&dir.join("config.json"), dir, agents);
    Mailroom::new(config, Some(&AgentId::new(me).expect("an agent id")))
        .expect("the test mailroom opens")
}
