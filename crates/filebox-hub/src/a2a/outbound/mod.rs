//! A2A out of a mailbox: mail to an agent entry that names a remote A2A agent (`"a2a":
//! {"url", "token"}`) waits in its stand-in's inbox (the outgoing spool, `spool.rs`); this task
//! finds the JSON-RPC interface the entry's URL leads to (`endpoint.rs`, `card.rs`), hands
//! each turn over as `SendMessage` (`client.rs`; the Message ID as `messageId`, the thread as
//! `contextId`), tried again with backoff while the remote is down, and follows the
//! remote task (`remote_task.rs`) until it asks back or ends, writing what it says through the
//! verbs as the stand-in agent: working = on hold, input-required = a reply to the sender,
//! completed = a reply with the artifacts, failed/rejected/canceled = rejected with the
//! reason, a refused send = `Mailroom::record_refusal`. The remote is foreign input: its
//! answer is bounded (`client.rs`), what a reply keeps of it too (`kept.rs`), its task ids
//! checked (`remote_task.rs`), and an answer about another task than the one asked about
//! refused. Everything it knows of the work is in the files (processing-history lines on the
//! spool copy), so a restarted hub picks up where it was; only the retry timing and the
//! resolved endpoints are in memory (a restarted hub tries at once with the same
//! `messageId`, which a remote deduplicates by as A2A allows, and reads the cards again).

mod card;
mod client;
mod endpoint;
mod kept;
mod remote_task;
mod spool;

use std::collections::HashMap;
use std::time::{Duration, Instant};

use anyhow::Context;
use base64::Engine as _;
use filebox_core::attachment::AttachmentRef;
use filebox_core::{A2aRemote, AgentId, Config, Mailroom, MessageRef, SendRequest, Transition};
use serde_json::{Value, json};

use super::wire::{Dialect, Role, Turn};
use crate::hub::Hub;
use crate::task_states::Run;
use crate::tasks::{self, keep_running};
use client::{Failure, Method};
use endpoint::Endpoints;
use remote_task::{Phase, RemoteTask};
use spool::{Spooled, Work};

/// How often the spools are looked at (and each remote task followed).
const LOOK_EVERY: Duration = Duration::from_millis(300);
/// The first wait after an unreachable remote, or before a working task is asked again; it
/// doubles up to [`MAX_BACKOFF`] (unreachable) or [`MAX_FOLLOW`] (working).
const FIRST_BACKOFF: Duration = Duration::from_millis(500);
const MAX_BACKOFF: Duration = Duration::from_secs(60);
const MAX_FOLLOW: Duration = Duration::from_secs(5);

/// Hand mail to remote A2A agents and bring their answers back until the hub stops.
pub(crate) async fn supervise(hub: Hub) {
    keep_running(hub.clone(), "a2a-out".into(), |run| send(hub.clone(), run)).await;
}

/// When each message may be tried again after its remote was unreachable, or its task asked
/// again while it works (in memory: a restarted hub tries at once, with the same
/// `messageId`).
type Backoff = HashMap<String, (Instant, Duration)>;

async fn send(hub: Hub, run: Run) -> anyhow::Result<()> {
    let stop = hub.sessions();
    let mut backoff = Backoff::new();
    let mut endpoints = Endpoints::default();
    run.up();
    loop {
        let config = hub.config().context("reading the config for A2A out")?;
        for (agent, remote) in remotes(&config) {
            let config = config.clone();
            let mailroom = tasks::blocking({
                let agent = agent.clone();
                move || Ok(Mailroom::new(config, Some(&agent))?)
            })
            .await?;
            let owed = {
                let mailroom = mailroom.clone();
                tasks::blocking(move || Ok(spool::owed(&mailroom.my_mailbox()?)?)).await?
            };
            for spooled in owed {
                let id = spooled.message.header.id().to_owned();
                if backoff.get(&id).is_some_and(|(at, _)| Instant::now() < *at) {
                    continue;
                }
                let longest = match step(&mailroom, &agent, &remote, &mut endpoints, spooled).await
                {
                    Applied::Settled => {
                        backoff.remove(&id);
                        continue;
                    }
                    Applied::Working => MAX_FOLLOW,
                    // Why is not written down: the copy stays `pending` until it goes, and
                    // a line per try would grow the file for as long as the remote is down.
                    Applied::Unreachable(_why) => MAX_BACKOFF,
                };
                let wait = backoff
                    .get(&id)
                    .map_or(FIRST_BACKOFF, |(_, w)| (*w * 2).min(longest));
                backoff.insert(id, (Instant::now() + wait, wait));
            }
        }
        tokio::select! {
            () = stop.cancelled() => return Ok(()),
            () = tokio::time::sleep(LOOK_EVERY) => {}
        }
    }
}

