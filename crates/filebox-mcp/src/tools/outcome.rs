//! A verb's reply as a tool result: its text (with the warnings), and structured content unless
//! the text is the whole answer; a failed verb becomes an `isError` result whose text says what
//! went wrong and what to do.

use filebox_api::{CallError, Reply, VerbInfo, advice, text_with_warnings};
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};
use tokio::task::JoinError;

/// What a verb's tool result carries beside its text.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Shape {
    /// The verb's value as structured content, matching the tool's output schema.
    Structured,
    /// The text alone ([`filebox_api::Verb::ANSWER_IS_TEXT`]): the hosts would hand the model
    /// the structure instead of the text.
    TextOnly,
}

impl Shape {
    pub(crate) fn of(verb: &VerbInfo) -> Shape {
        if verb.answer_is_text {
            Shape::TextOnly
        } else {
            Shape::Structured
        }
    }
}

/// The tool result for a verb call that ran on a blocking thread. Only an unknown tool or a
/// failed thread is a protocol error.
/// `attached` are further content blocks after the text (a human's answer's files).
pub(super) fn respond(
    shape: Shape,
    result: Result<(Result<Reply, CallError>, Vec<ContentBlock>), JoinError>,
) -> Result<CallToolResult, ErrorData> {
    let (reply, attached) = result
        .map_err(|e| ErrorData::internal_error(format!("a mailbox task failed: {e}"), None))?;
    match reply {
        Ok(reply) => {
            let text = text_with_warnings(&reply.text, &reply.warnings);
            let content = std::iter::once(ContentBlock::text(text)).chain(attached);
            let mut result = CallToolResult::success(content.collect());
            if shape == Shape::Structured {
                result.structured_content = Some(reply.value);
            }
            Ok(result)
        }
        Err(CallError::Failed(error)) => Ok(failure_text(&format!(
            "{error} ({}). {}",
            advice::kind(&error),
            advice::advice(&error)
        ))),
        // Arguments that do not fit the schema are the model's to correct, so it is told in
        // the result (as the MCP spec advises for input validation), not by a protocol error.
        Err(error @ CallError::InvalidArguments { .. }) => Ok(failure_text(&format!(
            "{error}. Correct that argument and call again."
        ))),
        Err(error @ CallError::UnknownVerb(_)) => {
            Err(ErrorData::invalid_params(error.to_string(), None))
        }
        Err(error @ CallError::Unencodable { .. }) => {
            Err(ErrorData::internal_error(error.to_string(), None))
        }
    }
}

/// An error result: text only. Structured content would have to match the tool's output
/// schema (the TypeScript SDK validates it even on errors), and a sentence is what a model reads.
fn failure_text(text: &str) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(text.to_owned())])
}
