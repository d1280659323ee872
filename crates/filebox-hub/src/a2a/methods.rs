//! The A2A methods of one agent's endpoint, each over the verbs and the core as the hub's
//! `system` mailbox (the sender of every message that comes in through A2A) or as the agent:
//! `SendMessage` delivers, `GetTask` / `ListTasks` read the state from the files, `CancelTask`
//! rejects the agent's copy with [`CANCELED`] as the reason.

use filebox_api::access::Caller;
use filebox_api::verbs::{RejectMessage, SendMessage};
use filebox_api::{AttachmentArg, RejectArgs, SendArgs, Verb, VerbContext};
use filebox_core::message::{FileName, field};
use filebox_core::{
    AgentId, Config, Folder, IdempotencyKey, Mailroom, MessageType, SYSTEM_MAILBOX, SendRequest,
    SourceType,
};
use serde_json::{Value, json};

use super::error::A2aError;
use super::task::{AGENT_FIELD, CALLER_FIELD, CANCELED, MESSAGE_ID_FIELD, State, Task};
use super::wire::{Dialect, Incoming};
use crate::hub::Hub;

/// The type of a message that comes in through A2A: a request.
const REQUEST_TYPE: &str = "ER";
/// The body of a message that came with files and no text.
const FILES_ONLY: &str = "Files from an A2A client (attached).";
/// `ListTasks`' page when the call names none, and the most it gives.
const PAGE_SIZE: usize = 50;
const MAX_PAGE_SIZE: usize = 100;

/// One call to an agent's endpoint: the config as read for it, who calls, for which agent,
/// in which dialect.
#[derive(Debug)]
pub(crate) struct Cx {
    pub(crate) config: Config,
    pub(crate) caller: Caller,
    pub(crate) agent: AgentId,
    pub(crate) dialect: Dialect,
}

impl Cx {
    /// The call's context: the config now, and the caller if it may act for `agent`.
    pub(crate) fn open(
        hub: &Hub,
        authorization: Option<&str>,
        agent: &str,
        dialect: Dialect,
    ) -> Result<Cx, A2aError> {
        let config = hub.config()?;
        let caller = hub.caller(&config, authorization)?;
        Cx::new(config, caller, agent, dialect)
    }

    /// The call, if the access policy lets this caller act for `agent` and `agent` is one
    /// the hub serves over A2A: checked before anything is written.
    pub(crate) fn new(
        config: Config,
        caller: Caller,
        agent: &str,
        dialect: Dialect,
    ) -> Result<Cx, A2aError> {
        let agent = AgentId::new(agent).map_err(|e| A2aError::invalid_params("agent", e))?;
        if !serves(&config, &agent) {
            return Err(filebox_core::Error::UnknownAgent(agent.to_string()).into());
        }
        caller.check(&config, &agent)?;
        Ok(Cx {
            config,
            caller,
            agent,
            dialect,
        })
    }

    /// The hub's `system` mailbox, which sends what comes in through A2A and gets the
    /// agent's answers (created beside the others on first use).
    pub(crate) fn system(&self) -> Result<Mailroom, A2aError> {
        let any = Mailroom::new(self.config.clone(), Some(&self.agent))?.with_system_mailbox()?;
        Ok(Mailroom::new(
            any.config().clone(),
            Some(&AgentId::new(SYSTEM_MAILBOX)?),
        )?)
    }

    /// Who called, as the delivered message names it (no secret: never the token).
    fn caller_name(&self) -> String {
        match &self.caller {
            Caller::Agent(id) => format!("a2a client with {id}'s token"),
            Caller::Owner => "a2a client of the hub's user".into(),
            Caller::Anonymous | Caller::Page | Caller::Stranger => {
                "a2a client without a token, on this machine".into()
            }
        }
    }
}

/// Whether the hub serves `agent` over A2A: a mailbox of this machine, not the hub's own
/// (`system`, the stand-ins of agents elsewhere).
pub(crate) fn serves(config: &Config, agent: &AgentId) -> bool {
    config.agent(agent).is_ok_and(|entry| !entry.is_stand_in())
        && agent.as_str() != SYSTEM_MAILBOX
        && !agent.as_str().contains('@')
}

/// `SendMessage` / `message/send`: a new task, or with `taskId` the client's answer to an
/// agent that asked back. The `messageId` is the idempotency key: the same one again writes
/// nothing and answers the same task.
pub(crate) fn send(cx: &Cx, params: &Value) -> Result<Task, A2aError> {
    let incoming = Incoming::parse(params)?;
    let key = message_key(cx, &incoming.message_id);
    let system = cx.system()?;
    match &incoming.task_id {
        Some(task) => follow_up(cx, &system, task, &incoming, key),
        None => deliver(cx, &system, &incoming, key),
    }
}

