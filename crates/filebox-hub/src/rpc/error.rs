//! JSON-RPC errors: the protocol's codes, and an application code with `data.kind` for each
//! kind of domain failure, so a program can act on it without parsing the message.

use serde::Serialize;
use serde_json::{Value, json};

/// Invalid JSON was received.
pub(crate) const PARSE_ERROR: i64 = -32700;
/// The JSON sent is not a valid request object.
pub(crate) const INVALID_REQUEST: i64 = -32600;
/// The method does not exist.
pub(crate) const METHOD_NOT_FOUND: i64 = -32601;
/// Invalid method parameters.
pub(crate) const INVALID_PARAMS: i64 = -32602;
/// A failure of the hub itself (I/O, a broken config).
pub(crate) const INTERNAL_ERROR: i64 = -32603;

/// A JSON-RPC error object.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct RpcError {
    pub(crate) code: i64,
    pub(crate) message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) data: Option<Value>,
}

/// The application error code of a domain failure; `data.kind` names it
/// (`filebox_api::advice::kind`) and `data.advice` says what to do.
fn app_code(error: &filebox_core::Error) -> i64 {
    use filebox_core::Error;
    match error {
        Error::UnknownAgent(_) => 1001,
        Error::NotFound { .. } => 1002,
        Error::Ambiguous { .. } => 1003,
        Error::AlreadyHandled { .. } => 1004,
        Error::NotInThread { .. } => 1005,
        Error::NoReplyTarget { .. } => 1006,
        Error::NotSent { .. } => 1007,
        Error::Undelivered { .. } => 1008,
        Error::TooLarge { .. } | Error::FieldTooLong { .. } => 1009,
        Error::Malformed { .. } => 1010,
        Error::Foreign { .. } => 1011,
        Error::NotMine { .. } => 1012,
        Error::NotParticipant { .. } => 1013,
        Error::KeyReused { .. } => 1014,
        Error::Unapproved { .. } => 1015,
        Error::Invalid { .. } => INVALID_PARAMS,
        Error::Config { .. }
        | Error::NoConfig
        | Error::NoCurrentAgent
        | Error::Index { .. }
        | Error::Io { .. } => INTERNAL_ERROR,
    }
}

/// No token, or an unknown one, for an agent that has a token.
const UNAUTHORIZED: (i64, &str) = (1020, "unauthorized");
/// A token used for another agent's mailbox or thread.
const FORBIDDEN: (i64, &str) = (1021, "forbidden");
/// The hub is at its bound for this kind of call (waiting calls): try again later.
const BUSY: (i64, &str) = (1022, "busy");
/// A batch's answer reached its bound: this call was not run.
const ANSWER_TOO_LARGE: (i64, &str) = (1023, "answer_too_large");

impl RpcError {
    fn new(code: i64, message: impl Into<String>, data: Option<Value>) -> Self {
        RpcError {
            code,
            message: message.into(),
            data,
        }
    }

    fn app((code, kind): (i64, &str), message: impl Into<String>) -> Self {
        RpcError::new(code, message, Some(json!({ "kind": kind })))
    }

    pub(crate) fn parse(reason: impl std::fmt::Display) -> Self {
        RpcError::new(PARSE_ERROR, format!("parse error: {reason}"), None)
    }

    pub(crate) fn invalid_request(reason: impl Into<String>) -> Self {
        RpcError::new(INVALID_REQUEST, reason, None)
    }

    pub(crate) fn method_not_found(method: &str) -> Self {
        RpcError::new(
            METHOD_NOT_FOUND,
            format!("no method {method:?} (rpc.discover lists them)"),
            None,
        )
    }

    /// Bad params, naming the field (`field` is a path such as `to[0]`, or `.` for the whole).
    pub(crate) fn invalid_params(field: &str, reason: impl std::fmt::Display) -> Self {
        RpcError::new(
            INVALID_PARAMS,
            format!("invalid params: {field}: {reason}"),
            Some(json!({ "kind": "invalid_params", "field": field })),
        )
    }

    /// No bearer token, or one the config does not know, for an agent that has a token.
    pub(crate) fn unauthorized(message: impl Into<String>) -> Self {
        RpcError::app(UNAUTHORIZED, message)
    }

    /// A token used for another agent's mailbox.
    pub(crate) fn forbidden(message: impl Into<String>) -> Self {
        RpcError::app(FORBIDDEN, message)
    }

    /// Too many calls of this kind are under way (`full` says which bound): retry later.
    pub(crate) fn busy(full: crate::limits::Full) -> Self {
        RpcError::app(BUSY, full.to_string())
    }

    /// A call of a batch whose answer already holds `bound` bytes: it was not run.
    pub(crate) fn answer_too_large(bound: usize) -> Self {
        RpcError::app(
            ANSWER_TOO_LARGE,
            format!(
                "not run: the batch's answer grew past {} MiB before this call; send it again \
                 in a smaller batch",
                bound >> 20
            ),
        )
    }

    /// Whether this is the missing or unknown token error (HTTP answers it with 401).
    pub(crate) fn is_unauthorized(&self) -> bool {
        self.code == UNAUTHORIZED.0
    }

    pub(crate) fn internal(message: impl std::fmt::Display) -> Self {
        RpcError::new(INTERNAL_ERROR, message.to_string(), None)
    }
}

impl From<filebox_core::Error> for RpcError {
    fn from(error: filebox_core::Error) -> Self {
        let mut data = json!({
            "kind": filebox_api::advice::kind(&error),
            "advice": filebox_api::advice::advice(&error),
        });
        if let filebox_core::Error::Invalid { what, .. } = &error {
            data["field"] = json!(what);
        }
        RpcError::new(app_code(&error), error.to_string(), Some(data))
    }
}

/// A refusal of the access policy: 401-like when the caller did not prove who it is, 403-like
/// when it proved it is someone else; an unknown agent is the domain's error.
impl From<filebox_api::access::Denied> for RpcError {
    fn from(denied: filebox_api::access::Denied) -> Self {
        use filebox_api::access::Denied;
        match denied {
            Denied::Agent(error) => error.into(),
            denied if denied.is_unauthenticated() => RpcError::unauthorized(denied.to_string()),
            denied => RpcError::forbidden(denied.to_string()),
        }
    }
}

/// A verb called by name: arguments that do not fit, or the verb's own failure.
impl From<filebox_api::CallError> for RpcError {
    fn from(error: filebox_api::CallError) -> Self {
        use filebox_api::CallError;
        match error {
            CallError::UnknownVerb(name) => RpcError::method_not_found(&name),
            CallError::InvalidArguments { field, message, .. } => {
                RpcError::invalid_params(&field, message)
            }
            CallError::Failed(error) => error.into(),
            error @ CallError::Unencodable { .. } => RpcError::internal(error),
        }
    }
}

impl From<serde_json::Error> for RpcError {
    fn from(error: serde_json::Error) -> Self {
        RpcError::internal(format!("encoding the result: {error}"))
    }
}
