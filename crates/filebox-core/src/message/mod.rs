//! The message model: a Markdown file (format 1.0, and 1.1 with extra fields): a `# TYPE: title`
//! line, `**Key:** value` fields, the original content, conversation and processing histories.

mod file_name;
mod header;
mod kind;
pub mod limits;
pub mod model_text;
mod parse;
mod render;
#[cfg(test)]
mod round_trip_tests;
mod structure;

pub use file_name::{FileName, MessageIdShort, file_name_for, slug};
pub use header::{Header, comma_list, field};
pub use kind::{MessageType, PERMISSION, QUESTION, WORK_REPORT, is_question};
pub use parse::{ParseError, parse, parse_header};
pub use render::render;

/// A whole message: header, the original content, and both histories.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Message {
    pub header: Header,
    /// The `Original Request/Content` section, exactly as the sender wrote it.
    pub body: String,
    pub conversation: Vec<ConversationEntry>,
    pub processing: Vec<ProcessingEntry>,
}

impl Message {
    /// The bytes `max_body_bytes` bounds: the original content and every reply's words.
    pub fn words_len(&self) -> usize {
        self.body.len()
            + self
                .conversation
                .iter()
                .map(|c| c.body.len())
                .sum::<usize>()
    }
}

/// One reply appended under `## Conversation History`.
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ConversationEntry {
    pub timestamp: String,
    pub from: String,
    pub to: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub body: String,
}

/// One line appended under `## Processing History` (resolved, rejected, on hold, ...).
#[derive(Debug, Clone, PartialEq, Eq, serde::Serialize)]
pub struct ProcessingEntry {
    pub timestamp: String,
    pub action: String,
    pub by: String,
    pub details: String,
}
