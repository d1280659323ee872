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

/// Application errors: `(code, data.kind)`, one per kind of failure a caller can act on.
const UNKNOWN_AGENT: (i64, &str) = (1001, "unknown_agent");
const NOT_FOUND: (i64, &str) = (1002, "not_found");
const AMBIGUOUS: (i64, &str) = (1003, "ambiguous");
const ALREADY_HANDLED: (i64, &str) = (1004, "already_handled");
const WRONG_STATE: (i64, &str) = (1005, "wrong_state");
const PARTIALLY_DELIVERED: (i64, &str) = (1006, "partially_delivered");
const TOO_LARGE: (i64, &str) = (1007, "too_large");
const UNREADABLE: (i64, &str) = (1008, "unreadable_message");
const UNAUTHORIZED: (i64, &str) = (1010, "unauthorized");
const FORBIDDEN: (i64, &str) = (1011, "forbidden");

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
        use filebox_core::Error;
        let message = error.to_string();
        match &error {
            Error::Invalid { what, .. } => RpcError::invalid_params(what, &message),
            Error::UnknownAgent(_) => RpcError::app(UNKNOWN_AGENT, message),
            Error::NotFound { .. } => RpcError::app(NOT_FOUND, message),
            Error::Ambiguous { .. } => RpcError::app(AMBIGUOUS, message),
            Error::AlreadyHandled { .. } => RpcError::app(ALREADY_HANDLED, message),
            Error::WrongState(_) => RpcError::app(WRONG_STATE, message),
            Error::Undelivered { .. } => RpcError::app(PARTIALLY_DELIVERED, message),
            Error::TooLarge { .. } => RpcError::app(TOO_LARGE, message),
            Error::Malformed { .. } => RpcError::app(UNREADABLE, message),
            Error::Config { .. }
            | Error::NoConfig
            | Error::NoCurrentAgent
            | Error::Index { .. }
            | Error::Io { .. } => RpcError::internal(message),
        }
    }
}

impl From<serde_json::Error> for RpcError {
    fn from(error: serde_json::Error) -> Self {
        RpcError::internal(format!("encoding the result: {error}"))
    }
}
