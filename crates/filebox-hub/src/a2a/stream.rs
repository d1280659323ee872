//! `SendStreamingMessage` / `message/stream` and `SubscribeToTask` / `tasks/resubscribe` as
//! server-sent events: the task first, then a status update each time the files change it,
//! in order, until it is finished or waits for the client (input-required). Driven by the
//! hub's change feed (`Hub::events`): the task is read again only when an event concerns the
//! agent's or the `system` mailbox, or events may have been missed; never on a timer.

use std::convert::Infallible;
use std::time::Duration;

use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use filebox_core::SYSTEM_MAILBOX;
use serde_json::{Value, json};
use tokio::sync::broadcast;

use super::error::A2aError;
use super::task::{State, Task};
use super::wire::Dialect;
use crate::events::HubEvent;
use crate::hub::Hub;
use crate::limits::Slot;

const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// What a stream follows.
struct Follow {
    hub: Hub,
    authorization: Option<String>,
    agent: String,
    dialect: Dialect,
    id: Value,
    receiver: broadcast::Receiver<HubEvent>,
    stop: tokio_util::sync::CancellationToken,
    /// The task as last sent; `None` before the first event.
    last: Option<Task>,
    /// Events due before the next look at the files (an artifact before its final status).
    queued: std::collections::VecDeque<Value>,
    done: bool,
    _slot: Slot,
}

/// The SSE answer: `send` says whether the call delivers a message first (a streaming send)
/// or follows a task that exists (a subscription).
pub(super) async fn answer(
    hub: Hub,
    authorization: Option<String>,
    agent: String,
    id: Value,
    send: bool,
    dialect: Dialect,
    params: Value,
) -> Response {
    let slot = match hub.streams().enter() {
        Ok(slot) => slot,
        Err(full) => return one_error(&id, &A2aError::invalid_request(full.to_string())),
    };
    // Subscribed before the send, so no change after it is missed.
    let receiver = hub.events().live();
    let first = {
        let (hub, authorization, agent) = (hub.clone(), authorization.clone(), agent.clone());
        tokio::task::spawn_blocking(move || {
            let cx = super::methods::Cx::open(&hub, authorization.as_deref(), &agent, dialect)?;
            if send {
                return super::push::send_keeping(&cx, &params);
            }
            let task = super::methods::get(&cx, &params)?;
            if task.state.is_terminal() {
                return Err(A2aError::unsupported(format!(
                    "task {} is {}: there is nothing left to follow (GetTask reads it)",
                    task.id,
                    task.state.name(dialect)
                )));
            }
            Ok(task)
        })
        .await
        .unwrap_or_else(|panic| Err(A2aError::internal(format!("the call failed: {panic}"))))
    };
    let task = match first {
        Ok(task) => task,
        Err(error) => return one_error(&id, &error),
    };
    let mut follow = Follow {
        stop: hub.sessions(),
        hub,
        authorization,
        agent,
        dialect,
        id,
        receiver,
        last: None,
        queued: Default::default(),
        done: false,
        _slot: slot,
    };
    let opening = follow.result(match dialect {
        Dialect::V1 => json!({ "task": task.to_json(dialect, None) }),
        Dialect::V03 => task.to_json(dialect, None),
    });
    follow.done = task.state.ends_stream();
    follow.last = Some(task);
    let events = futures_util::stream::unfold(
        (Some(opening), follow),
        |(opening, mut follow)| async move {
            let event = match opening {
                Some(event) => event,
                None => follow.next().await?,
            };
            Some((Ok::<_, Infallible>(sse(&event)), (None, follow)))
        },
    );
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response()
}

fn sse(data: &Value) -> Event {
    Event::default().data(data.to_string())
}

/// A stream of one event: the error (A2A clients read a stream's errors from its events).
fn one_error(id: &Value, error: &A2aError) -> Response {
    let event = sse(&error.answer(id));
    Sse::new(futures_util::stream::iter([Ok::<_, Infallible>(event)])).into_response()
}

impl Follow {
    fn result(&self, result: Value) -> Value {
        json!({ "jsonrpc": "2.0", "id": self.id, "result": result })
    }

    /// The next event to send, or `None` once the task is finished or the hub stops.
    async fn next(&mut self) -> Option<Value> {
        loop {
            if let Some(event) = self.queued.pop_front() {
                return Some(event);
            }
            if self.done {
                return None;
            }
            let relevant = tokio::select! {
                _ = self.stop.cancelled() => return None,
                received = self.receiver.recv() => match received {
                    Ok(event) => event.is_resync()
                        || event.agent == self.agent
                        || event.agent == SYSTEM_MAILBOX,
                    Err(broadcast::error::RecvError::Lagged(_)) => true,
                    Err(broadcast::error::RecvError::Closed) => return None,
                },
            };
            if relevant {
                self.look().await;
            }
        }
    }

    /// Read the task again; queue an update if it changed.
    async fn look(&mut self) {
        let Some(last) = self.last.clone() else {
            return;
        };
        let (hub, authorization, agent, dialect) = (
            self.hub.clone(),
            self.authorization.clone(),
            self.agent.clone(),
            self.dialect,
        );
        let now = tokio::task::spawn_blocking(move || {
            let cx = super::methods::Cx::open(&hub, authorization.as_deref(), &agent, dialect)?;
            super::methods::get(&cx, &json!({ "id": last.id }))
        })
        .await
        .unwrap_or_else(|panic| Err(A2aError::internal(format!("the look failed: {panic}"))));
        let task = match now {
            Ok(task) => task,
            Err(error) => {
                // No longer visible to this caller, or gone: the stream ends with the error.
                self.queued.push_back(error.answer(&self.id));
                self.done = true;
                return;
            }
        };
        if task.state == last.state && task.status_message == last.status_message {
            return;
        }
        let final_event = task.state.ends_stream();
        if task.state == State::Completed {
            for artifact in &task.artifacts {
                let update = self.artifact_update(&task, artifact);
                self.queued.push_back(self.result(update));
            }
        }
        let status = task.to_json(self.dialect, Some(0))["status"].clone();
        let update = match self.dialect {
            Dialect::V1 => json!({ "statusUpdate": {
                "taskId": task.id, "contextId": task.context_id, "status": status,
            } }),
            Dialect::V03 => json!({
                "kind": "status-update", "taskId": task.id, "contextId": task.context_id,
                "status": status, "final": final_event,
            }),
        };
        self.queued.push_back(self.result(update));
        self.done = final_event;
        self.last = Some(task);
    }

    fn artifact_update(&self, task: &Task, artifact: &super::wire::Artifact) -> Value {
        let artifact = self.dialect.artifact(artifact);
        match self.dialect {
            Dialect::V1 => json!({ "artifactUpdate": {
                "taskId": task.id, "contextId": task.context_id, "artifact": artifact,
                "lastChunk": true,
            } }),
            Dialect::V03 => json!({
                "kind": "artifact-update", "taskId": task.id, "contextId": task.context_id,
                "artifact": artifact, "lastChunk": true,
            }),
        }
    }
}
