//! Long waits as tasks (the `io.modelcontextprotocol/tasks` extension): a client that declares
//! the extension gets a task at once for `ask_question`, `task_finish`, `work_report` and
//! `wait_for_messages`, polls `tasks/get` and may `tasks/cancel`. Clients without it keep the
//! blocking call with progress (`tools::call`).
//!
//! A task runs nothing between polls: each `tasks/get` looks once, through the same verbs the
//! blocking call runs. A question's task is its question's file (the task id names it), so it
//! outlives the connection and the server: any `filebox mcp` of the config answers for it, and
//! `tasks/cancel` withdraws the question as a cancelled call does. A wait's task claims mail
//! only when polled, and the server remembers what it returned (`finished.rs`); after a
//! restart a wait still running goes on to its deadline.

mod finished;
mod id;

use std::sync::Arc;
use std::time::Duration;

use filebox_api::verbs::{self, AskQuestion, TaskFinish, WaitForMessages, WorkReport};
use filebox_api::{Verb, VerbInfo};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolResponse, CallToolResult, CreateTaskResult, DetailedTask, GetTaskResult, JsonObject,
    Task, TaskPayload, TaskStatus,
};
use serde_json::{Value, json};
use tokio::sync::Mutex;

use crate::blocking::{self, Failure};
use crate::tools::call::{self, Call, open_question};
use finished::{Ended, Finished};
use id::TaskId;

/// How often a client should poll, in milliseconds.
const POLL_INTERVAL_MS: u64 = 500;

/// The tasks of one server, shared by its sessions (HTTP makes one handler per session).
#[derive(Debug, Clone, Default)]
pub(crate) struct Tasks {
    finished: Arc<Mutex<Finished>>,
}

/// What a verb that runs as a task waits for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Kind {
    Question,
    Wait,
}

fn kind_of(verb: &VerbInfo) -> Option<Kind> {
    match verb.name {
        AskQuestion::NAME | TaskFinish::NAME | WorkReport::NAME => Some(Kind::Question),
        WaitForMessages::NAME => Some(Kind::Wait),
        _ => None,
    }
}

/// Whether a call of `verb` becomes a task for a client that declared the extension.
pub(crate) fn runs_as_task(verb: &VerbInfo) -> bool {
    kind_of(verb).is_some()
}

impl Tasks {
    /// Start `call` (of a verb that [`runs_as_task`]) without waiting: a question is asked,
    /// mail already new is returned at once as the blocking call would (no task then).
    pub(crate) async fn start(&self, call: Call) -> Result<CallToolResponse, ErrorData> {
        let started_ms = now_ms();
        let kind = kind_of(call.verb).ok_or_else(|| {
            ErrorData::internal_error(format!("{} does not run as a task", call.verb.name), None)
        })?;
        let requested = call.args.get("timeout").and_then(Value::as_u64);
        let format = call
            .args
            .get("format")
            .and_then(Value::as_str)
            .map(str::to_owned);
        let mailroom = Arc::clone(&call.mailroom);
        let looked = call.with_timeout(0).run().await?;
        let task = match kind {
            Kind::Question => {
                let Some(id) = open_question(&looked) else {
                    return Ok(looked.into());
                };
                let timeout = verbs::answer_timeout(&mailroom, requested);
                TaskId::Question {
                    id,
                    asked_ms: started_ms,
                    deadline_ms: started_ms + millis(timeout),
                }
            }
            Kind::Wait => {
                if !is_empty_wait(&looked) {
                    return Ok(looked.into());
                }
                TaskId::Wait {
                    started_ms,
                    deadline_ms: requested
                        .map(|secs| started_ms + millis(Duration::from_secs(secs))),
                    format,
                    nonce: uuid::Uuid::new_v4().simple().to_string(),
                }
            }
        };
        let seed = task_of(&task, TaskStatus::Working, started_ms)
            .with_status_message(working_message(&task));
        Ok(CreateTaskResult::new(seed).into())
    }

