//! Agents that are not running: an agent entry with `"runner": {"command": [...],
//! "timeout_secs": 600, "max_concurrent": 1}` gets its command run for each message reaching its
//! inbox. The message is put on hold first (status processing; the hold is the claim, so a
//! message is never run twice at once), the command gets the message's Markdown on stdin and
//! `FILEBOX_CONFIG`, `FILEBOX_AGENT`, `FILEBOX_MESSAGE_ID`; non-empty stdout becomes the reply
//! (routed like `email.reply`), empty stdout resolves it, a non-zero exit or a timeout rejects
//! it (status failed) with the stderr tail in the processing history.
//!
//! Files are the truth: at start every runner agent's inbox is run, and so is every message
//! on hold that a runner had claimed (a hub killed mid-run runs it again). The config is read
//! again at each arrival (parsed only when its file changed): a runner added or changed takes
//! effect without a restart, its waiting mail run at once. The runs waiting for a runner's
//! turn are bounded (`queue.rs`): past the bound, mail waits in the inbox and is looked at again.

mod queue;

use std::collections::HashMap;
use std::process::Stdio;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use filebox_api::access::Caller;
use filebox_api::verbs::{HoldMessage, ReadMessage};
use filebox_api::{HoldArgs, ReadArgs, Verb, VerbContext};
use filebox_core::{AgentId, Config, Folder, Mailroom};
use serde::Deserialize;
use tokio::io::AsyncWriteExt;
use tokio::sync::{Semaphore, broadcast};

use crate::email::handlers;
use crate::email::wire::{ReplyParams, TransitionParams};
use crate::events::HubEvent;
use crate::hub::Hub;
use crate::rpc::{Ctx, RpcError};
use crate::task_states::Run;
use crate::tasks::keep_running;

/// The processing-history details a runner's claim writes; a hold with them is resumed.
const CLAIMED: &str = "runner: started";
/// How much of a failed command's stderr is kept, in bytes.
const STDERR_TAIL: usize = 2000;
/// How often a runner whose queue turned mail away looks whether it has room again.
const LOOK_AGAIN: Duration = Duration::from_secs(2);

/// An agent entry's `runner`.
#[derive(Debug, Clone, PartialEq, Eq, Deserialize)]
struct RunnerSpec {
    command: Vec<String>,
    #[serde(default = "default_timeout")]
    timeout_secs: u64,
    #[serde(default = "default_concurrency")]
    max_concurrent: usize,
}

fn default_timeout() -> u64 {
    600
}

fn default_concurrency() -> usize {
    1
}

/// The runners of a config, by agent; a malformed `runner` is an error naming the agent.
fn runners(config: &Config) -> anyhow::Result<HashMap<AgentId, RunnerSpec>> {
    let mut runners = HashMap::new();
    for (agent, entry) in &config.file.agents {
        let Some(value) = entry.extra.get("runner") else {
            continue;
        };
        let spec: RunnerSpec = serde_json::from_value(value.clone())
            .map_err(|e| anyhow::anyhow!("config: the runner of {agent}: {e}"))?;
        if spec.command.is_empty() || spec.max_concurrent == 0 {
            anyhow::bail!("config: the runner of {agent} needs a command and max_concurrent >= 1");
        }
        runners.insert(agent.clone(), spec);
    }
    Ok(runners)
}

/// Check the runners of `config` before serving.
pub(crate) fn check(config: &Config) -> anyhow::Result<()> {
    runners(config).map(|_| ())
}

/// Run the runners until the hub stops: the mail waiting now, then each new arrival; kept
/// running (`tasks.rs`), with `arrivals` for the first run and a new subscription after.
pub(crate) async fn supervise(hub: Hub, arrivals: broadcast::Receiver<HubEvent>) {
    let mut first = Some(arrivals);
    keep_running(hub.clone(), "runners".into(), |run| {
        let arrivals = first.take().unwrap_or_else(|| hub.events().live());
        run_runners(hub.clone(), arrivals, run)
    })
    .await;
}

