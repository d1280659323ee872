//! `MessageType`: ER, BR, DIS, ACK, SU, the human-channel types ASK, RPT and PRM, or a custom one.

use std::fmt;

use crate::error::{Error, Result};

/// The message type of a question to a human (`ask_question`).
pub const QUESTION: &str = "ASK";
/// The message type of a work report to a human (`task_finish` / `work_report`).
pub const WORK_REPORT: &str = "RPT";
/// The message type of a tool-use approval a host relayed to a human (`crate::human::permission`).
pub const PERMISSION: &str = "PRM";

/// Whether messages of this type are questions to a human, answered once.
pub fn is_question(kind: &str) -> bool {
    kind == QUESTION || kind == WORK_REPORT || kind == PERMISSION
}

/// A message type: 1–16 upper-case ASCII letters, digits or `_`, starting with a letter. The
/// known ones are ER, BR, DIS, ACK, SU (enhancement request, bug report, discussion,
/// acknowledgement, status update), ASK and RPT (question, work report); any other word of
/// the same form is a custom type.
#[derive(Debug, Clone, PartialEq, Eq, Hash, serde::Serialize, serde::Deserialize)]
#[serde(into = "String", try_from = "String")]
pub struct MessageType(String);

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

    /// A word of the known types' form (lower case is accepted). The known types are not an
    /// `enum` here, since any such word is valid: each field's description names them.
    fn json_schema(_: &mut schemars::SchemaGenerator) -> schemars::Schema {
        schemars::json_schema!({
            "type": "string",
            "pattern": "^[A-Za-z][A-Za-z0-9_]{0,15}$"
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

impl MessageType {
    /// Refuse type `PRM` from any verb: only the permission relay writes one, holding its
    /// lease (`crate::human::permission`).
    pub(crate) fn refuse_reserved(&self) -> crate::error::Result<()> {
        if self.as_str() != PERMISSION {
            return Ok(());
        }
        Err(crate::error::Error::invalid(
            "message type",
            PERMISSION,
            "PRM is a permission prompt, which only a live `filebox mcp` channel session relays \
             from its host: send another type (DIS, or ASK to ask a question)",
        ))
    }
}