    /// `tasks/get`: look once, as the blocking call would at this moment.
    pub(crate) async fn get(
        &self,
        mailroom: Arc<Mailroom>,
        task_id: &str,
    ) -> Result<GetTaskResult, ErrorData> {
        let task = parse(task_id)?;
        let now = now_ms();
        let (payload, updated_ms) = match &task {
            TaskId::Question {
                id,
                asked_ms,
                deadline_ms,
            } => {
                let waited = Duration::from_millis((now - asked_ms).max(0).unsigned_abs());
                let looked = call::look_for_answer(mailroom, id.clone(), waited).await?;
                let status = looked
                    .structured_content
                    .as_ref()
                    .and_then(|value| value["status"].as_str())
                    .unwrap_or_default()
                    .to_owned();
                let payload = match status.as_str() {
                    "withdrawn" => TaskPayload::Cancelled,
                    "open" if now < *deadline_ms && looked.is_error != Some(true) => {
                        TaskPayload::Working
                    }
                    _ => TaskPayload::Completed {
                        result: as_object(&looked)?,
                    },
                };
                (payload, now)
            }
            TaskId::Wait {
                deadline_ms,
                format,
                ..
            } => {
                let mut finished = self.finished.lock().await;
                if let Some((ended, at_ms)) = finished.get(task_id) {
                    (payload_of(ended), *at_ms)
                } else {
                    let looked = wait_once(mailroom, format.clone()).await?;
                    let timed_out = deadline_ms.is_some_and(|deadline| now >= deadline);
                    if is_empty_wait(&looked) && !timed_out {
                        (TaskPayload::Working, task.created_ms())
                    } else {
                        let ended = Ended::Completed(as_object(&looked)?);
                        let payload = payload_of(&ended);
                        finished.end(task_id, ended, now);
                        (payload, now)
                    }
                }
            }
        };
        let mut seed = task_of(&task, payload.status(), updated_ms);
        if matches!(payload, TaskPayload::Working) {
            seed = seed.with_status_message(working_message(&task));
        }
        Ok(GetTaskResult::new(DetailedTask::new(seed, payload)))
    }

    /// `tasks/cancel`: a question is withdrawn (unless its answer came first, which the next
    /// `tasks/get` returns), a wait ends with nothing.
    pub(crate) async fn cancel(
        &self,
        mailroom: Arc<Mailroom>,
        task_id: &str,
    ) -> Result<(), ErrorData> {
        match parse(task_id)? {
            TaskId::Question { id, .. } => withdraw(mailroom, id).await,
            TaskId::Wait { .. } => {
                self.finished
                    .lock()
                    .await
                    .end(task_id, Ended::Cancelled, now_ms());
                Ok(())
            }
        }
    }
}

fn parse(task_id: &str) -> Result<TaskId, ErrorData> {
    TaskId::parse(task_id).ok_or_else(|| {
        ErrorData::invalid_params(
            format!("unknown task {task_id:?}: use the taskId a tools/call returned"),
            None,
        )
    })
}

/// Whether a wait's result holds no mail (and is not an error).
fn is_empty_wait(result: &CallToolResult) -> bool {
    result.is_error != Some(true)
        && result
            .structured_content
            .as_ref()
            .and_then(|value| value["messages"].as_array())
            .is_some_and(Vec::is_empty)
}

fn payload_of(ended: &Ended) -> TaskPayload {
    match ended {
        Ended::Completed(result) => TaskPayload::Completed {
            result: result.clone(),
        },
        Ended::Cancelled => TaskPayload::Cancelled,
    }
}

fn as_object(result: &CallToolResult) -> Result<JsonObject, ErrorData> {
    match serde_json::to_value(result) {
        Ok(Value::Object(object)) => Ok(object),
        other => Err(ErrorData::internal_error(
            format!("a tool result did not encode as an object: {other:?}"),
            None,
        )),
    }
}

fn task_of(task: &TaskId, status: TaskStatus, updated_ms: i64) -> Task {
    // No ttl: a question's task lasts as long as its file.
    Task::new(
        task.to_string(),
        status,
        iso(task.created_ms()),
        iso(updated_ms),
    )
    .with_poll_interval_ms(POLL_INTERVAL_MS)
}

fn working_message(task: &TaskId) -> String {
    match task {
        TaskId::Question { id, .. } => format!("waiting for the human's answer to {id}"),
        TaskId::Wait { .. } => "waiting for new mail".to_owned(),
    }
}

fn now_ms() -> i64 {
    jiff::Timestamp::now().as_millisecond()
}

fn iso(ms: i64) -> String {
    jiff::Timestamp::from_millisecond(ms).map_or_else(|_| ms.to_string(), |ts| ts.to_string())
}

fn millis(duration: Duration) -> i64 {
    i64::try_from(duration.as_millis()).unwrap_or(i64::MAX / 2)
}

/// `wait_for_messages` looking once, in `format`.
async fn wait_once(
    mailroom: Arc<Mailroom>,
    format: Option<String>,
) -> Result<CallToolResult, ErrorData> {
    let verb = verbs::find(WaitForMessages::NAME)
        .ok_or_else(|| ErrorData::internal_error("the verb table has no wait", None))?;
    let args = match format {
        Some(format) => json!({"format": format}),
        None => json!({}),
    };
    Call::internal(mailroom, verb, args)
        .with_timeout(0)
        .run()
        .await
}

/// Withdraw question `id`, asked by the mailroom's agent.
async fn withdraw(mailroom: Arc<Mailroom>, id: String) -> Result<(), ErrorData> {
    match blocking::run((), move |()| verbs::withdraw_question(&mailroom, &id)).await {
        Ok(_) => Ok(()),
        Err(Failure::Mail(error)) => Err(ErrorData::invalid_params(
            format!("the task's question cannot be withdrawn: {error}"),
            None,
        )),
        Err(Failure::Internal(error)) => Err(error),
    }
}
