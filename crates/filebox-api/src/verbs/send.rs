//! `send_message` and `reply_message`: writing to other agents.

use filebox_core::{
    AgentId, IdempotencyKey, MessageRef, MessageType, Result, SYSTEM_MAILBOX, SendRequest,
};

use crate::args::{AttachmentArg, Recipients, ReplyArgs, SendArgs};
use crate::outcome::Outcome;
use crate::render;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::{SendResult, names};

/// A new message, or a reply with `reply_to`.
#[derive(Debug)]
pub struct SendMessage;

impl Verb for SendMessage {
    const NAME: &'static str = "send_message";
    const CLI: &'static str = "send";
    const TITLE: &'static str = "Send a message";
    const DESCRIPTION: &'static str = "Send Markdown to agents; returns its Message ID.";
    const EFFECT: Effect = Effect::Additive;
    type Args = SendArgs;
    type Output = SendResult;

    fn run(cx: &VerbContext<'_>, args: SendArgs) -> Result<Outcome<SendResult>> {
        let request = SendRequest {
            to: args.to.to_vec(),
            cc: args.cc.as_ref().map(Recipients::to_vec).unwrap_or_default(),
            kind: args.kind,
            title: args.title.filter(|t| !t.trim().is_empty()),
            body: match &args.content_file {
                Some(path) => crate::command_line::file_text(path)?,
                None => args.content,
            },
            reply_to: args
                .reply_to
                .as_deref()
                .map(MessageRef::parse)
                .transpose()?,
            priority: args.priority,
            source_type: args.source_type,
            reply_to_agent: args
                .reply_to_agent
                .as_deref()
                .map(AgentId::new)
                .transpose()?,
            attachments: args
                .attachments
                .iter()
                .flatten()
                .map(AttachmentArg::decode)
                .collect::<Result<_>>()?,
            idempotency_key: args
                .idempotency_key
                .as_deref()
                .map(IdempotencyKey::new)
                .transpose()?,
        };
        let receipt = cx.mailroom.send(&request)?;
        let me = cx.mailroom.me();
        // Delivered all the same: a note, not a warning (nothing was left out).
        let mut notes = Vec::new();
        if receipt.delivered_to.contains(me) {
            notes.push(format!(
                "{me} is you: this message went to your own inbox (act as another agent to \
                 write to {me})"
            ));
        }
        if !receipt.queued_for.is_empty() {
            notes.push(format!(
                "queued for {}: in flight until their hub has the file (filebox status {})",
                names(&receipt.queued_for).join(", "),
                receipt.id
            ));
        }
        Ok(Outcome::clean(SendResult {
            id: receipt.id,
            file: receipt.file,
            delivered_to: names(&receipt.delivered_to),
            queued_for: names(&receipt.queued_for),
        })
        .noting(notes))
    }

    /// The Message ID alone: scripts keep it (`id=$(filebox send ...)`).
    fn render(sent: &SendResult) -> String {
        sent.id.clone()
    }

    fn brief(sent: &SendResult) -> String {
        render::sent("Sent", sent)
    }
}

/// Answer a message, to its Reply To or its sender.
#[derive(Debug)]
pub struct ReplyMessage;

impl Verb for ReplyMessage {
    const NAME: &'static str = "reply_message";
    const CLI: &'static str = "reply";
    const TITLE: &'static str = "Reply to a message";
    const DESCRIPTION: &'static str =
        "Answer a message in its conversation, which moves to its Reply To or sender.";
    const EFFECT: Effect = Effect::Updating;
    type Args = ReplyArgs;
    type Output = SendResult;

    fn run(cx: &VerbContext<'_>, args: ReplyArgs) -> Result<Outcome<SendResult>> {
        let target = cx.mailroom.reply_target(&MessageRef::parse(&args.id)?)?;
        let with_system;
        let cx = if target.as_str() == SYSTEM_MAILBOX {
            with_system = cx.mailroom.with_system_mailbox()?;
            &VerbContext {
                mailroom: &with_system,
                ..*cx
            }
        } else {
            cx
        };
        let kind = match args.kind {
            Some(kind) => kind,
            None => MessageType::new("DIS")?,
        };
        let mut send = SendArgs::new(target.to_string(), kind, args.content);
        send.reply_to = Some(args.id);
        send.attachments = args.attachments;
        send.idempotency_key = args.idempotency_key;
        SendMessage::run(cx, send)
    }

    /// `ID -> AGENT`: the Message ID and who got the answer (`AGENT (queued)` on another
    /// machine).
    fn render(sent: &SendResult) -> String {
        let queued = sent.queued_for.iter().map(|q| format!("{q} (queued)"));
        let to: Vec<String> = sent.delivered_to.iter().cloned().chain(queued).collect();
        format!("{} -> {}", sent.id, to.join(", "))
    }

    fn brief(sent: &SendResult) -> String {
        render::sent("Replied to", sent)
    }
}
