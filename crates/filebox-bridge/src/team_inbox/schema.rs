//! Claude Code's entry schema (2.1.331: `{type?, from, text, timestamp, read?, color?,
//! summary?, from_plugin?}`, plus `msgV`, `msg_id`, `lead_sig`): Claude Code drops and prunes
//! an entry that fails it, so FileBox never writes one, and reads one as something to keep
//! but not as a message.

use super::teammate_message::{ENTRY_TYPE, TeammateMessage};

/// Whether Claude Code would read this entry as a message: its `type`, when it has one, is
/// `message` (the other fields are typed by [`TeammateMessage`] already).
pub(super) fn readable(message: &TeammateMessage) -> bool {
    message
        .kind
        .as_deref()
        .is_none_or(|kind| kind == ENTRY_TYPE)
}

/// Why Claude Code would refuse this entry, if it would: FileBox writes none such.
pub fn problem(message: &TeammateMessage) -> Option<String> {
    if !readable(message) {
        return Some(format!(
            "its type is {:?}, not {ENTRY_TYPE:?}",
            message.kind.as_deref().unwrap_or_default()
        ));
    }
    if message.from.trim().is_empty() {
        return Some("it names no sender (`from` is empty)".to_owned());
    }
    if message.timestamp.parse::<jiff::Timestamp>().is_err() {
        return Some(format!(
            "its timestamp {:?} is not an ISO 8601 time",
            message.timestamp
        ));
    }
    if let Some(id) = &message.msg_id
        && uuid::Uuid::parse_str(id).is_err()
    {
        return Some(format!("its msg_id {id:?} is not a UUID"));
    }
    if let Some(plugin) = message.other.get("from_plugin")
        && !plugin.is_string()
    {
        return Some("its from_plugin is not a string".to_owned());
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn what_filebox_writes_passes_and_broken_entries_do_not() {
        let good = TeammateMessage::new("alice", "hi");
        assert_eq!(problem(&good), None);
        let cases = [
            TeammateMessage {
                kind: Some("idle".into()),
                ..good.clone()
            },
            TeammateMessage::new(" ", "hi"),
            TeammateMessage {
                timestamp: "yesterday".into(),
                ..good.clone()
            },
            TeammateMessage {
                msg_id: Some("42".into()),
                ..good.clone()
            },
        ];
        for case in cases {
            assert!(problem(&case).is_some(), "{case:?}");
        }
        let mut plugin = good.clone();
        plugin.other.insert("from_plugin".into(), 3.into());
        assert!(problem(&plugin).unwrap().contains("from_plugin"));
        // 2.1.88's shape (no type, msgV or msg_id) is still valid.
        let old = TeammateMessage {
            kind: None,
            msg_v: None,
            msg_id: None,
            ..good
        };
        assert_eq!(problem(&old), None);
    }
}
