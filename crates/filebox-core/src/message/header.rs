//! The header: the title line and the `**Key:** value` lines, in file order.

use super::kind::MessageType;

/// The header field names, exactly as format 1.0 and the 1.1 additions spell them.
pub mod field {
    pub const FORMAT_VERSION: &str = "Format Version";
    pub const MESSAGE_ID: &str = "Message ID";
    pub const SENDER: &str = "Sender";
    pub const RECEIVER: &str = "Receiver";
    pub const TIMESTAMP: &str = "Timestamp";
    pub const ORIGINAL_SENDER: &str = "Original Sender";
    pub const CURRENT_OWNER: &str = "Current Owner";
    // v1.1
    pub const CC: &str = "CC";
    pub const THREAD_ID: &str = "Thread ID";
    pub const IN_REPLY_TO: &str = "In Reply To";
    pub const REFERENCES: &str = "References";
    pub const PRIORITY: &str = "Priority";
    pub const SOURCE_TYPE: &str = "Source Type";
    pub const REPLY_TO: &str = "Reply To";
    pub const STATUS: &str = "Status";
    pub const FORKED_FROM: &str = "Forked From";
    pub const FORK_REASON: &str = "Fork Reason";
    pub const OBSOLETES: &str = "Obsoletes";
    pub const CALLBACK: &str = "Callback";
    pub const ATTACHMENTS: &str = "Attachments";
    /// `KEY FINGERPRINT`: the caller's idempotency key of the write that made this version
    /// (`idempotency.rs`).
    pub const IDEMPOTENCY_KEY: &str = "Idempotency Key";
    // v1.1, the human channel
    pub const PROJECT_DIRECTORY: &str = "Project Directory";
    pub const CLIENT: &str = "Client";
    pub const OPTIONS: &str = "Options";
    /// What the asking program says about who asks (`question::AskedBy`).
    pub const AGENT_NAME: &str = "Agent Name";
    pub const REASONING_MODEL: &str = "Reasoning Model";
    pub const SENT_AT: &str = "Sent At";

    /// The fields whose presence makes a file format version 1.1.
    pub(crate) const V1_1: [&str; 20] = [
        CC,
        THREAD_ID,
        IN_REPLY_TO,
        REFERENCES,
        PRIORITY,
        SOURCE_TYPE,
        REPLY_TO,
        STATUS,
        FORKED_FROM,
        FORK_REASON,
        OBSOLETES,
        CALLBACK,
        ATTACHMENTS,
        IDEMPOTENCY_KEY,
        PROJECT_DIRECTORY,
        CLIENT,
        OPTIONS,
        AGENT_NAME,
        REASONING_MODEL,
        SENT_AT,
    ];
}

/// Title line plus header fields. Unknown fields (from other tools) are kept in place.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Header {
    /// The type from the title line. Kept as written: a foreign file may use any word.
    pub kind: String,
    pub title: String,
    fields: Vec<(String, String)>,
}

impl Header {
    pub fn new(kind: &MessageType, title: &str) -> Self {
        Header {
            kind: kind.as_str().to_owned(),
            title: single_line(title),
            fields: Vec::new(),
        }
    }

    pub(crate) fn from_parts(kind: String, title: String, fields: Vec<(String, String)>) -> Self {
        Header {
            kind,
            title,
            fields,
        }
    }

    /// A field's value, if present and not empty.
    pub fn get(&self, key: &str) -> Option<&str> {
        self.fields
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.as_str())
            .filter(|v| !v.is_empty())
    }

    /// Set a field, in place if present, else appended. Values are forced onto one line.
    pub fn set(&mut self, key: &str, value: &str) {
        let value = single_line(value);
        match self
            .fields
            .iter_mut()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
        {
            Some(slot) => slot.1 = value,
            None => self.fields.push((key.to_owned(), value)),
        }
    }

    /// Remove a field.
    pub fn remove(&mut self, key: &str) {
        self.fields.retain(|(k, _)| !k.eq_ignore_ascii_case(key));
    }

    /// All fields in file order.
    pub fn fields(&self) -> &[(String, String)] {
        &self.fields
    }

    pub fn id(&self) -> &str {
        self.get(field::MESSAGE_ID).unwrap_or_default()
    }

    /// The thread this message belongs to: its Thread ID, else the root an RFC 5322
    /// `References` list starts with, else the message is a root itself.
    pub fn thread_id(&self) -> String {
        self.get(field::THREAD_ID)
            .map(str::to_owned)
            .or_else(|| self.list(field::REFERENCES).into_iter().next())
            .unwrap_or_else(|| self.id().to_owned())
    }

    /// A field that holds a comma list (CC, References, Obsoletes).
    pub fn list(&self, key: &str) -> Vec<String> {
        self.get(key).map(comma_list).unwrap_or_default()
    }

    /// The version the fields call for: 1.1 once any v1.1 field is set, else what the file said.
    pub(crate) fn effective_version(&self) -> String {
        let declared = self.get(field::FORMAT_VERSION).unwrap_or("1.0");
        let extended = field::V1_1.iter().any(|key| self.get(key).is_some());
        if extended && declared == "1.0" {
            "1.1".to_owned()
        } else {
            declared.to_owned()
        }
    }
}

/// Collapse a value onto one line: header lines and titles cannot span lines.
fn single_line(value: &str) -> String {
    value
        .split(|c: char| c.is_control())
        .filter(|part| !part.is_empty())
        .collect::<Vec<_>>()
        .join(" ")
        .trim()
        .to_owned()
}

/// The items of a comma list: trimmed, empty ones dropped.
///
/// ```
/// assert_eq!(filebox_core::message::comma_list(" a, b,,c "), ["a", "b", "c"]);
/// ```
pub fn comma_list(value: &str) -> Vec<String> {
    value
        .split(',')
        .map(str::trim)
        .filter(|s| !s.is_empty())
        .map(str::to_owned)
        .collect()
}
