//! What "mark read" means in an inbox. Claude Code 2.1.88 and 2.1.112 set `read: true` and
//! keep the message; current versions remove a delivered message from the file. FileBox marks
//! the way the Claude Code that polls the inbox does: the setting [`SETTING`] when it is set,
//! else what the file shows (see [`MarkStyle::detect`]).

use super::message::{Entry, InboxFile};
use super::teammate_message::Identity;

/// The environment variable that says how to mark: `flag` or `prune`.
pub const SETTING: &str = "FILEBOX_CLAUDE_MARK_READ";

/// How a delivered message is marked.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MarkStyle {
    /// Set `read: true` and keep the entry (Claude Code before its pruning inboxes).
    Flag,
    /// Remove the entry (current Claude Code: "pruned N delivered message(s)").
    Prune,
}

impl MarkStyle {
    /// The setting's style, else what the files show: an entry with `read: true`, in this
    /// inbox or another of the team (`team_flags`), means a Claude Code that flags polls the
    /// team; otherwise an entry in the current shape (`msg_id`) means one that prunes; an
    /// inbox showing neither is flagged, which keeps every message.
    pub fn for_inbox(
        file: &InboxFile,
        team_flags: impl FnOnce() -> bool,
    ) -> Result<MarkStyle, String> {
        match std::env::var(SETTING) {
            Ok(value) if !value.trim().is_empty() => MarkStyle::parse(&value),
            _ => Ok(MarkStyle::detect(file, team_flags)),
        }
    }

    fn parse(value: &str) -> Result<MarkStyle, String> {
        match value.trim() {
            "flag" => Ok(MarkStyle::Flag),
            "prune" => Ok(MarkStyle::Prune),
            other => Err(format!(
                "{SETTING}={other:?}: expected `flag` (set read: true, Claude Code up to 2.1.112) \
                 or `prune` (remove delivered messages, current Claude Code)"
            )),
        }
    }

    /// What the files show (see [`MarkStyle::for_inbox`]).
    pub fn detect(file: &InboxFile, team_flags: impl FnOnce() -> bool) -> MarkStyle {
        if file.messages().any(|m| m.is_read()) || team_flags() {
            MarkStyle::Flag
        } else if file.messages().any(|m| m.msg_id.is_some()) {
            MarkStyle::Prune
        } else {
            MarkStyle::Flag
        }
    }
}

impl InboxFile {
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

#[cfg(test)]
mod tests {
    use super::*;

    fn inbox(text: &str) -> InboxFile {
        InboxFile::parse(text.as_bytes()).unwrap()
    }

    #[test]
    fn the_file_shows_which_claude_code_polls_it() {
        let old = r#"[{"from":"a","text":"x","timestamp":"2026-04-01T10:30:00.000Z","read":true}]"#;
        let no = || false;
        assert_eq!(MarkStyle::detect(&inbox(old), no), MarkStyle::Flag);
        let current = r#"[{"type":"message","from":"a","text":"x","timestamp":"2026-04-01T10:30:00.000Z","msgV":1,"msg_id":"0b6c5d5e-8f7a-4c1b-9a0e-3d2f1e4c5b6a"}]"#;
        assert_eq!(MarkStyle::detect(&inbox(current), no), MarkStyle::Prune);
        // FileBox's own entries in a team whose Claude Code flags: flagged.
        assert_eq!(MarkStyle::detect(&inbox(current), || true), MarkStyle::Flag);
        let unknown =
            r#"[{"from":"a","text":"x","timestamp":"2026-04-01T10:30:00.000Z","read":false}]"#;
        assert_eq!(MarkStyle::detect(&inbox(unknown), no), MarkStyle::Flag);
        assert_eq!(
            MarkStyle::detect(&InboxFile::default(), no),
            MarkStyle::Flag
        );
        assert_eq!(MarkStyle::parse(" prune\n"), Ok(MarkStyle::Prune));
        assert!(MarkStyle::parse("yes").unwrap_err().contains("`flag`"));
    }
}
