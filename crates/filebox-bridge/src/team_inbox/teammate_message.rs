//! One entry of a team inbox as Claude Code writes it, the identity that tells two apart, and
//! the timestamps it carries.

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};
use serde_json::Value;

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
    fn timestamps_have_milliseconds_and_z() {
        let ts: jiff::Timestamp = "2026-04-01T10:30:00Z".parse().unwrap();
        assert_eq!(iso_millis(ts), "2026-04-01T10:30:00.000Z");
        let now = timestamp_now();
        assert_eq!(now.len(), 24, "{now}");
        assert!(now.ends_with('Z'));
    }
}
