//! One team inbox file: a JSON array of `TeammateMessage`s, pretty-printed with two spaces.
//! Parsing never fails on an element it does not understand: such elements (and entries that
//! fail Claude Code's schema, [`super::schema`]) are kept as they are and written back
//! untouched, so a rewrite never loses what another tool wrote.

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::schema;
use super::teammate_message::{Identity, TeammateMessage};

/// One element of an inbox array: a message, or anything else, kept verbatim.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Entry {
    Message(TeammateMessage),
    Other(Value),
}

/// The whole inbox, in file order.
#[derive(Debug, Clone, Default, PartialEq)]
pub struct InboxFile {
    pub entries: Vec<Entry>,
}

/// Why an inbox file cannot be used.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum InboxParseError {
    #[error("not valid JSON: {0}")]
    Json(String),
    #[error("the top level is not a JSON array")]
    NotAnArray,
}

impl InboxFile {
    /// Parse an inbox file's bytes. An empty or blank file is an empty inbox (Claude Code
    /// creates it as `[]`, and a torn write of the original leaves it empty).
    pub fn parse(bytes: &[u8]) -> Result<InboxFile, InboxParseError> {
        if bytes.iter().all(u8::is_ascii_whitespace) {
            return Ok(InboxFile::default());
        }
        let value: Value =
            serde_json::from_slice(bytes).map_err(|e| InboxParseError::Json(e.to_string()))?;
        let Value::Array(items) = value else {
            return Err(InboxParseError::NotAnArray);
        };
        // An entry Claude Code's schema refuses is not a message to it either: kept, not shown.
        let entries = items
            .into_iter()
            .map(
                |item| match serde_json::from_value::<TeammateMessage>(item.clone()) {
                    Ok(message) if schema::readable(&message) => Entry::Message(message),
                    _ => Entry::Other(item),
                },
            )
            .collect();
        Ok(InboxFile { entries })
    }

    /// The file's bytes: `JSON.stringify(messages, null, 2)`, as Claude Code writes it.
    pub fn render(&self) -> String {
        // Serializing plain strings, booleans and parsed JSON values cannot fail.
        serde_json::to_string_pretty(&self.entries).unwrap_or_else(|_| "[]".to_owned())
    }

    /// The messages, in file order, with their index in the array.
    pub fn messages(&self) -> impl Iterator<Item = &TeammateMessage> {
        self.entries.iter().filter_map(|entry| match entry {
            Entry::Message(message) => Some(message),
            Entry::Other(_) => None,
        })
    }

    pub fn push(&mut self, message: TeammateMessage) {
        self.entries.push(Entry::Message(message));
    }

    /// Whether a message with this identity is in the file.
    pub fn contains(&self, identity: &Identity) -> bool {
        self.messages().any(|m| m.identity() == *identity)
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::team_inbox::MarkStyle;

    #[test]
    fn keeps_unknown_fields_and_elements_on_rewrite() {
        let text = r#"[
  {
    "from": "researcher",
    "text": "hi",
    "timestamp": "2026-04-01T10:30:00.000Z",
    "read": false,
    "color": "blue",
    "priority": 3
  },
  42
]"#;
        let mut inbox = InboxFile::parse(text.as_bytes()).unwrap();
        assert_eq!(inbox.messages().count(), 1);
        let id = inbox.messages().next().unwrap().identity();
        assert_eq!(inbox.mark_read(&[id], MarkStyle::Flag), 1);
        let again = InboxFile::parse(inbox.render().as_bytes()).unwrap();
        assert_eq!(again, inbox);
        assert!(inbox.render().contains("\"priority\": 3"));
        assert!(inbox.render().ends_with("42\n]"));
    }

    #[test]
    fn refuses_what_is_not_an_array() {
        assert_eq!(
            InboxFile::parse(b"{}").unwrap_err(),
            InboxParseError::NotAnArray
        );
        assert!(matches!(
            InboxFile::parse(b"[{\"from\":"),
            Err(InboxParseError::Json(_))
        ));
        assert_eq!(InboxFile::parse(b"").unwrap(), InboxFile::default());
    }
}

#[cfg(test)]
mod properties {
    use proptest::prelude::*;

    use super::*;

    fn message() -> impl Strategy<Value = TeammateMessage> {
        (
            ".*",
            ".*",
            ".*",
            any::<bool>(),
            proptest::option::of(".*"),
            proptest::option::of(".*"),
        )
            .prop_map(
                |(from, text, timestamp, read, color, summary)| TeammateMessage {
                    from,
                    text,
                    timestamp,
                    read: Some(read),
                    color,
                    summary,
                    ..TeammateMessage::new("", "")
                },
            )
    }

    proptest! {
        #[test]
        fn parsing_any_bytes_never_panics(bytes in proptest::collection::vec(any::<u8>(), 0..512)) {
            let _ = InboxFile::parse(&bytes);
        }

        #[test]
        fn parsing_json_like_text_never_panics(text in r#"[\[\]{}",:0-9a-z\\ ]{0,200}"#) {
            if let Ok(inbox) = InboxFile::parse(text.as_bytes()) {
                // What parses renders to something that parses back the same.
                prop_assert_eq!(InboxFile::parse(inbox.render().as_bytes()).unwrap(), inbox);
            }
        }

        #[test]
        fn what_is_written_parses_back(messages in proptest::collection::vec(message(), 0..6)) {
            let mut inbox = InboxFile::default();
            for m in messages {
                inbox.push(m);
            }
            prop_assert_eq!(InboxFile::parse(inbox.render().as_bytes()).unwrap(), inbox);
        }
    }
}
