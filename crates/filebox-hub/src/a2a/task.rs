//! A task is a message the hub delivered for an A2A client, and its state is derived from the
//! files like every other status: the sender's copy (the hub's `system` mailbox) and the
//! agent's copy say where the message stands.
//!
//! | the files                                              | task state      |
//! |--------------------------------------------------------|-----------------|
//! | the agent's copy in `inbox/`, unread                   | submitted       |
//! | the agent's copy read (a receipt), or in `hold/`       | working         |
//! | the agent replied: the file came back to `system`'s inbox | input-required (the reply as status message) |
//! | the agent's copy in `done/`                            | completed (the resolution as an artifact) |
//! | the agent's copy in `cancel/`                          | rejected (the reason as status message)   |
//! | a copy in `cancel/` whose last Processing History line is [`CANCELED`] | canceled |

use filebox_core::message::{FileName, field};
use filebox_core::{
    AgentId, Envelope, Folder, Mailbox, Mailroom, Message, MessageRef, copy_status,
};
use serde_json::{Value, json};

use super::error::A2aError;
use super::wire::{Artifact, Dialect, Role, Turn};

/// Header fields a message delivered through A2A carries: the agent it was for (its endpoint),
/// the client's `messageId` of the first message, and who called.
pub(crate) const AGENT_FIELD: &str = "A2A Agent";
pub(crate) const MESSAGE_ID_FIELD: &str = "A2A Message ID";
pub(crate) const CALLER_FIELD: &str = "A2A Caller";

/// The reason a `CancelTask` writes in the Processing History; the state reads it back.
pub(crate) const CANCELED: &str = "canceled by the A2A client (CancelTask)";

/// A task's state (A2A's `TaskState`, the ones a mailbox can be in).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum State {
    Submitted,
    Working,
    InputRequired,
    Completed,
    Rejected,
    Canceled,
}

impl State {
    pub(crate) fn name(self, dialect: Dialect) -> &'static str {
        match (dialect, self) {
            (Dialect::V1, State::Submitted) => "TASK_STATE_SUBMITTED",
            (Dialect::V1, State::Working) => "TASK_STATE_WORKING",
            (Dialect::V1, State::InputRequired) => "TASK_STATE_INPUT_REQUIRED",
            (Dialect::V1, State::Completed) => "TASK_STATE_COMPLETED",
            (Dialect::V1, State::Rejected) => "TASK_STATE_REJECTED",
            (Dialect::V1, State::Canceled) => "TASK_STATE_CANCELED",
            (Dialect::V03, State::Submitted) => "submitted",
            (Dialect::V03, State::Working) => "working",
            (Dialect::V03, State::InputRequired) => "input-required",
            (Dialect::V03, State::Completed) => "completed",
            (Dialect::V03, State::Rejected) => "rejected",
            (Dialect::V03, State::Canceled) => "canceled",
        }
    }

    /// A state given by name in either dialect (`ListTasks`' filter).
    pub(crate) fn parse(name: &str) -> Option<State> {
        [
            State::Submitted,
            State::Working,
            State::InputRequired,
            State::Completed,
            State::Rejected,
            State::Canceled,
        ]
        .into_iter()
        .find(|s| s.name(Dialect::V1) == name || s.name(Dialect::V03) == name)
    }

    /// No further message changes it.
    pub(crate) fn is_terminal(self) -> bool {
        matches!(self, State::Completed | State::Rejected | State::Canceled)
    }

    /// A stream of the task ends here: finished, or waiting for the client.
    pub(crate) fn ends_stream(self) -> bool {
        self.is_terminal() || self == State::InputRequired
    }
}

/// A task as the files say it is now.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Task {
    pub(crate) id: String,
    pub(crate) context_id: String,
    pub(crate) state: State,
    pub(crate) status_message: Option<Turn>,
    pub(crate) timestamp: String,
    pub(crate) artifacts: Vec<Artifact>,
    pub(crate) history: Vec<Turn>,
}

impl Task {
    /// Task `id` of `agent`, as `system` (the hub's mailbox that sent it) sees it; not found
    /// when it is not a message delivered through A2A to this agent.
    pub(crate) fn load(system: &Mailroom, agent: &AgentId, id: &str) -> Result<Task, A2aError> {
        let reference = MessageRef::Id(id.to_owned());
        Task::load_with(system, agent, id, |mine| {
            mine.speaking_copy(&reference, &Folder::ALL)
        })
    }

    /// [`Task::load`] for a task whose file name is known (a send's receipt names it): its
    /// copies are looked for under that name, an open per folder, before by id.
    pub(crate) fn load_named(
        system: &Mailroom,
        agent: &AgentId,
        id: &str,
        name: &FileName,
    ) -> Result<Task, A2aError> {
        Task::load_with(system, agent, id, |mine| {
            mine.speaking_copy_named(id, name, &Folder::ALL)
        })
    }

    /// A task just delivered, from the copy its send wrote: the agent's copy holds the same
    /// bytes, in its inbox, unread.
    pub(crate) fn delivered(message: &Message, agent: &AgentId) -> Task {
        Task::from_message(State::Submitted, message, agent)
    }

