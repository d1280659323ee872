//! `MessageType`: ER, BR, DIS, ACK, SU from seed 000, the human-channel types, or a custom one.

use std::fmt;

use crate::error::{Error, Result};

/// A message type: 1–16 upper-case ASCII letters, digits or `_`, starting with a letter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct MessageType(String);

/// The types the seeds define (enhancement request, bug report, discussion, acknowledgement,
/// status update, question, work report); any other word of the same form is a custom type.
const KNOWN_TYPES: [&str; 7] = ["ER", "BR", "DIS", "ACK", "SU", "ASK", "RPT"];

impl From<MessageType> for String {
    fn from(kind: MessageType) -> String {
        kind.0
    }
}

impl TryFrom<String> for MessageType {
    type Error = Error;
    fn try_from(value: String) -> Result<Self> {
        MessageType::new(&value)
    }
}

impl schemars::JsonSchema for MessageType {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "MessageType".into()
    }

    /// One of the known types, or a custom word of the same form (lower case is accepted).
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "anyOf": [
                { "type": "string", "enum": KNOWN_TYPES },
                { "type": "string", "pattern": "^[A-Za-z][A-Za-z0-9_]{0,15}$" }
            ]
        })
    }
}

impl MessageType {
    /// Parse a type from a caller; lower case is accepted and upper-cased.
    pub fn new(value: &str) -> Result<Self> {
        let upper = value.trim().to_ascii_uppercase();
        let valid = (1..=16).contains(&upper.len())
            && upper.starts_with(|c: char| c.is_ascii_uppercase())
            && upper
                .chars()
                .all(|c| c.is_ascii_uppercase() || c.is_ascii_digit() || c == '_');
        if valid {
            Ok(MessageType(upper))
        } else {
            Err(Error::invalid(
                "message type",
                value,
                "expected 1-16 letters, digits or `_` starting with a letter, such as ER, BR, DIS, ACK, SU",
            ))
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

impl fmt::Display for MessageType {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}
