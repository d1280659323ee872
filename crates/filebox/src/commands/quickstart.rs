//! `filebox quickstart`: seed 000 §3.7's exchange between a QA agent and a dev agent, run for
//! real in a throwaway folder, each step printed as the command that does it.

use std::path::{Path, PathBuf};

use anyhow::Context;
use filebox_api::{FolderName, ListArgs, ReadArgs, Recipients, SendArgs, verbs};
use filebox_core::config::{FILE_NAME, PROJECT_DIR};
use filebox_core::{AgentEntry, AgentId, Config, Mailroom, Transition};

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
            file.agents.insert(
                agent.clone(),
                AgentEntry {
                    mailbox_path: mailbox_dir(&dir, agent),
                    kind: None,
                    extra: Default::default(),
                },
            );
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
    let sent = verbs::send(
        &as_qa,
        &SendArgs {
            to: Recipients::One("dev".into()),
            cc: None,
            kind: "ER".into(),
            title: None,
            content: "# Batch import for user management\n\nAdmins need to add 200 users at once. Please accept a CSV upload.\n".into(),
            reply_to: None,
            priority: None,
            source_type: None,
            reply_to_agent: None,
        },
    )?;
    output::lines([&sent.id])?;

    step("dev", "list inbox")?;
    list(&as_dev, FolderName::Inbox)?;
    let short = &sent.id[..8];
    step("dev", &format!("read inbox {short}"))?;
    output::text(
        &verbs::read(
            &as_dev,
            &ReadArgs {
                id: short.into(),
                folder: Some(FolderName::Inbox),
            },
        )?
        .markdown,
    )?;

    step(
        "dev",
        &format!("send qa DIS \"Which columns must the CSV have?\" --reply_to {short}"),
    )?;
    reply(&as_dev, "qa", "Which columns must the CSV have?", short)?;
    step("qa", "list inbox")?;
    list(&as_qa, FolderName::Inbox)?;
    step(
        "qa",
        &format!("send dev DIS \"name, email, role\" --reply_to {short}"),
    )?;
    reply(&as_qa, "dev", "name, email, role", short)?;

    step(
        "dev",
        &format!("resolved {short} \"CSV import shipped in v1.2\""),
    )?;
    let done = verbs::transition(
        &as_dev,
        Transition::Resolve,
        short,
        "CSV import shipped in v1.2",
    )?;
    output::lines([format!("{} -> {}/{}", done.id, done.folder, done.file)])?;
    step("dev", &format!("read done {short}"))?;
    output::text(
        &verbs::read(
            &as_dev,
            &ReadArgs {
                id: short.into(),
                folder: Some(FolderName::Done),
            },
        )?
        .markdown,
    )?;
    output::lines([
        String::new(),
        format!(
            "The files are in {}; try: filebox --config {} --agent dev list done",
            dir.display(),
            config_path.display()
        ),
    ])?;
    Ok(Outcome::Success)
}

fn mailbox_dir(dir: &Path, agent: &AgentId) -> PathBuf {
    dir.join("mailboxes").join(agent.as_str())
}

fn list(mailroom: &Mailroom, folder: FolderName) -> anyhow::Result<()> {
    let listing = verbs::list(
        mailroom,
        &ListArgs {
            folder: Some(folder),
            ..ListArgs::default()
        },
    )?;
    output::lines(listing.messages.iter().map(|m| &m.line))
}

fn reply(mailroom: &Mailroom, to: &str, content: &str, id: &str) -> anyhow::Result<()> {
    let result = verbs::send(
        mailroom,
        &SendArgs {
            to: Recipients::One(to.into()),
            cc: None,
            kind: "DIS".into(),
            title: None,
            content: content.into(),
            reply_to: Some(id.into()),
            priority: None,
            source_type: None,
            reply_to_agent: None,
        },
    )?;
    output::lines([format!(
        "{} -> {}",
        result.id,
        result.delivered_to.join(", ")
    )])
}
