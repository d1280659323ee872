//! Tool results: a core result becomes structured content plus readable text; a core error
//! becomes an `isError` result whose text says what went wrong and what to do about it.

use filebox_core::Error;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;
use serde_json::json;

use crate::blocking::Failure;

/// `value` as structured content, with `text` as the readable rendering of it.
fn success<T: Serialize>(value: &T, text: String) -> CallToolResult {
    match serde_json::to_value(value) {
        Ok(structured) => {
            let mut result = CallToolResult::success(vec![ContentBlock::text(text)]);
            result.structured_content = Some(structured);
            result
        }
        Err(e) => failure_text(
            "encoding",
            &format!("the result could not be encoded as JSON: {e}"),
            "Report this to the human who runs FileBox.",
        ),
    }
}

/// A core call's result as a tool result, rendering a success with `text`. The core's errors
/// become `isError` results; only a failed blocking task is a protocol error.
pub(super) fn respond<T: Serialize>(
    result: Result<T, Failure>,
    text: impl FnOnce(&T) -> String,
) -> Result<CallToolResult, ErrorData> {
    match result {
        Ok(value) => {
            let rendered = text(&value);
            Ok(success(&value, rendered))
        }
        Err(Failure::Mail(error)) => {
            let (kind, hint) = advice(&error);
            Ok(failure_text(kind, &error.to_string(), hint))
        }
        Err(Failure::Internal(error)) => Err(error),
    }
}

/// A call whose arguments fit the schema but not the tool (e.g. a number out of range).
pub(super) fn invalid(message: &str) -> CallToolResult {
    failure_text(
        "invalid",
        message,
        "Correct that argument and call the tool again.",
    )
}

fn failure_text(kind: &str, message: &str, hint: &str) -> CallToolResult {
    let mut result = CallToolResult::error(vec![ContentBlock::text(format!("{message}. {hint}"))]);
    result.structured_content = Some(json!({ "error": kind, "message": message, "hint": hint }));
    result
}

/// A short name for the error and the sentence that tells the model what to do next.
fn advice(error: &Error) -> (&'static str, &'static str) {
    match error {
        Error::Invalid { .. } => ("invalid", "Correct that argument and call the tool again."),
        Error::UnknownAgent(_) => (
            "unknown_agent",
            "Call list_agents to see the agents you can write to.",
        ),
        Error::NotFound { .. } => (
            "not_found",
            "Call list_messages (folder inbox, hold, outbox, done or cancel) to find the message's id.",
        ),
        Error::Ambiguous { .. } => (
            "ambiguous",
            "Give the whole Message ID or the file name instead of the short id.",
        ),
        Error::AlreadyHandled { .. } => (
            "already_handled",
            "Nothing more to do for it; call list_messages to see what is left in your inbox.",
        ),
        Error::WrongState(_) => (
            "wrong_state",
            "Call read_message to see which folder the message is in, then choose the verb that fits.",
        ),
        Error::TooLarge { .. } => (
            "too_large",
            "Shorten the content, or split it into several messages.",
        ),
        Error::Malformed { .. } => (
            "malformed",
            "That file is not a readable FileBox message; tell the human who owns the mailbox.",
        ),
        Error::Config { .. } | Error::NoConfig | Error::NoCurrentAgent => (
            "config",
            "The FileBox configuration needs fixing by the human who runs this server.",
        ),
        // I/O, index and whatever the core adds later: retrying may help, a human can look.
        _ => (
            "io",
            "Try again; if it keeps failing, tell the human who runs FileBox.",
        ),
    }
}