async fn run_runners(
    hub: Hub,
    mut arrivals: broadcast::Receiver<HubEvent>,
    run: Run,
) -> anyhow::Result<()> {
    let config = hub.config().context("reading the config for the runners")?;
    let mut runners = Runners::default();
    let added = runners.refresh(&config)?;
    start_waiting(&hub, &runners, &config, added, true).await?;
    run.up();
    let stop = hub.sessions();
    let mut look_again = tokio::time::interval(LOOK_AGAIN);
    loop {
        let event = tokio::select! {
            _ = stop.cancelled() => return Ok(()),
            _ = look_again.tick() => None,
            event = arrivals.recv() => Some(event),
        };
        // A runner added to the config (or changed) takes effect without a restart, like
        // tokens: the config is parsed again only when its file changed.
        let config = hub.config().context("reading the config for the runners")?;
        match runners.refresh(&config) {
            Ok(added) => start_waiting(&hub, &runners, &config, added, true).await?,
            Err(error) => tracing::warn!("runners kept as they were: {error}"),
        }
        let Some(event) = event else {
            // Mail a full queue turned away is still in the inbox: run it once there is room.
            start_waiting(&hub, &runners, &config, runners.overflowed(), false).await?;
            continue;
        };
        match event {
            Ok(event)
                if event.folder == Folder::Inbox
                    && matches!(event.kind, "delivered" | "reply" | "fork") =>
            {
                if let Ok(agent) = AgentId::new(&event.agent) {
                    runners.start(&hub, &agent, event.file, false);
                }
            }
            // Events were lost: look at the inboxes again (a message already taken is skipped
            // by its claim; what was claimed is running already).
            Ok(event) if event.is_resync() => {
                let agents = runners.specs.keys().cloned().collect();
                start_waiting(&hub, &runners, &config, agents, false).await?;
            }
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(_)) => {
                let agents = runners.specs.keys().cloned().collect();
                start_waiting(&hub, &runners, &config, agents, false).await?;
            }
            Err(broadcast::error::RecvError::Closed) => return Ok(()),
        }
    }
}

/// Run the mail waiting in the inboxes of `agents` (and, with `claimed`, what a runner had
/// claimed before the hub stopped).
async fn start_waiting(
    hub: &Hub,
    runners: &Runners,
    config: &Config,
    agents: Vec<AgentId>,
    claimed: bool,
) -> anyhow::Result<()> {
    if agents.is_empty() {
        return Ok(());
    }
    let config = config.clone();
    let found = tokio::task::spawn_blocking(move || waiting_mail(&config, &agents))
        .await
        .context("looking for the mail waiting for the runners")?;
    for (agent, file, was_claimed) in found.into_iter().filter(|(_, _, c)| claimed || !c) {
        runners.start(hub, &agent, file, was_claimed);
    }
    Ok(())
}

/// The runners of the config as last read, each with its concurrency limit and its queue.
#[derive(Default)]
struct Runners {
    specs: HashMap<AgentId, RunnerSpec>,
    limits: HashMap<AgentId, Arc<Semaphore>>,
    queues: HashMap<AgentId, Arc<Mutex<queue::Queue>>>,
}

impl Runners {
    /// Take the runners of `config`; returns the agents whose runner is new (or changed), whose
    /// waiting mail is to run now. A malformed runner leaves them all as they were.
    fn refresh(&mut self, config: &Config) -> anyhow::Result<Vec<AgentId>> {
        let specs = runners(config)?;
        let mut added = Vec::new();
        for (agent, spec) in &specs {
            if self.specs.get(agent) != Some(spec) {
                added.push(agent.clone());
                self.limits
                    .insert(agent.clone(), Arc::new(Semaphore::new(spec.max_concurrent)));
            }
        }
        self.limits.retain(|agent, _| specs.contains_key(agent));
        for agent in specs.keys() {
            self.queues.entry(agent.clone()).or_default();
        }
        self.queues.retain(|agent, _| specs.contains_key(agent));
        self.specs = specs;
        Ok(added)
    }