/// The agents of the config that stand for a remote A2A agent.
fn remotes(config: &Config) -> Vec<(AgentId, A2aRemote)> {
    config
        .file
        .agents
        .iter()
        .filter_map(|(id, entry)| Some((id.clone(), entry.a2a()?)))
        .collect()
}

/// What a piece of work came to.
enum Applied {
    /// Written into the files: nothing to wait for.
    Settled,
    /// The remote task works on: ask again later.
    Working,
    /// The remote could not be reached, or the files not written: try again later.
    Unreachable(String),
}

/// One piece of work on one spool copy.
async fn step(
    mailroom: &Mailroom,
    agent: &AgentId,
    remote: &A2aRemote,
    endpoints: &mut Endpoints,
    spooled: Spooled,
) -> Applied {
    let limit = answer_bytes(mailroom.config().max_body_bytes());
    let answer = match endpoints.of(agent, remote).await {
        Ok(endpoint) => {
            let (method, params) = match &spooled.work {
                Work::Send { task, text, files } => {
                    let message = outgoing(
                        &spooled.message,
                        endpoint.dialect,
                        task.as_deref(),
                        text,
                        files,
                    );
                    // Answered at once, not held until the task ends: a remote slower than
                    // the call's time-out would otherwise be sent the message again.
                    let configuration = match endpoint.dialect {
                        Dialect::V1 => json!({ "returnImmediately": true }),
                        Dialect::V03 => json!({ "blocking": false }),
                    };
                    let params = json!({ "message": message, "configuration": configuration });
                    (Method::Send, params)
                }
                Work::Follow { task } => (Method::GetTask, json!({ "id": task })),
            };
            let token = remote.token.as_deref();
            client::call(&endpoint, token, method, params, limit).await
        }
        Err(failure) => Err(failure),
    };
    if answer.is_err() {
        endpoints.forget(agent);
    }
    let mailroom = mailroom.clone();
    let applied = tasks::blocking(move || Ok(apply(&mailroom, &spooled, answer)?)).await;
    applied.unwrap_or_else(|e| Applied::Unreachable(format!("{e:#}")))
}

/// The most bytes of an answer read: its files may each be up to `max_body_bytes`, in base64
/// (4 bytes for 3) inside JSON.
fn answer_bytes(max_body_bytes: usize) -> usize {
    max_body_bytes.saturating_mul(2).saturating_add(64 * 1024)
}

/// The A2A message of the copy's latest turn: its text, then its attachments as inline file
/// parts.
fn outgoing(
    message: &filebox_core::Message,
    dialect: Dialect,
    task: Option<&str>,
    text: &str,
    files: &[(AttachmentRef, Vec<u8>)],
) -> Value {
    let turn = Turn {
        message_id: spool::message_id(message),
        role: Role::User,
        text: text.to_owned(),
    };
    let mut outgoing =
        dialect.message(&turn, task.unwrap_or_default(), &spool::context_id(message));
    if task.is_none()
        && let Some(object) = outgoing.as_object_mut()
    {
        object.remove("taskId");
    }
    if let Some(parts) = outgoing["parts"].as_array_mut() {
        if text.is_empty() && !files.is_empty() {
            parts.clear();
        }
        for (file, bytes) in files {
            let bytes = base64::engine::general_purpose::STANDARD.encode(bytes);
            parts.push(match dialect {
                Dialect::V1 => json!({
                    "raw": bytes,
                    "filename": file.name,
                    "mediaType": file.mime,
                }),
                Dialect::V03 => json!({
                    "kind": "file",
                    "file": { "bytes": bytes, "name": file.name, "mimeType": file.mime },
                }),
            });
        }
    }
    outgoing
}

