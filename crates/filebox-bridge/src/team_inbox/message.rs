//! One team inbox file: a JSON array of `TeammateMessage`s, pretty-printed with two spaces.
//! Parsing never fails on an element it does not understand: such elements (and entries that
//! fail Claude Code's schema, [`super::schema`]) are kept as they are and written back
//! untouched, so a rewrite never loses what another tool wrote.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

use super::marking::MarkStyle;

/// The `type` current Claude Code writes on every entry.
pub const ENTRY_TYPE: &str = "message";
/// The `msgV` (entry format version) current Claude Code writes.
pub const ENTRY_VERSION: u64 = 1;

/// A message as Claude Code writes it (`TeammateMessage` in `teammateMailbox.ts`; 2.1.88 wrote
/// `from, text, timestamp, read, color?, summary?`, current versions add `type`, `msgV` and
/// `msg_id` and may leave `read` out). Fields this version does not know (`lead_sig`,
/// `from_plugin`, ...) are kept in `other`; a field absent from the file stays absent.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeammateMessage {
    /// `"message"` in current versions; absent in 2.1.88's.
    #[serde(rename = "type", default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// The sender's name (not its `name@team` id).
    pub from: String,
    /// Plain text, or a structured message serialized as JSON (see [`super::structured`]).
    pub text: String,
    /// `new Date().toISOString()`: milliseconds and `Z` (see [`timestamp_now`]).
    pub timestamp: String,
    /// `false` on write; 2.1.88 and 2.1.112 flip it when the message is delivered, current
    /// versions remove the entry instead (and may not write the field).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub read: Option<bool>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The entry format's version (current versions: 1).
    #[serde(rename = "msgV", default, skip_serializing_if = "Option::is_none")]
    pub msg_v: Option<u64>,
    /// A UUID per entry (current versions); an entry without one can never be "verified".
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub msg_id: Option<String>,
    #[serde(flatten)]
    pub other: BTreeMap<String, Value>,
}

impl TeammateMessage {
    /// A new unread message stamped now, in the current entry shape (`type`, `msgV`, a fresh
    /// `msg_id`; `read: false` too, which every version accepts and the older ones need).
    pub fn new(from: &str, text: &str) -> Self {
        TeammateMessage {
            kind: Some(ENTRY_TYPE.to_owned()),
            from: from.to_owned(),
            text: text.to_owned(),
            timestamp: timestamp_now(),
            read: Some(false),
            color: None,
            summary: None,
            msg_v: Some(ENTRY_VERSION),
            msg_id: Some(uuid::Uuid::new_v4().to_string()),
            other: BTreeMap::new(),
        }
    }

    /// Whether the recipient has it: only an explicit `read: true` says so (a delivered
    /// message of a current version is gone from the file).
    pub fn is_read(&self) -> bool {
        self.read == Some(true)
    }

    /// What tells two messages apart: the file format has no id, so `(from, timestamp, text)`.
    pub fn identity(&self) -> Identity {
        Identity {
            from: self.from.clone(),
            timestamp: self.timestamp.clone(),
            text: self.text.clone(),
        }
    }
}

/// A message's identity, the only safe key for marking it read.
#[derive(Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, Serialize, Deserialize)]
pub struct Identity {
    pub from: String,
    pub timestamp: String,
    pub text: String,
}

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
                    Ok(message) if super::schema::readable(&message) => Entry::Message(message),
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

    /// Mark read the unread messages whose identity is in `identities`, the way `style` says
    /// (flip `read`, or remove the entry); returns how many. Messages already gone are not
    /// an error: a current Claude Code removes what it delivered.
    pub fn mark_read(&mut self, identities: &[Identity], style: MarkStyle) -> usize {
        let mut marked = 0;
        self.entries.retain_mut(|entry| {
            let Entry::Message(message) = entry else {
                return true;
            };
            if message.is_read() || !identities.contains(&message.identity()) {
                return true;
            }
            marked += 1;
            match style {
                MarkStyle::Flag => {
                    message.read = Some(true);
                    true
                }
                MarkStyle::Prune => false,
            }
        });
        marked
    }
}

/// Now as JavaScript's `toISOString()` writes it: `2026-04-01T10:30:00.123Z`.
pub fn timestamp_now() -> String {
    iso_millis(jiff::Timestamp::now())
}

/// A timestamp in the `toISOString()` form.
pub fn iso_millis(timestamp: jiff::Timestamp) -> String {
    timestamp.strftime("%Y-%m-%dT%H:%M:%S%.3fZ").to_string()
}

#[cfg(test)]
mod tests {
    use super::*;

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
    fn timestamps_have_milliseconds_and_z() {
        let ts: jiff::Timestamp = "2026-04-01T10:30:00Z".parse().unwrap();
        assert_eq!(iso_millis(ts), "2026-04-01T10:30:00.000Z");
        let now = timestamp_now();
        assert_eq!(now.len(), 24, "{now}");
        assert!(now.ends_with('Z'));
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
