//! A2A's JSON-RPC errors: the protocol's own codes (specification §5.4: task not found
//! -32001, not cancelable -32002, unsupported operation -32004, no extended card -32007) with
//! a `google.rpc.ErrorInfo` detail naming the reason, and the hub's
//! JSON-RPC errors (malformed calls, refusals of the access policy, the core's failures).

use serde::Serialize;
use serde_json::{Value, json};

use crate::rpc::RpcError;

const TASK_NOT_FOUND: (i64, &str) = (-32001, "TASK_NOT_FOUND");
const TASK_NOT_CANCELABLE: (i64, &str) = (-32002, "TASK_NOT_CANCELABLE");
const UNSUPPORTED_OPERATION: (i64, &str) = (-32004, "UNSUPPORTED_OPERATION");
const EXTENDED_CARD_NOT_CONFIGURED: (i64, &str) = (-32007, "EXTENDED_AGENT_CARD_NOT_CONFIGURED");

/// The most of a client's text an error repeats: enough to recognize it, never a megabyte back.
const SHOWN_CHARS: usize = 80;

/// `text` as an error names it: whole, or its first [`SHOWN_CHARS`] characters and `…`.
pub(crate) fn shown(text: &str) -> String {
    match text.char_indices().nth(SHOWN_CHARS) {
        Some((cut, _)) => format!("{}…", &text[..cut]),
        None => text.to_owned(),
    }
}

/// A JSON-RPC error object as an A2A client reads it.
#[derive(Debug, Clone, PartialEq, Serialize)]
pub(crate) struct A2aError {
    pub(crate) code: i64,
    pub(crate) message: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) data: Option<Value>,
    /// Whether the caller did not prove who it is (HTTP 401).
    #[serde(skip)]
    pub(crate) unauthorized: bool,
}

impl A2aError {
    fn a2a((code, reason): (i64, &str), message: String) -> A2aError {
        A2aError {
            code,
            message,
            data: Some(json!([{
                "@type": "type.googleapis.com/google.rpc.ErrorInfo",
                "reason": reason,
                "domain": "a2a-protocol.org",
            }])),
            unauthorized: false,
        }
    }

    pub(crate) fn task_not_found(id: &str) -> A2aError {
        A2aError::a2a(
            TASK_NOT_FOUND,
            format!(
                "no task {:?} for this agent (ListTasks lists them)",
                shown(id)
            ),
        )
    }

    pub(crate) fn not_cancelable(id: &str, state: &str) -> A2aError {
        A2aError::a2a(
            TASK_NOT_CANCELABLE,
            format!("task {id} is {state}: only a task that is not finished can be canceled"),
        )
    }

    pub(crate) fn extended_card_not_configured() -> A2aError {
        A2aError::a2a(
            EXTENDED_CARD_NOT_CONFIGURED,
            "an agent's card is the whole card: there is no extended one".into(),
        )
    }

    /// A method A2A does not have (the `/rpc` methods are not served here), named briefly.
    pub(crate) fn method_not_found(name: &str) -> A2aError {
        let name = shown(name);
        A2aError {
            message: format!(
                "no A2A method {name:?}: an agent's endpoint answers A2A 1.0's methods \
                 (SendMessage, GetTask, ListTasks, CancelTask, SubscribeToTask, ...) and 0.3's \
                 (message/send, tasks/get, ...)"
            ),
            ..RpcError::method_not_found(&name).into()
        }
    }

    pub(crate) fn unsupported(message: impl Into<String>) -> A2aError {
        A2aError::a2a(UNSUPPORTED_OPERATION, message.into())
    }

    pub(crate) fn invalid_params(field: &str, reason: impl std::fmt::Display) -> A2aError {
        RpcError::invalid_params(field, reason).into()
    }

    pub(crate) fn invalid_request(reason: impl Into<String>) -> A2aError {
        RpcError::invalid_request(reason).into()
    }

    pub(crate) fn internal(reason: impl std::fmt::Display) -> A2aError {
        RpcError::internal(reason).into()
    }

    /// The JSON-RPC answer carrying this error.
    pub(crate) fn answer(&self, id: &Value) -> Value {
        json!({ "jsonrpc": "2.0", "id": id, "error": self })
    }
}

impl From<RpcError> for A2aError {
    fn from(error: RpcError) -> A2aError {
        A2aError {
            unauthorized: error.is_unauthorized(),
            code: error.code,
            message: error.message,
            data: error.data,
        }
    }
}

impl From<filebox_core::Error> for A2aError {
    fn from(error: filebox_core::Error) -> A2aError {
        match error {
            // An attachment or body over the config's bounds is a bad part, not a hub failure.
            error @ (filebox_core::Error::TooLarge { .. }
            | filebox_core::Error::FieldTooLong { .. }) => {
                A2aError::invalid_params("message.parts", error)
            }
            // The key is the hub's hash of the messageId (`methods::message_key`): named as the
            // client knows it.
            filebox_core::Error::KeyReused { id, .. } => A2aError::invalid_params(
                "message.messageId",
                format!(
                    "was already used for another message (task {id}); nothing was sent: give \
                     this message a new messageId"
                ),
            ),
            error => RpcError::from(error).into(),
        }
    }
}

impl From<filebox_api::access::Denied> for A2aError {
    fn from(denied: filebox_api::access::Denied) -> A2aError {
        RpcError::from(denied).into()
    }
}

impl From<filebox_api::CallError> for A2aError {
    fn from(error: filebox_api::CallError) -> A2aError {
        match error {
            filebox_api::CallError::Failed(error) => error.into(),
            error => RpcError::from(error).into(),
        }
    }
}
