//! A remote agent's task as it answered (`SendMessage`'s result, `GetTask`'s), in either
//! dialect, read into what FileBox makes of it: its state, and the text and files of its
//! status message and artifacts (parts read by `wire.rs`, the inbound side's reader). What
//! FileBox writes of it into its own lines (the task id, the state) is checked here: an id
//! is one bounded word, a state one A2A names.

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

/// The task id of an answer that is a bare message naming no task.
pub(super) const NO_TASK: &str = "-";

/// The longest task id kept (A2A's are UUIDs).
const TASK_ID_BYTES: usize = 256;

/// A remote task, read.
#[derive(Debug, Clone, PartialEq)]
pub(super) struct RemoteTask {
    pub(super) id: String,
    pub(super) phase: Phase,
    /// The state, as A2A 0.3 spells it (for the processing history); `unknown` for a state
    /// A2A does not name.
    pub(super) state: &'static str,
    /// The status message's parts, then (completed) the artifacts' parts.
    pub(super) said: Incoming,
}

impl RemoteTask {
    /// Read a `SendMessage` result (`{"task"}` or `{"message"}` in 1.0; the task or message
    /// itself, `kind`-tagged, in 0.3) or a `GetTask` result (the task). A bare message is a
    /// finished answer: completed. Refused: an answer that is neither, or whose task id is
    /// not one word of at most [`TASK_ID_BYTES`].
    pub(super) fn parse(result: &Value) -> Result<RemoteTask, String> {
        let task = result.get("task").unwrap_or(result);
        if let Some(message) = result.get("message").or_else(|| {
            (result.get("kind").and_then(Value::as_str) == Some("message")).then_some(result)
        }) {
            let id = message
                .get("taskId")
                .and_then(Value::as_str)
                .unwrap_or(NO_TASK);
            return Ok(RemoteTask {
                id: checked_id(id)?,
                phase: Phase::Completed,
                state: "completed",
                said: parts(message.get("parts")),
            });
        }
        let id = task
            .get("id")
            .and_then(Value::as_str)
            .ok_or("the A2A agent answered neither a task nor a message")?;
        let id = checked_id(id)?;
        let status = task.get("status");
        let named = status
            .and_then(|s| s.get("state"))
            .and_then(Value::as_str)
            .unwrap_or("unknown");
        let named = named
            .trim_start_matches("TASK_STATE_")
            .to_ascii_lowercase()
            .replace('_', "-");
        let (state, phase) = match named.as_str() {
            "submitted" => ("submitted", Phase::Working),
            "working" => ("working", Phase::Working),
            "auth-required" => ("auth-required", Phase::Working),
            "input-required" => ("input-required", Phase::InputRequired),
            "completed" => ("completed", Phase::Completed),
            "failed" => ("failed", Phase::Ended),
            "rejected" => ("rejected", Phase::Ended),
            "canceled" | "cancelled" => ("canceled", Phase::Ended),
            _ => ("unknown", Phase::Working),
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
        Ok(RemoteTask {
            id,
            phase,
            state,
            said,
        })
    }
}

/// A task id FileBox writes into its processing history: one word, printable, bounded.
fn checked_id(id: &str) -> Result<String, String> {
    let fits =
        !id.is_empty() && id.len() <= TASK_ID_BYTES && id.chars().all(|c| c.is_ascii_graphic());
    if fits {
        Ok(id.to_owned())
    } else {
        Err(format!(
            "the A2A agent answered a task id FileBox does not keep ({:?}: one word of \
             printable ASCII, at most {TASK_ID_BYTES} bytes)",
            filebox_core::model_text::one_line(id, 80)
        ))
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
        let odd = json!({"id": "t4", "status": {"state": "done\n- forged line"}});
        let odd = RemoteTask::parse(&odd).unwrap();
        assert_eq!((odd.state, odd.phase), ("unknown", Phase::Working));
    }

    #[test]
    fn a_task_id_that_is_not_one_bounded_word_is_refused() {
        for id in ["t 1 turn 0", "t\n- 2026: Resolved", "", &"x".repeat(300)] {
            let task = json!({"id": id, "status": {"state": "TASK_STATE_WORKING"}});
            assert!(RemoteTask::parse(&task).is_err(), "{id:?}");
        }
    }
}
