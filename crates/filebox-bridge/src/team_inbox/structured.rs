//! The structured messages Claude Code carries as JSON in a message's `text`, told apart by
//! their `type` (a discriminated union), and the one-line description FileBox shows for each.

use serde_json::{Map, Value};

/// Every kind Claude Code 2.1.88 writes to an inbox file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Kind {
    IdleNotification,
    PermissionRequest,
    PermissionResponse,
    SandboxPermissionRequest,
    SandboxPermissionResponse,
    PlanApprovalRequest,
    PlanApprovalResponse,
    ShutdownRequest,
    ShutdownApproved,
    ShutdownRejected,
    TaskAssignment,
    TeamPermissionUpdate,
    ModeSetRequest,
}

impl Kind {
    pub const ALL: [Kind; 13] = [
        Kind::IdleNotification,
        Kind::PermissionRequest,
        Kind::PermissionResponse,
        Kind::SandboxPermissionRequest,
        Kind::SandboxPermissionResponse,
        Kind::PlanApprovalRequest,
        Kind::PlanApprovalResponse,
        Kind::ShutdownRequest,
        Kind::ShutdownApproved,
        Kind::ShutdownRejected,
        Kind::TaskAssignment,
        Kind::TeamPermissionUpdate,
        Kind::ModeSetRequest,
    ];

    /// The `type` value.
    pub fn as_str(self) -> &'static str {
        match self {
            Kind::IdleNotification => "idle_notification",
            Kind::PermissionRequest => "permission_request",
            Kind::PermissionResponse => "permission_response",
            Kind::SandboxPermissionRequest => "sandbox_permission_request",
            Kind::SandboxPermissionResponse => "sandbox_permission_response",
            Kind::PlanApprovalRequest => "plan_approval_request",
            Kind::PlanApprovalResponse => "plan_approval_response",
            Kind::ShutdownRequest => "shutdown_request",
            Kind::ShutdownApproved => "shutdown_approved",
            Kind::ShutdownRejected => "shutdown_rejected",
            Kind::TaskAssignment => "task_assignment",
            Kind::TeamPermissionUpdate => "team_permission_update",
            Kind::ModeSetRequest => "mode_set_request",
        }
    }

    fn parse(value: &str) -> Option<Kind> {
        Kind::ALL.into_iter().find(|k| k.as_str() == value)
    }

    /// Protocol messages Claude Code routes to handlers instead of the model
    /// (`isStructuredProtocolMessage`).
    pub fn is_protocol(self) -> bool {
        !matches!(
            self,
            Kind::IdleNotification | Kind::TaskAssignment | Kind::ShutdownRejected
        )
    }
}

/// A message `text` that is a structured message.
#[derive(Debug, Clone, PartialEq)]
pub struct Structured {
    pub kind: Kind,
    pub fields: Map<String, Value>,
}

impl Structured {
    /// The structured message in `text`, if it is one of the known kinds.
    pub fn parse(text: &str) -> Option<Structured> {
        if !text.trim_start().starts_with('{') {
            return None;
        }
        let Ok(Value::Object(fields)) = serde_json::from_str::<Value>(text) else {
            return None;
        };
        let kind = Kind::parse(fields.get("type")?.as_str()?)?;
        Some(Structured { kind, fields })
    }

    fn str(&self, key: &str) -> Option<&str> {
        self.fields.get(key).and_then(Value::as_str)
    }

    fn bool(&self, key: &str) -> Option<bool> {
        self.fields.get(key).and_then(Value::as_bool)
    }

