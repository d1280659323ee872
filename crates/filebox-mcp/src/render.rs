//! Readable text shared by tool results and resources.

use filebox_api::MessageSummary;

/// Seed 000's listing line with the Message ID a tool call needs.
pub(crate) fn message_line(message: &MessageSummary) -> String {
    format!("{} [id {}]", message.line, message.id)
}
