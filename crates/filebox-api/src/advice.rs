//! What a caller (usually a model) should do about each core error, and a stable name for
//! each kind. Both matches are exhaustive: a new error kind does not compile until it says
//! what to do, and advice never tells a caller to retry something a retry would duplicate.
//! Advice names verbs as the surface it is read on calls them ([`Surface`]): tool names for a
//! model, `filebox` commands on the command line.

use filebox_core::Error;

pub use crate::surface::Surface;
use crate::verbs::{ForkThread, GetThread, ListAgents, ListMessages, ReplyMessage, SendMessage};

/// A stable, snake_case name for the kind of error (MCP text, JSON-RPC `data.kind`).
pub fn kind(error: &Error) -> &'static str {
    match error {
        Error::Invalid { .. } => "invalid_argument",
        Error::UnknownAgent(_) => "unknown_agent",
        Error::NotFound { .. } => "not_found",
        Error::Ambiguous { .. } => "ambiguous",
        Error::AlreadyHandled { .. } => "already_handled",
        Error::NotMine { .. } => "not_mine",
        Error::Unapproved { .. } => "unapproved",
        Error::NotInThread { .. } => "not_in_thread",
        Error::NotParticipant { .. } => "not_participant",
        Error::NoReplyTarget { .. } => "no_reply_target",
        Error::NotSent { .. } => "not_sent",
        Error::Undelivered { .. } => "partly_delivered",
        Error::KeyReused { .. } => "idempotency_key_reused",
        Error::TooLarge { .. } | Error::FieldTooLong { .. } => "too_large",
        Error::Malformed { .. } => "malformed_message",
        Error::Foreign { .. } => "foreign_file",
        Error::Config { .. } => "config",
        Error::NoConfig => "no_config",
        Error::NoCurrentAgent => "no_current_agent",
        Error::Index { .. } => "index",
        Error::Io { .. } => "io",
    }
}

/// The sentence that tells a model or program calling tools what to do next (MCP, the hub).
pub fn advice(error: &Error) -> String {
    next_step(error, Surface::Tools)
}

/// The sentence that tells the caller what to do next, naming verbs as `surface` calls them.
pub fn next_step(error: &Error, surface: Surface) -> String {
    let call = surface.call();
    match error {
        Error::Invalid { .. } => "Correct that argument and call again.".to_owned(),
        Error::UnknownAgent(_) => {
            format!(
                "{call} {} to see the agents you can write to.",
                surface.verb::<ListAgents>(None)
            )
        }
        Error::NotFound { .. } => format!(
            "{call} {} (folder inbox, hold, outbox, done or cancel) to find the message's id.",
            surface.verb::<ListMessages>(None)
        ),
        Error::Ambiguous { .. } => {
            "Give the whole Message ID or the file name instead of the short id.".to_owned()
        }
        Error::AlreadyHandled { .. } => format!(
            "Nothing more to do for it; {} {} to see what is left in your inbox.",
            call.to_lowercase(),
            surface.verb::<ListMessages>(None)
        ),
        Error::Unapproved { .. } => "Leave it to the human: they answer it on the FileBox page, \
            with their token, or from the command line."
            .to_owned(),
        Error::NotMine { .. } => format!(
            "Its recipient handles it; to add to it, {} {} on it (or {} to start over).",
            call.to_lowercase(),
            surface.verb::<ReplyMessage>(None),
            surface.verb::<ForkThread>(None)
        ),
        Error::NotInThread { .. } => format!(
            "{call} {} on that thread to pick a node of it, or leave out the thread argument.",
            surface.verb::<GetThread>(None)
        ),
        Error::NotParticipant { .. } => format!(
            "Start a new thread with {} instead, or ask an agent of that thread to fork it.",
            surface.verb::<SendMessage>(None)
        ),
        Error::NoReplyTarget { .. } => format!(
            "Use {} with reply_to and name the recipient in to yourself.",
            surface.verb::<SendMessage>(None)
        ),
        Error::NotSent { .. } => format!(
            "Nothing was written; {} {} to check the recipients' mailboxes before sending again.",
            call.to_lowercase(),
            surface.verb::<ListAgents>(None)
        ),
        Error::Undelivered { .. } => "Do not send it again (the others already have it); tell the \
            human who runs FileBox which mailboxes failed."
            .to_owned(),
        Error::KeyReused { .. } => "Nothing was sent: to send this content, give it a new \
            idempotency key; to get the first result, repeat the first call exactly."
            .to_owned(),
        Error::TooLarge { .. } => {
            "Shorten the content, or split it into several messages.".to_owned()
        }
        Error::FieldTooLong { .. } => {
            "Shorten that field and send again; long text belongs in the body.".to_owned()
        }
        Error::Malformed { .. } => "That file is not a readable FileBox message; tell the human \
            who owns the mailbox."
            .to_owned(),
        Error::Foreign { .. } => "That file belongs to another tool and was left untouched; tell \
            the human who runs that tool."
            .to_owned(),
        Error::Config { .. } | Error::NoConfig | Error::NoCurrentAgent => {
            "The FileBox configuration needs fixing by the human who runs this server.".to_owned()
        }
        Error::Index { .. } => format!(
            "The search index failed; {} still works. If it persists, tell the human who runs \
             FileBox (`filebox reindex` rebuilds it).",
            surface.verb::<ListMessages>(None)
        ),
        Error::Io { .. } => {
            "Try again; if it keeps failing, tell the human who runs FileBox.".to_owned()
        }
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

    #[test]
    fn the_command_line_is_told_commands_and_a_model_tools() {
        let error = Error::UnknownAgent("ghost".into());
        assert_eq!(
            next_step(&error, Surface::Tools),
            "Call list_agents to see the agents you can write to."
        );
        assert_eq!(
            next_step(&error, Surface::CommandLine),
            "Run `filebox agents` to see the agents you can write to."
        );
        assert_eq!(
            Surface::CommandLine.verb::<crate::verbs::GetAnswer>(Some("abc")),
            "`filebox answer abc`"
        );
    }
}
