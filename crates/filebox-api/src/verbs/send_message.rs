//! `send_message` (`filebox send`): a new message to agents, or with `reply_to` an answer in
//! the conversation of the message it names.

use filebox_core::{
    AgentId, IdempotencyKey, MessageRef, MessageType, Priority, Result, SendRequest, SourceType,
};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::args::{AttachmentArg, Recipients};
use crate::command_line::{attachment_file, choice, message_type, recipients, text_or_stdin};
use crate::extras::Extras;
use crate::outcome::Outcome;
use crate::render::recipients as recipient_words;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::{MessageDetail, names};

/// Send a message, or with --reply_to answer one: the reply is appended to that message's
/// conversation and the file moves to the recipient's inbox. Prints the Message ID alone
/// (--json: the whole result).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct SendArgs {
    /// Agent ids (comma-separated), @all or @group.
    #[arg(value_name = "TARGET", value_parser = recipients)]
    pub to: Recipients,
    /// CC, as in `to`.
    // The command line's `to` is TARGET.
    #[serde(default)]
    #[arg(
        long,
        value_name = "IDS",
        value_parser = recipients,
        help = "Agents to copy, as in TARGET"
    )]
    pub cc: Option<Recipients>,
    /// ER, BR (bug), DIS, ACK, SU (status) or your own.
    #[serde(rename = "type")]
    #[arg(value_name = "TYPE", value_parser = message_type)]
    pub kind: MessageType,
    /// Default: first line.
    #[serde(default)]
    #[arg(long)]
    pub title: Option<String>,
    /// Markdown.
    #[arg(
        help = "The Markdown content, or `-` to read standard input",
        value_parser = text_or_stdin,
        allow_hyphen_values = true,
        required_unless_present = "content_file",
        default_value = "",
        hide_default_value = true
    )]
    pub content: String,
    /// A file to read the content from instead (`--file`), read when the verb runs. Command
    /// line only: a JSON caller gives the content itself.
    // Not expressible on `content`: one field, two ways to give it (a positional argument or
    // --file), and clap gives each argument its own field.
    #[serde(skip)]
    #[arg(
        long = "file",
        value_name = "PATH",
        conflicts_with = "content",
        help = "Read the content from this file instead"
    )]
    pub content_file: Option<std::path::PathBuf>,
    /// Answer this message (moves to `to`).
    // `--reply_to` as the original command line spelt it; `--reply-to` too.
    #[serde(default)]
    #[arg(
        long = "reply_to",
        visible_alias = "reply-to",
        value_name = "MESSAGE",
        help = "Answer this message (id, short id or file name): the reply is appended to its \
                conversation and the file moves to TARGET's inbox"
    )]
    pub reply_to: Option<String>,
    /// Default normal.
    #[serde(default)]
    #[arg(long, value_parser = choice::<Priority>())]
    pub priority: Option<Priority>,
    /// Default: your kind.
    #[serde(default)]
    #[arg(long, value_name = "TYPE", value_parser = choice::<SourceType>())]
    pub source_type: Option<SourceType>,
    /// Replies go here, not to you.
    // Beside --reply_to, a command line needs the difference spelt out.
    #[serde(default)]
    #[arg(
        long,
        value_name = "AGENT",
        help = "For a new message: the agent answers should go to instead of me (its Reply To \
                header). Not the message being answered: that is --reply_to"
    )]
    pub reply_to_agent: Option<String>,
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

impl SendArgs {
    /// A plain new message: no copy, title, reply, priority, source type or Reply To.
    pub fn new(to: impl Into<String>, kind: MessageType, content: impl Into<String>) -> SendArgs {
        SendArgs {
            to: Recipients::One(to.into()),
            cc: None,
            kind,
            title: None,
            content: content.into(),
            reply_to: None,
            priority: None,
            source_type: None,
            reply_to_agent: None,
            attachments: None,
            content_file: None,
            idempotency_key: None,
        }
    }
}

/// The result of `send`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SendResult {
    /// The Message ID (for a reply: the id of the message answered).
    pub id: String,
    pub file: String,
    /// Recipients of this machine: the file is in their mailbox.
    pub delivered_to: Vec<String>,
    /// Recipients on another machine: pending until their hub has the file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queued_for: Vec<String>,
}

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
        sent_text("Sent", sent)
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

/// `Sent 0a1b… to dev, ops (file.md)`; `Sent 0a1b… to dev, queued for bob@ci-1 (file.md)`.
pub(crate) fn sent_text(verb: &str, sent: &SendResult) -> String {
    format!(
        "{verb} {} {} ({})",
        sent.id,
        recipient_words(&sent.delivered_to, &sent.queued_for),
        sent.file
    )
}

/// A send's outcome and the sender's copy as the call wrote it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Sent {
    pub outcome: Outcome<SendResult>,
    /// A new message: my outbox record, its status how far the recipients got at that moment;
    /// a reply: my copy of the message it answered. `None` for a repeat of a keyed send that
    /// an earlier send answered (nothing was written: the caller reads the record).
    pub record: Option<MessageDetail>,
}
