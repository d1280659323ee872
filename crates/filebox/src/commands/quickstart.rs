//! `filebox quickstart`: an exchange between a QA agent and a dev agent (send, list, read,
//! reply, resolve), run for real in a throwaway folder, each step printed as the command that
//! does it.

use std::path::{Path, PathBuf};

use anyhow::Context;
use filebox_api::verbs::{ListMessages, ReadMessage, ResolveMessage, SendMessage};
use filebox_api::{ListArgs, ReadArgs, ResolveArgs, SendArgs, Verb, VerbContext};
use filebox_core::config::{FILE_NAME, PROJECT_DIR};
use filebox_core::{AgentId, Config, Folder, Mailroom, MessageType};

use crate::cli::{Global, QuickstartArgs};
use crate::output::{self, Outcome};

pub(crate) fn run(_global: &Global, args: &QuickstartArgs) -> anyhow::Result<Outcome> {
    let dir = match &args.dir {
        Some(dir) => dir.clone(),
        None => std::env::temp_dir().join(format!("filebox-quickstart-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let config_path = dir.join(PROJECT_DIR).join(FILE_NAME);
    let (qa, dev) = (AgentId::new("qa")?, AgentId::new("dev")?);
    let config = Config::update(&config_path, |file| {
        for agent in [&qa, &dev] {
            file.set_mailbox(agent, mailbox_dir(&dir, agent));
        }
        file.current_agent_id = Some(qa.clone());
        Ok(())
    })?;
    let as_qa = Mailroom::new(config.clone(), Some(&qa))?;
    let as_dev = Mailroom::new(config, Some(&dev))?;
    let step = |who: &str, command: &str| {
        output::lines([String::new(), format!("$ filebox --agent {who} {command}")])
    };

    output::lines([
        format!("FileBox quickstart in {}", dir.display()),
        format!("config: {}", config_path.display()),
    ])?;
    step(
        "qa",
        "send dev ER \"# Batch import for user management ...\"",
    )?;
    let sent = SendMessage::run(
        &VerbContext::new(&as_qa),
        SendArgs::new(
            "dev",
            MessageType::new("ER")?,
            "# Batch import for user management\n\nAdmins need to add 200 users at once. Please accept a CSV upload.\n",
        ),
    )?
    .value;
    output::lines([&sent.id])?;

    step("dev", "list inbox")?;
    list(&as_dev, Folder::Inbox)?;
    let short = &sent.id[..8];
    step("dev", &format!("read inbox {short}"))?;
    read(&as_dev, Folder::Inbox, short)?;

    step(
        "dev",
        &format!("send qa DIS \"Which columns must the CSV have?\" --reply_to {short}"),
    )?;
    reply(&as_dev, "qa", "Which columns must the CSV have?", short)?;
    step("qa", "list inbox")?;
    list(&as_qa, Folder::Inbox)?;
    step(
        "qa",
        &format!("send dev DIS \"name, email, role\" --reply_to {short}"),
    )?;
    reply(&as_qa, "dev", "name, email, role", short)?;

    step(
        "dev",
        &format!("resolved {short} \"CSV import shipped in v1.2\""),
    )?;
    let done = ResolveMessage::run(
        &VerbContext::new(&as_dev),
        ResolveArgs {
            id: short.into(),
            details: "CSV import shipped in v1.2".into(),
        },
    )?;
    output::lines([ResolveMessage::render(&done.value)])?;
    step("dev", &format!("read done {short}"))?;
    read(&as_dev, Folder::Done, short)?;
    output::lines([
        String::new(),
        format!(
            "The files are in {}; try: {} --config {} --agent dev list done",
            dir.display(),
            this_program(),
            config_path.display()
        ),
    ])?;
    Ok(Outcome::Success)
}

/// How to run this very binary again: its path (`cargo run` does not put `filebox` on PATH).
fn this_program() -> String {
    std::env::current_exe()
        .map(|path| path.display().to_string())
        .unwrap_or_else(|_| "filebox".to_owned())
}

fn mailbox_dir(dir: &Path, agent: &AgentId) -> PathBuf {
    dir.join("mailboxes").join(agent.as_str())
}

fn list(mailroom: &Mailroom, folder: Folder) -> anyhow::Result<()> {
    let listing = ListMessages::run(
        &VerbContext::new(mailroom),
        ListArgs {
            folder: Some(folder),
            ..ListArgs::default()
        },
    )?;
    output::lines([ListMessages::render(&listing.value)])
}

fn read(mailroom: &Mailroom, folder: Folder, id: &str) -> anyhow::Result<()> {
    let read = ReadMessage::run(
        &VerbContext::new(mailroom),
        ReadArgs {
            id: id.into(),
            folder: Some(folder),
        },
    )?;
    output::text(&ReadMessage::render(&read.value))
}

fn reply(mailroom: &Mailroom, to: &str, content: &str, id: &str) -> anyhow::Result<()> {
    let mut args = SendArgs::new(to, MessageType::new("DIS")?, content);
    args.reply_to = Some(id.into());
    let sent = SendMessage::run(&VerbContext::new(mailroom), args)?;
    output::lines([SendMessage::brief(&sent.value)])
}