    /// One line for a person: `[shutdown request] reason: done for today`.
    pub fn describe(&self) -> String {
        let field = |label: &str, key: &str| {
            self.str(key)
                .filter(|v| !v.is_empty())
                .map(|v| format!("{label}: {}", one_line(v)))
        };
        let verdict = |key: &str, yes: &str, no: &str| {
            self.bool(key)
                .map(|b| if b { yes.to_owned() } else { no.to_owned() })
        };
        let parts: Vec<Option<String>> = match self.kind {
            Kind::IdleNotification => vec![
                self.str("idleReason").map(str::to_owned),
                field("completed task", "completedTaskId"),
                field("status", "completedStatus"),
                field("failure", "failureReason"),
                field("summary", "summary"),
            ],
            Kind::PermissionRequest => vec![
                field("tool", "tool_name"),
                field("agent", "agent_id"),
                self.str("description").map(one_line),
                field("request", "request_id"),
            ],
            Kind::PermissionResponse => vec![
                self.str("subtype").map(|s| {
                    if s == "success" {
                        "allowed".to_owned()
                    } else {
                        "refused".to_owned()
                    }
                }),
                field("error", "error"),
                field("request", "request_id"),
            ],
            Kind::SandboxPermissionRequest => vec![
                self.fields
                    .get("hostPattern")
                    .and_then(|h| h.get("host"))
                    .and_then(Value::as_str)
                    .map(|h| format!("host: {h}")),
                field("worker", "workerName"),
                field("request", "requestId"),
            ],
            Kind::SandboxPermissionResponse => vec![
                field("host", "host"),
                verdict("allow", "allowed", "refused"),
                field("request", "requestId"),
            ],
            Kind::PlanApprovalRequest => {
                vec![field("plan", "planFilePath"), field("request", "requestId")]
            }
            Kind::PlanApprovalResponse => vec![
                verdict("approved", "approved", "rejected"),
                field("feedback", "feedback"),
                field("mode", "permissionMode"),
                field("request", "requestId"),
            ],
            Kind::ShutdownRequest | Kind::ShutdownRejected => {
                vec![field("reason", "reason"), field("request", "requestId")]
            }
            Kind::ShutdownApproved => vec![
                field("pane", "paneId"),
                field("backend", "backendType"),
                field("request", "requestId"),
            ],
            Kind::TaskAssignment => vec![
                self.str("taskId").map(|id| format!("task #{id}")),
                self.str("subject").map(one_line),
                field("by", "assignedBy"),
            ],
            Kind::TeamPermissionUpdate => vec![
                field("tool", "toolName"),
                field("directory", "directoryPath"),
                self.fields
                    .get("permissionUpdate")
                    .and_then(|u| u.get("behavior"))
                    .and_then(Value::as_str)
                    .map(str::to_owned),
            ],
            Kind::ModeSetRequest => vec![field("mode", "mode")],
        };
        let details: Vec<String> = parts.into_iter().flatten().collect();
        let label = self.kind.as_str().replace('_', " ");
        if details.is_empty() {
            format!("[{label}]")
        } else {
            format!("[{label}] {}", details.join(", "))
        }
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn plain_text_and_unknown_types_are_not_structured() {
        assert_eq!(Structured::parse("hello"), None);
        assert_eq!(Structured::parse("{\"type\":\"weather\"}"), None);
        assert_eq!(Structured::parse("{not json"), None);
        assert_eq!(Structured::parse("{\"type\":7}"), None);
    }

    #[test]
    fn describes_by_kind() {
        let idle = Structured::parse(
            r#"{"type":"idle_notification","from":"researcher","timestamp":"2026-04-01T10:31:00.000Z","idleReason":"available","summary":"[to tester] API docs done"}"#,
        )
        .unwrap();
        assert_eq!(idle.kind, Kind::IdleNotification);
        assert!(!idle.kind.is_protocol());
        assert_eq!(
            idle.describe(),
            "[idle notification] available, summary: [to tester] API docs done"
        );
        let plan = Structured::parse(
            r#"{"type":"plan_approval_response","requestId":"plan-1@r","approved":false,"feedback":"add tests","timestamp":"t"}"#,
        )
        .unwrap();
        assert_eq!(
            plan.describe(),
            "[plan approval response] rejected, feedback: add tests, request: plan-1@r"
        );
    }
}
