//! Tool results: a core result becomes structured content plus readable text; a core error
//! becomes an `isError` result whose text says what went wrong and what to do about it.

use filebox_core::Error;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};
use serde::Serialize;

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
        Err(Failure::Mail(error)) => Ok(failure_text(&error.to_string(), advice(&error))),
        Err(Failure::Internal(error)) => Err(error),
    }
}

/// An error result: text only. Structured content would have to match the tool's output
/// schema (the TypeScript SDK validates it even on errors), and a sentence is what a model reads.
fn failure_text(message: &str, hint: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!("{message}. {hint}"))])
}

const FIX_ARGUMENT: &str = "Correct that argument and call the tool again.";

/// The sentence that tells the model what to do next.
fn advice(error: &Error) -> &'static str {
    match error {
        Error::Invalid { .. } => FIX_ARGUMENT,
        Error::UnknownAgent(_) => "Call list_agents to see the agents you can write to.",
        Error::NotFound { .. } => {
            "Call list_messages (folder inbox, hold, outbox, done or cancel) to find the message's id."
        }
        Error::Ambiguous { .. } => {
            "Give the whole Message ID or the file name instead of the short id."
        }
        Error::AlreadyHandled { .. } => {
            "Nothing more to do for it; call list_messages to see what is left in your inbox."
        }
        Error::WrongState(_) => {
            "Call read_message to see which folder the message is in, then choose the verb that fits."
        }
        Error::TooLarge { .. } => "Shorten the content, or split it into several messages.",
        Error::Malformed { .. } => {
            "That file is not a readable FileBox message; tell the human who owns the mailbox."
        }
        Error::Config { .. } | Error::NoConfig | Error::NoCurrentAgent => {
            "The FileBox configuration needs fixing by the human who runs this server."
        }
        // I/O, index and whatever the core adds later: retrying may help, a human can look.
        _ => "Try again; if it keeps failing, tell the human who runs FileBox.",
    }
}
