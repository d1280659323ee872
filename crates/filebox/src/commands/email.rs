//! `filebox email send | inbox | reply | threads | fork`: the agent email command forms, each
//! mapped onto the verb it spells differently (`--subject` is the title, `--body` the
//! content, `inbox AGENT` lists as that agent), so scripts written for those forms run.

use filebox_api::command_line::text_or_stdin;
use filebox_api::verbs::{ForkThread, ListMessages, ListThreads, ReplyMessage, SendMessage};
use filebox_api::{ForkArgs, ListArgs, Recipients, ReplyArgs, SendArgs, ThreadsArgs};
use filebox_core::{AgentId, MessageType};

use super::acting::{mailroom, mailroom_as};
use super::verb::{note_type, run_typed};
use crate::cli::{EmailAction, Global};
use crate::output::Outcome;

pub(crate) fn run(global: &Global, action: EmailAction) -> anyhow::Result<Outcome> {
    match action {
        EmailAction::Send {
            to,
            cc,
            subject,
            body,
            kind,
            priority,
        } => {
            note_type(&kind);
            let args = SendArgs {
                cc: (!cc.is_empty()).then_some(Recipients::Many(cc)),
                title: subject,
                priority,
                ..SendArgs::new(
                    to.join(","),
                    MessageType::new(&kind)?,
                    text_or_stdin(&body)?,
                )
            };
            run_typed::<SendMessage>(&mailroom(global)?, global, args)
        }
        EmailAction::Inbox { agent } => {
            // `filebox list` as that agent: a page of the inbox, newest first.
            let args = ListArgs::default();
            run_typed::<ListMessages>(&acting_as(global, agent)?, global, args)
        }
        EmailAction::Reply { id, body } => {
            let args = ReplyArgs {
                id,
                content: text_or_stdin(&body)?,
                kind: None,
                attachments: None,
                idempotency_key: None,
            };
            run_typed::<ReplyMessage>(&mailroom(global)?, global, args)
        }
        EmailAction::Threads { agent } => {
            let args = ThreadsArgs::default();
            run_typed::<ListThreads>(&acting_as(global, agent)?, global, args)
        }
        EmailAction::Fork {
            from,
            reason,
            context,
        } => {
            // The fork's message needs a body: without --context it says where it starts.
            let context = match context {
                Some(context) => text_or_stdin(&context)?,
                None => format!("Forked from {from} ({reason})."),
            };
            let args = ForkArgs {
                from,
                reason,
                context,
                to: None,
                thread: None,
            };
            run_typed::<ForkThread>(&mailroom(global)?, global, args)
        }
    }
}

/// The mailroom acting as `agent` when named, else as `--agent` or the current agent.
fn acting_as(global: &Global, agent: Option<String>) -> anyhow::Result<filebox_core::Mailroom> {
    match agent {
        Some(agent) => mailroom_as(global, Some(&AgentId::new(&agent)?)),
        None => mailroom(global),
    }
}