/// The idempotency key of a client's `messageId`, scoped to the agent it is sent to and the
/// caller: every message that comes in through A2A is sent by the one `system` mailbox, whose
/// keys are one space, so a key of the bare messageId would refuse another agent's client
/// that happened to use the same one, and name that other message's id to it.
fn message_key(cx: &Cx, message_id: &str) -> IdempotencyKey {
    let scope = format!("{}\n{}\n{message_id}", cx.agent, cx.caller_name());
    let hash = filebox_api::access::sha256_hex(&scope);
    IdempotencyKey::new(&format!("a2a-{hash}")).expect("a hex digest is a key")
}

/// A new task: the message delivered to the agent's inbox, answered from the copy the send
/// wrote rather than read back (the agent's copy holds the same bytes, unread: submitted). A
/// repeat of its `messageId` wrote nothing: the task as the files say now, found by the name
/// the first send gave its copies.
fn deliver(
    cx: &Cx,
    system: &Mailroom,
    incoming: &Incoming,
    key: IdempotencyKey,
) -> Result<Task, A2aError> {
    let mut body = incoming.body();
    if body.trim().is_empty() {
        // Only files: a body still says what the message is.
        body = FILES_ONLY.to_owned();
    }
    let request = SendRequest {
        source_type: Some(SourceType::External),
        attachments: incoming.files.clone(),
        idempotency_key: Some(key),
        ..SendRequest::new(cx.agent.as_str(), request_type(), body)
    };
    let caller = cx.caller_name();
    let mut extra = vec![
        (AGENT_FIELD, cx.agent.as_str()),
        (MESSAGE_ID_FIELD, incoming.message_id.as_str()),
        (CALLER_FIELD, caller.as_str()),
    ];
    if let Some(context) = &incoming.context_id {
        extra.push((field::THREAD_ID, context.as_str()));
    }
    let sent = system.send_new_with(&request, &extra)?;
    match &sent.written {
        Some((_, message)) => Ok(Task::delivered(message, &cx.agent)),
        None => Task::load_named(system, &cx.agent, &sent.id, &FileName::new(&sent.file)?),
    }
}

/// The client answers the agent's question: a reply from `system`, so the file goes back to
/// the agent's inbox with the answer in its Conversation History; the task as the files say
/// then, found by the file's name.
fn follow_up(
    cx: &Cx,
    system: &Mailroom,
    task_id: &str,
    incoming: &Incoming,
    key: IdempotencyKey,
) -> Result<Task, A2aError> {
    let task = Task::load(system, &cx.agent, task_id)?;
    match task.state {
        State::InputRequired => {}
        state if state.is_terminal() => {
            return Err(A2aError::unsupported(format!(
                "task {task_id} is {}: send a new message (without taskId) to start another",
                state.name(cx.dialect)
            )));
        }
        _ => {
            return Err(A2aError::unsupported(format!(
                "task {task_id} waits for {}: a follow-up is taken once the agent asks back \
                 (input-required)",
                cx.agent
            )));
        }
    }
    let attachments = incoming
        .files
        .iter()
        .map(|file| AttachmentArg::from_bytes(&file.name, file.mime.clone(), &file.bytes))
        .collect::<Vec<_>>();
    let args = SendArgs {
        reply_to: Some(task.id.clone()),
        attachments: (!attachments.is_empty()).then_some(attachments),
        idempotency_key: Some(key.as_str().to_owned()),
        ..SendArgs::new(cx.agent.as_str(), request_type(), incoming.body())
    };
    let sent = SendMessage::run(&VerbContext::new(system), args)?.value;
    Task::load_named(system, &cx.agent, &task.id, &FileName::new(&sent.file)?)
}

fn request_type() -> MessageType {
    MessageType::new(REQUEST_TYPE).expect("ER is a message type")
}

/// `GetTask` / `tasks/get`.
pub(crate) fn get(cx: &Cx, params: &Value) -> Result<Task, A2aError> {
    let id = required_text(params, "id")?;
    Task::load(&cx.system()?, &cx.agent, id)
}

/// `historyLength`, when the call gives one (beside the id, or in a send's `configuration`).
pub(crate) fn history_length(params: &Value) -> Result<Option<usize>, A2aError> {
    // `GetTask` names it beside the id; `SendMessage` in its `configuration`.
    let given = params
        .get("historyLength")
        .or_else(|| params.pointer("/configuration/historyLength"));
    match given {
        None | Some(Value::Null) => Ok(None),
        Some(value) => value
            .as_u64()
            .map(|n| Some(n as usize))
            .ok_or_else(|| A2aError::invalid_params("historyLength", "must be a number >= 0")),
    }
}

