//! `filebox serve`: the hub, for the config every command finds; with none anywhere, a default
//! workspace here (a human `me` and an agent `assistant`).

use std::path::Path;

use anyhow::Context;
use filebox_core::config::{FILE_NAME, PROJECT_DIR};
use filebox_core::{AgentEntry, AgentId, AgentKind, Config, Mailbox};

use super::acting::{agent_override, cwd};
use crate::cli::{Global, ServeArgs};
use crate::output::{self, Outcome};

/// The mailboxes of the default workspace: (id, kind).
const DEFAULT_MAILBOXES: [(&str, AgentKind); 2] =
    [("me", AgentKind::Human), ("assistant", AgentKind::Agent)];
/// Who acts when nobody says (`--agent`, a token): the agent, so that the hub's `/mcp` and
/// Connect endpoints, and `filebox mcp` started there, ask the human rather than act as the
/// human (who answers on the page, or with `--agent me`).
const DEFAULT_CURRENT_AGENT: &str = "assistant";

pub(crate) fn run(global: &Global, args: &ServeArgs) -> anyhow::Result<Outcome> {
    let cwd = cwd()?;
    // Bound before anything is created: a busy port leaves no workspace behind.
    let listener = std::net::TcpListener::bind(&args.listen).with_context(|| {
        format!(
            "cannot listen on {} (another hub there?); --listen 127.0.0.1:0 takes any free port",
            args.listen
        )
    })?;
    listener
        .set_nonblocking(true)
        .context("cannot make the listener non-blocking")?;
    let config = match Config::locate(global.config.as_deref(), &cwd) {
        Some(path) => Config::load(&path)?,
        None => default_workspace(&cwd)?,
    };
    let options = filebox_hub::Options {
        agent: agent_override(global)?,
        allowed_hosts: args.allow_hosts.clone(),
    };
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        let listener = tokio::net::TcpListener::from_std(listener)?;
        // Bound and watched before the URL is printed: whoever reads it may call or signal
        // at once.
        let stop = stop_signal()?;
        let address = listener.local_addr()?;
        let server = filebox_hub::Server::bind(config.clone(), listener, options)?;
        output::lines([format!("http://{address}/")])?;
        eprintln!(
            "filebox: hub for {} (JSON-RPC at /rpc and {}, MCP at /mcp)",
            config.path.display(),
            filebox_hub::socket_path(&config).display()
        );
        server.serve(stop).await
    })?;
    Ok(Outcome::Success)
}

/// Completes on SIGTERM or SIGINT (Ctrl-C).
fn stop_signal() -> anyhow::Result<impl Future<Output = ()> + Send + 'static> {
    use tokio::signal::unix::{SignalKind, signal};
    let mut terminate = signal(SignalKind::terminate()).context("cannot watch for SIGTERM")?;
    let mut interrupt = signal(SignalKind::interrupt()).context("cannot watch for SIGINT")?;
    Ok(async move {
        tokio::select! {
            _ = terminate.recv() => {}
            _ = interrupt.recv() => {}
        }
    })
}

/// `./.filebox/config.json` with a human `me` and an agent `assistant` (the current agent),
/// mailboxes under `./mailboxes/`.
fn default_workspace(cwd: &Path) -> anyhow::Result<Config> {
    let path = cwd.join(PROJECT_DIR).join(FILE_NAME);
    let config = Config::update(&path, |file| {
        for (id, kind) in DEFAULT_MAILBOXES {
            file.agents.entry(AgentId::new(id)?).or_insert(AgentEntry {
                kind: Some(kind),
                ..AgentEntry::new(cwd.join("mailboxes").join(id))
            });
        }
        file.current_agent_id
            .get_or_insert(AgentId::new(DEFAULT_CURRENT_AGENT)?);
        Ok(())
    })?;
    for id in config.file.agents.keys() {
        Mailbox::open(id.clone(), config.mailbox_path(id)?)?;
    }
    eprintln!(
        "filebox: no config found, so created {} with a human mailbox `me` and an agent \
         mailbox `assistant` (the current agent) under {}",
        path.display(),
        cwd.join("mailboxes").display()
    );
    if let Some(checkout) = git_checkout(cwd) {
        for dir in [PROJECT_DIR, "mailboxes"] {
            ignore_in_git(&cwd.join(dir))?;
        }
        eprintln!(
            "filebox: {} is a git checkout: {PROJECT_DIR}/ and mailboxes/ are ignored by git \
             (a .gitignore in each; delete mailboxes/.gitignore to commit the mail)",
            checkout.display()
        );
    }
    Ok(config)
}

/// The git checkout `dir` is in: the nearest folder upward holding `.git`.
fn git_checkout(dir: &Path) -> Option<&Path> {
    dir.ancestors().find(|dir| dir.join(".git").exists())
}

/// Keep git from listing `dir` as untracked: a `.gitignore` in it that ignores everything
/// (itself too), so no file of the user's is touched. One already there is left alone.
fn ignore_in_git(dir: &Path) -> anyhow::Result<()> {
    let path = dir.join(".gitignore");
    match std::fs::OpenOptions::new()
        .write(true)
        .create_new(true)
        .open(&path)
    {
        Ok(mut file) => {
            use std::io::Write;
            file.write_all(b"# Created by `filebox serve`: FileBox's workspace, not tracked.\n*\n")
                .with_context(|| format!("cannot write {}", path.display()))
        }
        Err(error) if error.kind() == std::io::ErrorKind::AlreadyExists => Ok(()),
        Err(error) => Err(error).with_context(|| format!("cannot create {}", path.display())),
    }
}
