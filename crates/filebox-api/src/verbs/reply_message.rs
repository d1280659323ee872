//! `reply_message` (`filebox reply`): answer a message, to its Reply To, else its sender; the
//! reply joins its conversation and the file moves to their inbox.

use filebox_core::{MessageRef, MessageType, Result, SYSTEM_MAILBOX};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::send_message::{SendArgs, SendMessage, SendResult, Sent, sent_text};
use crate::args::AttachmentArg;
use crate::command_line::{attachment_file, message_type, text_or_stdin};
use crate::extras::Extras;
use crate::outcome::Outcome;
use crate::verb::{Effect, Verb, VerbContext};

/// Answer a message, to its Reply To, else its sender: the reply joins its conversation and
/// the file moves to their inbox. Prints `ID -> AGENT`: the Message ID and who got it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct ReplyArgs {
    /// Id or short id.
    #[arg(value_name = "MESSAGE")]
    pub id: String,
    /// Markdown.
    #[arg(
        help = "The Markdown content, or `-` to read standard input",
        value_parser = text_or_stdin,
        allow_hyphen_values = true
    )]
    pub content: String,
    /// Default DIS.
    #[serde(default, rename = "type")]
    #[arg(long = "type", value_name = "TYPE", value_parser = message_type)]
    pub kind: Option<MessageType>,
    /// Files to attach.
    #[serde(default)]
    #[arg(long = "attach", value_name = "FILE", value_parser = attachment_file)]
    pub attachments: Option<Vec<AttachmentArg>>,
    /// Retry-safe, 24 h.
    // The tool list's budget keeps the schema's words few; a command line can say it all.
    #[serde(default)]
    #[arg(
        long,
        value_name = "KEY",
        help = "Make this safe to retry: a repeat with the same KEY within 24 h returns the first \
                result and writes nothing (the same KEY with other content is refused)"
    )]
    pub idempotency_key: Option<String>,
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
        sent_text("Replied to", sent)
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
