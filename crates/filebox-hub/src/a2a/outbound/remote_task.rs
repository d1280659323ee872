//! A remote agent's task as it answered (`SendMessage`'s result, `GetTask`'s), in either
//! dialect, read into what FileBox makes of it: its state, and the text and files of its
//! status message and artifacts (parts read by `wire.rs`, the inbound side's reader).

use serde_json::Value;

use super::super::wire::Incoming;

/// What the remote task's state means for the sender's copy.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Phase {
    /// Submitted, working (or waiting for an authorisation, or unknown): processing.
    Working,
    /// The remote asks back: its status message is a reply to the sender.
    InputRequired,
    /// Done: the artifacts are the reply.
    Completed,
    /// Failed, rejected or canceled: the copy fails with the reason.
    Ended,
}

/// A remote task, read.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RemoteTask {
    pub(super) id: String,
    pub(super) phase: Phase,
    /// The state as the remote named it (for the processing history).
    pub(super) state: String,
    /// The status message's parts, then (completed) the artifacts' parts.
    pub(super) said: Incoming,
}

impl RemoteTask {
    /// Read a `SendMessage` result (`{"task"}` or `{"message"}` in 1.0; the task or message
    /// itself, `kind`-tagged, in 0.3) or a `GetTask` result (the task). A bare message is a
    /// finished answer: completed.
    pub(super) fn parse(result: &Value) -> Option<RemoteTask> {
        let task = result.get("task").unwrap_or(result);
        if let Some(message) = result.get("message").or_else(|| {
            (result.get("kind").and_then(Value::as_str) == Some("message")).then_some(result)
        }) {
            return Some(RemoteTask {
                id: message
                    .get("taskId")
                    .and_then(Value::as_str)
                    .unwrap_or("")
                    .to_owned(),
                phase: Phase::Completed,
                state: "completed".into(),
                said: parts(message.get("parts")),
            });
        }
        let id = task.get("id").and_then(Value::as_str)?.to_owned();
        let status = task.get("status");
        let state = status
            .and_then(|s| s.get("state"))
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        let state = state
            .trim_start_matches("TASK_STATE_")
            .to_ascii_lowercase()
            .replace('_', "-");
        let phase = match state.as_str() {
            "input-required" => Phase::InputRequired,
            "completed" => Phase::Completed,
            "failed" | "rejected" | "canceled" | "cancelled" => Phase::Ended,
            _ => Phase::Working,
        };
        let mut said = parts(
            status
                .and_then(|s| s.get("message"))
                .and_then(|m| m.get("parts")),
        );
        if phase == Phase::Completed {
            for artifact in task
                .get("artifacts")
                .and_then(Value::as_array)
                .into_iter()
                .flatten()
            {
                let more = parts(artifact.get("parts"));
                said.texts.extend(more.texts);
                said.files.extend(more.files);
                said.data.extend(more.data);
            }
        }
        Some(RemoteTask {
            id,
            phase,
            state,
            said,
        })
    }
}

/// The parts of a message or artifact; a part FileBox cannot read is left out.
fn parts(parts: Option<&Value>) -> Incoming {
    let parts = parts
        .and_then(Value::as_array)
        .map(Vec::as_slice)
        .unwrap_or_default();
    Incoming::of_parts(parts)
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn a_task_of_either_dialect_is_read_with_its_words() {
        let v1 = json!({"task": {"id": "t1", "status": {"state": "TASK_STATE_INPUT_REQUIRED",
            "message": {"parts": [{"text": "which branch?"}]}}}});
        let task = RemoteTask::parse(&v1).unwrap();
        assert_eq!((task.id.as_str(), task.phase), ("t1", Phase::InputRequired));
        assert_eq!(task.said.body(), "which branch?");
        let v03 = json!({"kind": "task", "id": "t2", "status": {"state": "completed"},
            "artifacts": [{"parts": [{"kind": "text", "text": "done"}]}]});
        let task = RemoteTask::parse(&v03).unwrap();
        assert_eq!(
            (task.phase, task.said.body().as_str()),
            (Phase::Completed, "done")
        );
        let failed = json!({"id": "t3", "status": {"state": "TASK_STATE_FAILED"}});
        assert_eq!(RemoteTask::parse(&failed).unwrap().phase, Phase::Ended);
    }
}
