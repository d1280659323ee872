//! What a caller (usually a model) should do about each core error, and a stable name for
//! each kind. Both matches are exhaustive: a new error kind does not compile until it says
//! what to do, and advice never tells a caller to retry something a retry would duplicate.

use filebox_core::Error;

/// A stable, snake_case name for the kind of error (MCP text, JSON-RPC `data.kind`).
pub fn kind(error: &Error) -> &'static str {
    match error {
        Error::Invalid { .. } => "invalid_argument",
        Error::UnknownAgent(_) => "unknown_agent",
        Error::NotFound { .. } => "not_found",
        Error::Ambiguous { .. } => "ambiguous",
        Error::AlreadyHandled { .. } => "already_handled",
        Error::NotMine { .. } => "not_mine",
        Error::NotInThread { .. } => "not_in_thread",
        Error::NotParticipant { .. } => "not_participant",
        Error::NoReplyTarget { .. } => "no_reply_target",
        Error::NotSent { .. } => "not_sent",
        Error::Undelivered { .. } => "partly_delivered",
        Error::TooLarge { .. } => "too_large",
        Error::Malformed { .. } => "malformed_message",
        Error::Foreign { .. } => "foreign_file",
        Error::Config { .. } => "config",
        Error::NoConfig => "no_config",
        Error::NoCurrentAgent => "no_current_agent",
        Error::Index { .. } => "index",
        Error::Io { .. } => "io",
    }
}

/// The sentence that tells the caller what to do next.
pub fn advice(error: &Error) -> &'static str {
    match error {
        Error::Invalid { .. } => "Correct that argument and call again.",
        Error::UnknownAgent(_) => "Call list_agents to see the agents you can write to.",
        Error::NotFound { .. } => {
            "Call list_messages (folder inbox, hold, outbox, done or cancel) to find the message's id."
        }
        Error::Ambiguous { .. } => {
            "Give the whole Message ID or the file name instead of the short id."
        }
        Error::AlreadyHandled { .. } => {
            "Nothing more to do for it; call list_messages to see what is left in your inbox."
        }
        Error::NotMine { .. } => {
            "Its recipient handles it; to add to it, call reply_message on it (or fork_thread to start over)."
        }
        Error::NotInThread { .. } => {
            "Call get_thread on that thread to pick a node of it, or leave out the thread argument."
        }
        Error::NotParticipant { .. } => {
            "Start a new thread with send_message instead, or ask an agent of that thread to fork it."
        }
        Error::NoReplyTarget { .. } => {
            "Use send_message with reply_to and name the recipient in to yourself."
        }
        Error::NotSent { .. } => {
            "Nothing was written; call list_agents to check the recipients' mailboxes before sending again."
        }
        Error::Undelivered { .. } => {
            "Do not send it again (the others already have it); tell the human who runs FileBox which mailboxes failed."
        }
        Error::TooLarge { .. } => "Shorten the content, or split it into several messages.",
        Error::Malformed { .. } => {
            "That file is not a readable FileBox message; tell the human who owns the mailbox."
        }
        Error::Foreign { .. } => {
            "That file belongs to another tool and was left untouched; tell the human who runs that tool."
        }
        Error::Config { .. } | Error::NoConfig | Error::NoCurrentAgent => {
            "The FileBox configuration needs fixing by the human who runs this server."
        }
        Error::Index { .. } => {
            "The search index failed; list_messages still works. If it persists, tell the human who runs FileBox (filebox reindex rebuilds it)."
        }
        Error::Io { .. } => "Try again; if it keeps failing, tell the human who runs FileBox.",
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_partly_delivered_send_is_never_to_be_retried() {
        let error = Error::Undelivered {
            id: "m".into(),
            delivered: vec!["qa".into()],
            failed: vec!["dev (gone)".into()],
        };
        let advice = advice(&error).to_lowercase();
        assert!(advice.starts_with("do not send it again"), "{advice}");
        assert!(
            !advice.contains("try again") && !advice.contains("retry"),
            "{advice}"
        );
        assert_eq!(kind(&error), "partly_delivered");
    }

    #[test]
    fn each_wrong_state_has_its_own_next_step() {
        let not_in_thread = Error::NotInThread {
            reference: "a".into(),
            thread: "t1".into(),
            wanted: "t2".into(),
        };
        let no_target = Error::NoReplyTarget {
            file: "f.md".into(),
        };
        let not_sent = Error::NotSent {
            failed: vec!["dev (gone)".into()],
        };
        assert!(advice(&not_in_thread).contains("get_thread"));
        assert!(advice(&no_target).contains("send_message with reply_to"));
        assert!(advice(&not_sent).starts_with("Nothing was written"));
        let not_mine = Error::NotMine {
            reference: "a".into(),
            recipient: "dev".into(),
            verb: "resolve",
        };
        assert_eq!(kind(&not_mine), "not_mine");
        assert!(advice(&not_mine).contains("reply_message"));
        assert!(!advice(&not_mine).contains("already"));
    }
}