    /// The agents whose queue turned mail away and has room again.
    fn overflowed(&self) -> Vec<AgentId> {
        self.queues
            .iter()
            .filter(|(_, waiting)| queue::take_overflow(waiting))
            .map(|(agent, _)| agent.clone())
            .collect()
    }

    /// Run `agent`'s runner on one message of its inbox (or of its hold, `claimed`), within
    /// its limit; nothing when the agent has no runner, or the message waits for its turn
    /// already, or the runner's queue is full (the message stays in the inbox for later).
    fn start(&self, hub: &Hub, agent: &AgentId, file: String, claimed: bool) {
        let (Some(spec), Some(limit), Some(waiting)) = (
            self.specs.get(agent),
            self.limits.get(agent),
            self.queues.get(agent),
        ) else {
            return;
        };
        let Some(ticket) = queue::enter(waiting, &file) else {
            return;
        };
        let job = Job {
            hub: hub.clone(),
            agent: agent.clone(),
            file,
            claimed,
            spec: spec.clone(),
        };
        let limit = Arc::clone(limit);
        tokio::spawn(async move {
            let Ok(_permit) = limit.acquire_owned().await else {
                return;
            };
            job.run(ticket).await;
        });
    }
}

/// The inbox of each runner agent, and what a runner claimed (on hold, claimed by a runner).
fn waiting_mail(config: &Config, agents: &[AgentId]) -> Vec<(AgentId, String, bool)> {
    let mut found = Vec::new();
    for agent in agents {
        let Ok(mailbox) = config
            .mailbox_path(agent)
            .and_then(|root| filebox_core::Mailbox::open(agent.clone(), root))
        else {
            continue;
        };
        for (folder, claimed) in [(Folder::Inbox, false), (Folder::Hold, true)] {
            let Ok(listing) = mailbox.list(folder) else {
                continue;
            };
            for envelope in listing.messages {
                let ours = !claimed
                    || mailbox
                        .read(&envelope)
                        .is_ok_and(|m| m.processing.last().is_some_and(|p| p.details == CLAIMED));
                if ours {
                    found.push((agent.clone(), envelope.file.to_string(), claimed));
                }
            }
        }
    }
    found
}

/// One message for one runner.
struct Job {
    hub: Hub,
    agent: AgentId,
    file: String,
    /// Already on hold by a runner (resumed after a restart).
    claimed: bool,
    spec: RunnerSpec,
}

/// How a command ended.
enum Ending {
    Answered(String),
    Silent,
    Failed(String),
}

impl Job {
    async fn run(self, ticket: queue::Ticket) {
        let claimed = self.claim().await;
        // Claimed (on hold) or taken by someone else: no longer waiting for its turn.
        drop(ticket);
        let Some((markdown, id)) = claimed else {
            return;
        };
        let ending = self.execute(&markdown, &id).await;
        let (hub, agent) = (self.hub.clone(), self.agent.clone());
        // The outcome is written whatever happens to the hub's state now: files are the truth.
        let _ = tokio::task::spawn_blocking(move || finish(&hub, &agent, &id, ending)).await;
    }

    /// Put the message on hold (the claim) and read it: `None` when someone else took it.
    async fn claim(&self) -> Option<(String, String)> {
        let (hub, agent, file, claimed) = (
            self.hub.clone(),
            self.agent.clone(),
            self.file.clone(),
            self.claimed,
        );
        tokio::task::spawn_blocking(move || {
            let mailroom = Mailroom::new(hub.config().ok()?, Some(&agent)).ok()?;
            let cx = VerbContext::new(&mailroom);
            if !claimed {
                HoldMessage::run(
                    &cx,
                    HoldArgs {
                        id: file.clone(),
                        reason: CLAIMED.into(),
                    },
                )
                .ok()?;
            }
            let read = ReadMessage::run(
                &cx,
                ReadArgs {
                    id: file,
                    folder: Some(Folder::Hold),
                },
            )
            .ok()?
            .value;
            Some((read.markdown, read.message.id))
        })
        .await
        .ok()
        .flatten()
    }