/// Write what the remote answered into the files.
fn apply(
    mailroom: &Mailroom,
    spooled: &Spooled,
    answer: Result<Value, Failure>,
) -> filebox_core::Result<Applied> {
    let message = &spooled.message;
    let id = message.header.id();
    let reference = MessageRef::Id(id.to_owned());
    let me = mailroom.me().clone();
    let task = answer.and_then(|result| {
        RemoteTask::parse(&result)
            .and_then(|task| same_task(&spooled.work, task))
            .map_err(Failure::Refused)
    });
    let task = match task {
        Ok(task) => task,
        Err(Failure::Unreachable(why)) => return Ok(Applied::Unreachable(why)),
        Err(Failure::Refused(why)) => {
            match spooled.work {
                Work::Send { .. } => {
                    let conversation = message.conversation.len();
                    mailroom.record_refusal(&me, id, conversation, &why)?;
                }
                Work::Follow { .. } => {
                    mailroom.transition(Transition::Reject, &reference, &why)?;
                }
            }
            return Ok(Applied::Settled);
        }
    };
    if let Work::Send { .. } = spooled.work {
        let turn = message.conversation.len();
        mailroom.annotate(
            &reference,
            spool::SENT,
            me.as_str(),
            &spool::sent_details(&task.id, turn),
        )?;
        mailroom.record_receipt(&me, id, turn, Some(&spooled.envelope.file))?;
    }
    let in_inbox = spooled.envelope.folder == filebox_core::Folder::Inbox;
    match task.phase {
        Phase::Working if in_inbox => {
            let note = format!("the A2A agent's task {} is {}", task.id, task.state);
            mailroom.transition(Transition::Hold, &reference, &note)?;
            return Ok(Applied::Working);
        }
        Phase::Working => return Ok(Applied::Working),
        Phase::InputRequired => answer_sender(mailroom, message, &task, "asks")?,
        Phase::Completed => {
            let ended = format!("task {} {}", task.id, task.state);
            mailroom.annotate(&reference, spool::ENDED, me.as_str(), &ended)?;
            answer_sender(mailroom, message, &task, "completed")?;
        }
        Phase::Ended => {
            let said = task.said.body();
            let reason = match said.trim() {
                "" => format!("the A2A agent's task {} {}", task.id, task.state),
                said => format!(
                    "the A2A agent's task {} {}: {}",
                    task.id,
                    task.state,
                    filebox_core::model_text::one_line(said, REASON_CHARS)
                ),
            };
            mailroom.annotate(
                &reference,
                spool::ENDED,
                me.as_str(),
                &format!("task {} {}", task.id, task.state),
            )?;
            mailroom.transition(Transition::Reject, &reference, &reason)?;
        }
    }
    Ok(Applied::Settled)
}

/// The remote's words (and files) as a reply to whoever wrote the latest turn.
fn answer_sender(
    mailroom: &Mailroom,
    message: &filebox_core::Message,
    task: &RemoteTask,
    what: &str,
) -> filebox_core::Result<()> {
    let asker = spool::asker(message).ok_or_else(|| {
        filebox_core::Error::invalid(
            "sender",
            filebox_core::copy::sender(message),
            "not an agent of this config",
        )
    })?;
    // The room the core's bound on a message (body and conversation together) leaves.
    let limit = mailroom.config().max_body_bytes();
    let grown = message.words_len();
    let kept::Kept { mut body, files } = kept::keep(&task.said, limit, limit.saturating_sub(grown));
    if body.trim().is_empty() {
        body = format!("(the A2A agent's task {} {what}, with no text)", task.id);
    }
    let kind = filebox_core::MessageType::new(&message.header.kind)?;
    mailroom.send(&SendRequest {
        reply_to: Some(MessageRef::Id(message.header.id().to_owned())),
        attachments: files,
        ..SendRequest::new(asker.as_str(), kind, body)
    })?;
    Ok(())
}

/// The most characters of the remote's words in a rejection's reason (a processing line).
const REASON_CHARS: usize = 500;

/// `task`, if it is the task the work asked about (a follow-up or `GetTask` names one); a bare
/// message that names no task answers the one asked about.
fn same_task(work: &Work, task: RemoteTask) -> Result<RemoteTask, String> {
    let asked = match work {
        Work::Send { task, .. } => task.as_deref(),
        Work::Follow { task } => Some(task.as_str()),
    };
    match asked {
        Some(asked) if task.id == remote_task::NO_TASK => Ok(RemoteTask {
            id: asked.to_owned(),
            ..task
        }),
        Some(asked) if asked != task.id => Err(format!(
            "asked about the A2A agent's task {asked}, it answered about its task {}: refused",
            task.id
        )),
        _ => Ok(task),
    }
}