/// `CancelTask` / `tasks/cancel`: the copy that waits (the agent's, or the hub's when the
/// agent asked back) is rejected with [`CANCELED`], through the reject verb.
pub(crate) fn cancel(cx: &Cx, params: &Value) -> Result<Task, A2aError> {
    let id = required_text(params, "id")?;
    let system = cx.system()?;
    let task = Task::load(&system, &cx.agent, id)?;
    if task.state.is_terminal() {
        return Err(A2aError::not_cancelable(id, task.state.name(cx.dialect)));
    }
    let holder = match task.state {
        State::InputRequired => system.clone(),
        _ => Caller::Owner.act_as(&cx.config, &cx.agent)?,
    };
    let args = RejectArgs {
        id: task.id.clone(),
        reason: CANCELED.into(),
    };
    match RejectMessage::run(&VerbContext::new(&holder), args) {
        Ok(_) => Task::load(&system, &cx.agent, id),
        // The agent finished it in the meantime: it is what it became.
        Err(filebox_core::Error::AlreadyHandled { .. }) => {
            let now = Task::load(&system, &cx.agent, id)?;
            Err(A2aError::not_cancelable(id, now.state.name(cx.dialect)))
        }
        Err(e) => Err(e.into()),
    }
}

/// `ListTasks`: this agent's tasks, newest first, filtered by `contextId` and `status`, paged
/// by `pageSize` and `pageToken` (the offset as text).
pub(crate) fn list(cx: &Cx, params: &Value) -> Result<Value, A2aError> {
    let context = optional_text(params, "contextId")?;
    let status = match optional_text(params, "status")? {
        None => None,
        Some(name) => Some(State::parse(name).ok_or_else(|| {
            A2aError::invalid_params("status", format!("{name:?} is not a task state"))
        })?),
    };
    let page_size = match params.get("pageSize").and_then(Value::as_u64) {
        None | Some(0) => PAGE_SIZE,
        Some(n) => (n as usize).min(MAX_PAGE_SIZE),
    };
    let offset = match optional_text(params, "pageToken")? {
        None => 0,
        Some(token) => token
            .parse::<usize>()
            .map_err(|_| A2aError::invalid_params("pageToken", "not a token ListTasks gave"))?,
    };
    let history = history_length(params)?.or(Some(0));
    let system = cx.system()?;
    let mailbox = system.my_mailbox()?;
    let mut ids = Vec::new();
    for folder in Folder::ALL {
        for envelope in mailbox.list(folder)?.messages {
            let id = envelope.header.id().to_owned();
            if envelope.header.get(AGENT_FIELD) == Some(cx.agent.as_str()) && !ids.contains(&id) {
                ids.push(id);
            }
        }
    }
    let mut tasks = Vec::new();
    for id in ids {
        match Task::load(&system, &cx.agent, &id) {
            Ok(task) => tasks.push(task),
            // Gone between the listing and the read: skipped, as a listing does.
            Err(e) if e.code == -32001 => {}
            Err(e) => return Err(e),
        }
    }
    tasks.retain(|task| {
        context.is_none_or(|c| task.context_id == c) && status.is_none_or(|s| task.state == s)
    });
    tasks.sort_by(|a, b| b.timestamp.cmp(&a.timestamp).then(b.id.cmp(&a.id)));
    let total = tasks.len();
    let page: Vec<Value> = tasks
        .iter()
        .skip(offset)
        .take(page_size)
        .map(|task| task.to_json(cx.dialect, history))
        .collect();
    let next = offset + page.len();
    Ok(json!({
        "tasks": page,
        "nextPageToken": if next < total { next.to_string() } else { String::new() },
        "pageSize": page_size,
        "totalSize": total,
    }))
}

fn optional_text<'p>(params: &'p Value, name: &str) -> Result<Option<&'p str>, A2aError> {
    match params.get(name) {
        None | Some(Value::Null) => Ok(None),
        Some(Value::String(s)) if s.is_empty() => Ok(None),
        Some(Value::String(s)) => Ok(Some(s)),
        Some(_) => Err(A2aError::invalid_params(name, "must be a string")),
    }
}

fn required_text<'p>(params: &'p Value, name: &str) -> Result<&'p str, A2aError> {
    optional_text(params, name)?.ok_or_else(|| A2aError::invalid_params(name, "is required"))
}
