//! Task ids that carry a task's whole state beside the files, so any server process can answer
//! for a task another one created: a question's task names the question's Message ID, when it
//! was asked and when its wait ends; a wait's task when it started, when it ends, its format
//! and a nonce. Opaque to clients (the spec says so); checked when read back.

use std::fmt;

/// What a task waits for.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum TaskId {
    /// The answer to question `id` (an `ASK` or `RPT` I sent), asked at `asked_ms`, its wait
    /// ending at `deadline_ms` as the blocking call's timeout would.
    Question {
        id: String,
        asked_ms: i64,
        deadline_ms: i64,
    },
    /// New mail in my inbox, from `started_ms` until `deadline_ms` (none: no limit), shown
    /// in `format` (`wait_for_messages`' argument, when given).
    Wait {
        started_ms: i64,
        deadline_ms: Option<i64>,
        format: Option<String>,
        nonce: String,
    },
}

const QUESTION: &str = "question";
const WAIT: &str = "wait";
const NONE: &str = "-";

impl TaskId {
    /// When the task was created, in Unix milliseconds.
    pub(super) fn created_ms(&self) -> i64 {
        match self {
            TaskId::Question { asked_ms, .. } => *asked_ms,
            TaskId::Wait { started_ms, .. } => *started_ms,
        }
    }

    /// Read a task id back; `None` for anything this server did not make.
    pub(super) fn parse(text: &str) -> Option<TaskId> {
        let parts: Vec<&str> = text.split(':').collect();
        match parts.as_slice() {
            [QUESTION, id, asked, deadline] if !id.is_empty() => Some(TaskId::Question {
                id: (*id).to_owned(),
                asked_ms: asked.parse().ok()?,
                deadline_ms: deadline.parse().ok()?,
            }),
            [WAIT, started, deadline, format, nonce] if !nonce.is_empty() => Some(TaskId::Wait {
                started_ms: started.parse().ok()?,
                deadline_ms: optional(deadline).map(str::parse).transpose().ok()?,
                format: optional(format).map(str::to_owned),
                nonce: (*nonce).to_owned(),
            }),
            _ => None,
        }
    }
}

fn optional(part: &str) -> Option<&str> {
    (part != NONE).then_some(part)
}

impl fmt::Display for TaskId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            TaskId::Question {
                id,
                asked_ms,
                deadline_ms,
            } => write!(f, "{QUESTION}:{id}:{asked_ms}:{deadline_ms}"),
            TaskId::Wait {
                started_ms,
                deadline_ms,
                format,
                nonce,
            } => {
                let deadline = deadline_ms.map_or(NONE.to_owned(), |ms| ms.to_string());
                let format = format.as_deref().unwrap_or(NONE);
                write!(f, "{WAIT}:{started_ms}:{deadline}:{format}:{nonce}")
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ids_read_back_as_written_and_foreign_ones_are_refused() {
        let ids = [
            TaskId::Question {
                id: "60bd0e69-1111-4222-8333-444455556666".into(),
                asked_ms: 1_764_000_000_000,
                deadline_ms: 1_764_000_600_000,
            },
            TaskId::Wait {
                started_ms: 5,
                deadline_ms: None,
                format: Some("xml".into()),
                nonce: "n1".into(),
            },
            TaskId::Wait {
                started_ms: 5,
                deadline_ms: Some(9),
                format: None,
                nonce: "n2".into(),
            },
        ];
        for id in ids {
            assert_eq!(TaskId::parse(&id.to_string()), Some(id));
        }
        for foreign in [
            "",
            "question::1:2",
            "question:x:a:2",
            "wait:1:2:-",
            "task-1",
        ] {
            assert_eq!(TaskId::parse(foreign), None, "{foreign}");
        }
    }
}