    async fn execute(&self, markdown: &str, id: &str) -> Ending {
        let mut command = tokio::process::Command::new(&self.spec.command[0]);
        command
            .args(&self.spec.command[1..])
            .env("FILEBOX_CONFIG", self.hub.config_path())
            .env("FILEBOX_AGENT", self.agent.as_str())
            .env("FILEBOX_MESSAGE_ID", id)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .kill_on_drop(true);
        let mut child = match command.spawn() {
            Ok(child) => child,
            Err(e) => {
                return Ending::Failed(format!(
                    "runner: cannot start {:?}: {e}",
                    self.spec.command[0]
                ));
            }
        };
        if let Some(mut stdin) = child.stdin.take() {
            // A command that does not read its input is not an error.
            let _ = stdin.write_all(markdown.as_bytes()).await;
        }
        let limit = Duration::from_secs(self.spec.timeout_secs);
        match tokio::time::timeout(limit, child.wait_with_output()).await {
            Err(_) => Ending::Failed(format!(
                "runner: timed out after {} s",
                self.spec.timeout_secs
            )),
            Ok(Err(e)) => Ending::Failed(format!("runner: {e}")),
            Ok(Ok(output)) if !output.status.success() => Ending::Failed(format!(
                "runner: {}; stderr: {}",
                output.status,
                tail(&output.stderr)
            )),
            Ok(Ok(output)) => {
                let answer = String::from_utf8_lossy(&output.stdout).into_owned();
                if answer.trim().is_empty() {
                    Ending::Silent
                } else {
                    Ending::Answered(answer)
                }
            }
        }
    }
}

/// Record how the command ended: reply, resolve or reject, as the runner's agent.
fn finish(hub: &Hub, agent: &AgentId, id: &str, ending: Ending) -> Result<(), RpcError> {
    let (config, settings) = hub.current()?;
    let ctx = Ctx {
        config,
        settings,
        caller: Caller::Agent(agent.clone()),
        waits: hub.waits().clone(),
    };
    let transition = |details: String| TransitionParams {
        agent: agent.to_string(),
        id: id.to_owned(),
        details,
    };
    match ending {
        Ending::Answered(body) => handlers::reply(
            &ctx,
            ReplyParams {
                from: agent.to_string(),
                id: id.to_owned(),
                body,
                kind: None,
                attachments: None,
                idempotency_key: None,
            },
        )
        .map(|_| ()),
        Ending::Silent => {
            handlers::resolve(&ctx, transition("runner: finished without output".into()))
                .map(|_| ())
        }
        Ending::Failed(details) => handlers::reject(&ctx, transition(details)).map(|_| ()),
    }
}

/// The end of a command's stderr, on one line.
fn tail(stderr: &[u8]) -> String {
    let text = String::from_utf8_lossy(stderr);
    let text = text.trim();
    let start = text
        .char_indices()
        .map(|(i, _)| i)
        .find(|&i| text.len() - i <= STDERR_TAIL)
        .unwrap_or(text.len());
    text[start..]
        .split_whitespace()
        .collect::<Vec<_>>()
        .join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_stderr_tail_is_short_and_on_one_line() {
        assert_eq!(tail(b"  error:\n  boom \n"), "error: boom");
        let long = "x".repeat(5000) + "\nend";
        assert!(tail(long.as_bytes()).len() <= STDERR_TAIL);
        assert!(tail(long.as_bytes()).ends_with(" end"));
    }
}
