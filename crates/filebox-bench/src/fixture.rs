//! Temp mailboxes for benchmarks (a config with agents, opened through the core) and the
//! `filebox` binary the process benchmarks run.

use std::error::Error;
use std::path::{Path, PathBuf};
use std::process::Command;

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

/// The release `filebox` binary next to this one, built first if it is not there.
pub(crate) fn filebox_binary() -> Result<PathBuf> {
    let exe = std::env::current_exe()?;
    let dir = exe.parent().ok_or("no folder for the bench binary")?;
    let filebox = dir.join("filebox");
    let profile = dir
        .file_name()
        .and_then(|n| n.to_str())
        .unwrap_or("release");
    // Rebuild every time under cargo, so the figures are for the current source.
    let cargo = std::env::var_os("CARGO").unwrap_or_else(|| "cargo".into());
    let mut build = Command::new(cargo);
    build.args(["build", "-p", "filebox", "--bin", "filebox"]);
    if profile == "release" {
        build.arg("--release");
    } else if profile != "debug" {
        build.args(["--profile", profile]);
    }
    if !build.status().is_ok_and(|s| s.success()) && !filebox.exists() {
        return Err(format!(
            "no filebox binary at {}: build it with `cargo build --release -p filebox`",
            filebox.display()
        )
        .into());
    }
    if profile != "release" {
        eprintln!("note: measuring a {profile} build; use --release for real figures");
    }
    Ok(filebox)
}

/// What a generated message of qa's to dev says of itself: the header fields `send` writes.
pub(crate) struct Generated<'a> {
    pub(crate) kind: &'a filebox_core::message::MessageType,
    pub(crate) title: &'a str,
    pub(crate) id: &'a str,
    /// The timestamp, ISO 8601.
    pub(crate) iso: &'a str,
    pub(crate) version: &'a str,
    pub(crate) owner: &'a str,
}

/// A message of qa's to dev as `send` renders it, for mailboxes generated without sending.
pub(crate) fn qa_to_dev(generated: &Generated<'_>, body: String) -> filebox_core::message::Message {
    use filebox_core::message::{Header, Message, field};
    let mut header = Header::new(generated.kind, generated.title);
    for (key, value) in [
        (field::FORMAT_VERSION, generated.version),
        (field::MESSAGE_ID, generated.id),
        (field::SENDER, "qa"),
        (field::RECEIVER, "dev"),
        (field::TIMESTAMP, generated.iso),
        (field::ORIGINAL_SENDER, "qa"),
        (field::CURRENT_OWNER, generated.owner),
    ] {
        header.set(key, value);
    }
    Message {
        header,
        body,
        conversation: Vec::new(),
        processing: Vec::new(),
    }
}