    /// [`Task::load`] with `system`'s own copy found by `speaking`.
    fn load_with(
        system: &Mailroom,
        agent: &AgentId,
        id: &str,
        speaking: impl FnOnce(&Mailbox) -> filebox_core::Result<(Envelope, Message)>,
    ) -> Result<Task, A2aError> {
        let not_found = || A2aError::task_not_found(id);
        let mine = system.my_mailbox()?;
        let (envelope, message) = match speaking(&mine) {
            Ok(found) => found,
            Err(filebox_core::Error::NotFound { .. }) => return Err(not_found()),
            Err(e) => return Err(e.into()),
        };
        if envelope.header.get(AGENT_FIELD) != Some(agent.as_str()) {
            return Err(not_found());
        }
        // The agent's copy, when the file is not (back) in the hub's own hands.
        let theirs = match envelope.folder {
            Folder::Outbox => match system.mailbox_to_read(agent)?.speaking_copy_named(
                envelope.header.id(),
                &envelope.file,
                &Folder::ALL,
            ) {
                Ok(found) => Some(found),
                Err(filebox_core::Error::NotFound { .. }) => None,
                Err(e) => return Err(e.into()),
            },
            _ => None,
        };
        let (state, latest) = match &theirs {
            Some((copy, message)) => (
                state_of_agent_copy(copy.folder, copy, message, agent),
                message,
            ),
            None => (state_of_own_copy(envelope.folder, &message), &message),
        };
        Ok(Task::from_message(state, latest, agent))
    }

    fn from_message(state: State, message: &Message, agent: &AgentId) -> Task {
        let header = &message.header;
        let id = header.id().to_owned();
        let context_id = header.thread_id();
        let first = Turn {
            message_id: header.get(MESSAGE_ID_FIELD).unwrap_or(&id).to_owned(),
            role: Role::User,
            text: message.body.clone(),
        };
        let history: Vec<Turn> = std::iter::once(first)
            .chain(
                message
                    .conversation
                    .iter()
                    .enumerate()
                    .map(|(n, entry)| Turn {
                        message_id: format!("{id}-{}", n + 1),
                        role: if entry.from == agent.as_str() {
                            Role::Agent
                        } else {
                            Role::User
                        },
                        text: entry.body.clone(),
                    }),
            )
            .collect();
        let last_line = message.processing.last();
        let status_message = match state {
            State::InputRequired => history.last().filter(|t| t.role == Role::Agent).cloned(),
            State::Rejected | State::Canceled => last_line.map(|line| Turn {
                message_id: format!("{id}-status"),
                role: Role::Agent,
                text: line.details.clone(),
            }),
            _ => None,
        };
        let artifacts = match (state, last_line) {
            (State::Completed, Some(line)) if !line.details.trim().is_empty() => vec![Artifact {
                id: format!("{id}-resolution"),
                name: "resolution".into(),
                text: line.details.clone(),
            }],
            _ => Vec::new(),
        };
        let timestamp = last_line
            .map(|line| line.timestamp.clone())
            .or_else(|| message.conversation.last().map(|c| c.timestamp.clone()))
            .unwrap_or_else(|| header.get(field::TIMESTAMP).unwrap_or_default().to_owned());
        Task {
            id,
            context_id,
            state,
            status_message,
            timestamp,
            artifacts,
            history,
        }
    }

    /// The task in `dialect`'s shape, with at most `history` messages of its history (the
    /// newest; `None`: all).
    pub(crate) fn to_json(&self, dialect: Dialect, history: Option<usize>) -> Value {
        let mut status = json!({ "state": self.state.name(dialect) });
        if let Some(turn) = &self.status_message {
            status["message"] = dialect.message(turn, &self.id, &self.context_id);
        }
        if let Some(time) = a2a_timestamp(&self.timestamp) {
            status["timestamp"] = json!(time);
        }
        let skip = history.map_or(0, |keep| self.history.len().saturating_sub(keep));
        let mut task = json!({
            "id": self.id,
            "contextId": self.context_id,
            "status": status,
            "history": self.history[skip..]
                .iter()
                .map(|turn| dialect.message(turn, &self.id, &self.context_id))
                .collect::<Vec<_>>(),
        });
        if !self.artifacts.is_empty() {
            task["artifacts"] = self.artifacts.iter().map(|a| dialect.artifact(a)).collect();
        }
        if dialect == Dialect::V03 {
            task["kind"] = json!("task");
        }
        task
    }
}

/// The state while the agent holds the file: its copy's folder, a read receipt, and for
/// `cancel/` whose hand moved it.
fn state_of_agent_copy(
    folder: Folder,
    copy: &Envelope,
    message: &Message,
    agent: &AgentId,
) -> State {
    match folder {
        Folder::Inbox => match copy_status(copy, message, agent) {
            filebox_core::Status::Read => State::Working,
            _ => State::Submitted,
        },
        Folder::Hold => State::Working,
        Folder::Done => State::Completed,
        Folder::Cancel if canceled(message) => State::Canceled,
        Folder::Cancel => State::Rejected,
        // The agent's outbox copy of its reply speaks only while the file travels back.
        Folder::Outbox => State::InputRequired,
    }
}

/// The state once the file came back to the hub's `system` mailbox (the agent replied), or
/// the client canceled it there.
fn state_of_own_copy(folder: Folder, message: &Message) -> State {
    match folder {
        Folder::Cancel if canceled(message) => State::Canceled,
        Folder::Cancel => State::Rejected,
        Folder::Done => State::Completed,
        _ => State::InputRequired,
    }
}

fn canceled(message: &Message) -> bool {
    message
        .processing
        .last()
        .is_some_and(|line| line.details.contains(CANCELED))
}

/// A FileBox timestamp (ISO 8601 UTC, `…Z`) is already what A2A writes; anything else is left
/// out rather than sent malformed.
fn a2a_timestamp(time: &str) -> Option<&str> {
    (time.len() >= 20 && time.ends_with('Z') && time.as_bytes()[10] == b'T').then_some(time)
}
