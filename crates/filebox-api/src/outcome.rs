//! `Outcome`: a verb's value, what went partly wrong on the way (a file it could not read,
//! a mailbox it could not open, a copy it could not mark), and notes on what the caller may
//! not expect though it all went through (a message sent to oneself). Every surface shows
//! them the same way: the CLI on stderr (warnings with exit code 1, notes with 0), `--json`,
//! MCP structured content and JSON-RPC results in `warnings` and `notes` fields beside the
//! value's own fields, MCP text after the value's.

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// A verb's result: the value, and warnings about what it had to leave out.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct Outcome<T> {
    #[serde(flatten)]
    pub value: T,
    /// What the verb could not do or read, one sentence each; the rest of the value stands.
    /// Absent when everything went through.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub warnings: Vec<String>,
    /// What the caller may not expect, though everything went through, one sentence each.
    /// Absent when there is none.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notes: Vec<String>,
}

impl<T> Outcome<T> {
    /// A value with nothing to warn about.
    pub fn clean(value: T) -> Outcome<T> {
        Outcome::with_warnings(value, Vec::new())
    }

    /// A value and the warnings gathered while making it.
    pub fn with_warnings(value: T, warnings: Vec<String>) -> Outcome<T> {
        Outcome {
            value,
            warnings,
            notes: Vec::new(),
        }
    }

    /// The same outcome with these notes.
    pub fn noting(self, notes: Vec<String>) -> Outcome<T> {
        Outcome { notes, ..self }
    }
}

/// The text of a value followed by its warnings, for surfaces that have one text channel
/// (MCP text content; a reply's notes are already in its text).
pub fn text_with_warnings(text: &str, warnings: &[String]) -> String {
    with_list(text, "Warnings", warnings)
}

/// `text`, then `heading:` and one `- item` line per item, if there are any.
pub(crate) fn with_list(text: &str, heading: &str, items: &[String]) -> String {
    if items.is_empty() {
        return text.to_owned();
    }
    let mut out = text.trim_end().to_owned();
    out.push_str(&format!("\n\n{heading}:"));
    for item in items {
        out.push_str("\n- ");
        out.push_str(item);
    }
    out
}
