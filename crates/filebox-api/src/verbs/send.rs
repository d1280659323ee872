//! `send_message` and `reply_message`: writing to other agents.

use filebox_core::{
    AgentId, IdempotencyKey, MessageRef, MessageType, Result, SYSTEM_MAILBOX, SendRequest,
};

use super::names;
use crate::args::{AttachmentArg, Recipients, ReplyArgs, SendArgs};
use crate::extras::{Extras, Sent};
use crate::outcome::Outcome;
use crate::render;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::{MessageDetail, SendResult};

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
        Ok(SendMessage::run_with(cx, args, &Extras::default())?.outcome)
    }

    /// The Message ID alone: scripts keep it (`id=$(filebox send ...)`).
    fn render(sent: &SendResult) -> String {
        sent.id.clone()
    }

    fn brief(sent: &SendResult) -> String {
        render::sent("Sent", sent)
    }

    /// `--file` is read here: the process that runs the send may be elsewhere.
    fn self_contained(args: &mut SendArgs) -> Result<()> {
        if let Some(path) = args.content_file.take() {
            args.content = crate::command_line::file_text(&path)?;
        }
        Ok(())
    }
}

impl SendMessage {
    /// The verb with header fields no schema shows written into a new message (`extras`),
    /// answering with the sender's copy as written beside the result.
    pub fn run_with(cx: &VerbContext<'_>, args: SendArgs, extras: &Extras) -> Result<Sent> {
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
        let receipt = match request.reply_to {
            None => cx.mailroom.send_new_with(&request, &extras.fields())?,
            // A reply continues its message's header: it takes no extras.
            Some(_) => cx.mailroom.send(&request)?,
        };
        let me = cx.mailroom.me();
        let record = receipt.written.as_ref().map(|(envelope, message)| {
            let record = MessageDetail::new(me, envelope, message);
            match request.reply_to {
                // My record of a new message stands for its recipients' copies, as written.
                None => MessageDetail {
                    status: receipt.status().to_string(),
                    ..record
                },
                Some(_) => record,
            }
        });
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
        let outcome = Outcome::clean(SendResult {
            id: receipt.id,
            file: receipt.file,
            delivered_to: names(&receipt.delivered_to),
            queued_for: names(&receipt.queued_for),
        })
        .noting(notes);
        Ok(Sent { outcome, record })
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
        Ok(ReplyMessage::run_recorded(cx, args)?.outcome)
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

impl ReplyMessage {
    /// The verb, answering with my copy of the message as the reply wrote it beside the result.
    pub fn run_recorded(cx: &VerbContext<'_>, args: ReplyArgs) -> Result<Sent> {
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
        SendMessage::run_with(cx, send, &Extras::default())
    }
}
