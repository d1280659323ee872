//! `MessageType`: ER, BR, DIS, ACK, SU from seed 000, the human-channel types, or a custom one.

use std::fmt;

use crate::error::{Error, Result};

/// A message type: 1–16 upper-case ASCII letters, digits or `_`, starting with a letter.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize)]
#[serde(transparent)]
pub struct MessageType(String);

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
