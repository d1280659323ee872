//! `Outcome`: a verb's value and what went partly wrong on the way (a file it could not read,
//! a mailbox it could not open, a copy it could not mark). Every surface shows warnings the
//! same way: the CLI on stderr with exit code 1, `--json`, MCP structured content and JSON-RPC
//! results in a `warnings` field beside the value's own fields, MCP text after the value's.

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
}

impl<T> Outcome<T> {
    /// A value with nothing to warn about.
    pub fn clean(value: T) -> Outcome<T> {
        Outcome {
            value,
            warnings: Vec::new(),
        }
    }

    /// A value and the warnings gathered while making it.
    pub fn with_warnings(value: T, warnings: Vec<String>) -> Outcome<T> {
        Outcome { value, warnings }
    }
}

/// The text of a value followed by its warnings, for surfaces that have one text channel
/// (MCP text content).
pub fn text_with_warnings(text: &str, warnings: &[String]) -> String {
    if warnings.is_empty() {
        return text.to_owned();
    }
    let mut out = text.trim_end().to_owned();
    out.push_str("\n\nWarnings:");
    for warning in warnings {
        out.push_str("\n- ");
        out.push_str(warning);
    }
    out
}
