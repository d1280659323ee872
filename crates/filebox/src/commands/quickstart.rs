//! `filebox quickstart`: an exchange between a QA agent and a dev agent (send, list, read,
//! reply, resolve) in a throwaway folder, each step printed as the command line that does it
//! and run as that very command line, so what it prints is what a user can type there.

use std::path::{Path, PathBuf};

use anyhow::Context;
use filebox_api::verbs::ListMessages;
use filebox_api::{ListArgs, Verb, VerbContext};
use filebox_core::config::{FILE_NAME, PROJECT_DIR};
use filebox_core::{AgentId, Config, Folder, Mailroom};

use super::setup::shell_quote;
use crate::cli::{Global, Invocation, QuickstartArgs};
use crate::output::{self, Outcome};

/// The request qa sends.
const REQUEST: &str = "# Batch import for user management

Admins need to add 200 users at once. Please accept a CSV upload.";

/// How a command line runs (`commands::run`), handed in so that each printed step runs as the
/// real command line does.
pub(crate) type Dispatch = fn(&Global, Invocation) -> anyhow::Result<Outcome>;

pub(crate) fn run(
    _global: &Global,
    args: &QuickstartArgs,
    dispatch: Dispatch,
) -> anyhow::Result<Outcome> {
    let dir = match &args.dir {
        Some(dir) => dir.clone(),
        None => std::env::temp_dir().join(format!("filebox-quickstart-{}", std::process::id())),
    };
    std::fs::create_dir_all(&dir).with_context(|| format!("cannot create {}", dir.display()))?;
    let dir = dir
        .canonicalize()
        .with_context(|| format!("cannot resolve {}", dir.display()))?;
    let config_path = dir.join(PROJECT_DIR).join(FILE_NAME);
    let (qa, dev) = (AgentId::new("qa")?, AgentId::new("dev")?);
    let config = Config::update(&config_path, |file| {
        for agent in [&qa, &dev] {
            file.set_mailbox(agent, mailbox_dir(&dir, agent));
        }
        file.current_agent_id = Some(qa.clone());
        Ok(())
    })?;
    let as_dev = Mailroom::new(config, Some(&dev))?;
    output::lines([
        format!(
            "FileBox quickstart: agents qa and dev, config {}",
            config_path.display()
        ),
        "Every command below runs as printed in that folder:".to_owned(),
        String::new(),
        format!("$ cd {}", shell_quote(&dir.display().to_string())),
    ])?;
    let step = |words: &[&str]| step(dispatch, &config_path, words);

    step(&["--agent", "qa", "send", "dev", "ER", REQUEST])?;
    let short = newest_in_inbox(&as_dev)?;
    let short = &short[..8];
    step(&["--agent", "dev", "list", "inbox"])?;
    step(&["--agent", "dev", "read", short])?;
    step(&[
        "--agent",
        "dev",
        "reply",
        short,
        "Which columns must the CSV have?",
    ])?;
    step(&["--agent", "qa", "list", "inbox"])?;
    step(&["--agent", "qa", "reply", short, "name, email, role"])?;
    step(&[
        "--agent",
        "dev",
        "resolved",
        short,
        "CSV import shipped in v1.2",
    ])?;
    step(&["--agent", "dev", "read", "done", short])?;
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

/// Print `words` as the command line `filebox WORDS`, then run that command line as the
/// command line runs it, with the demo's config.
fn step(dispatch: Dispatch, config: &Path, words: &[&str]) -> anyhow::Result<()> {
    let shown: Vec<String> = words.iter().map(|word| shell_quote(word)).collect();
    output::lines([String::new(), format!("$ filebox {}", shown.join(" "))])?;
    let argv = std::iter::once("filebox").chain(words.iter().copied());
    let (mut global, invocation) = crate::cli::parse_from(argv)?;
    global.config = Some(config.to_owned());
    dispatch(&global, invocation)?;
    Ok(())
}

/// The id of the newest message in the inbox of `mailroom`'s agent.
fn newest_in_inbox(mailroom: &Mailroom) -> anyhow::Result<String> {
    let listing = ListMessages::run(
        &VerbContext::new(mailroom),
        ListArgs {
            folder: Some(Folder::Inbox),
            ..ListArgs::default()
        },
    )?;
    let newest = listing
        .value
        .messages
        .first()
        .context("the request did not arrive")?;
    Ok(newest.id.clone())
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
