//! `read_message` (`filebox read`): one message whole, marked read, with a read receipt in my
//! inbox copy (the sender's `status` then says `read`).

use filebox_core::{Folder, MessageRef, Receipt, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::command_line::{choice, message_reference};
use crate::outcome::Outcome;
use crate::shared::warnings::receipt_notes;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::MessageDetail;

/// Print a message's whole Markdown (--json: its parsed fields).
///
/// `filebox read ID` looks in every folder, inbox first; `filebox read FOLDER ID` only in
/// that folder.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
#[command(allow_missing_positional = true)]
pub struct ReadArgs {
    /// Id or short id.
    #[arg(index = 2, value_name = "MESSAGE", value_parser = message_reference)]
    pub id: String,
    /// Only this folder.
    #[serde(default)]
    #[arg(index = 1, value_parser = choice::<Folder>())]
    pub folder: Option<Folder>,
}

/// The result of `read`: the parsed message and its Markdown.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReadResult {
    #[serde(flatten)]
    pub message: MessageDetail,
    /// The whole file as it is on disk.
    pub markdown: String,
}

/// One message, whole; marked read (for `list --unread`), and a read receipt written into my
/// inbox copy (the sender's `status` says `read`).
#[derive(Debug)]
pub struct ReadMessage;

impl Verb for ReadMessage {
    const NAME: &'static str = "read_message";
    const CLI: &'static str = "read";
    const TITLE: &'static str = "Read a message";
    const DESCRIPTION: &'static str = "A whole message: header, content, conversation, history.";
    const EFFECT: Effect = Effect::ReadOnly;
    const ANSWER_IS_TEXT: bool = true;
    type Args = ReadArgs;
    type Output = ReadResult;

    fn run(cx: &VerbContext<'_>, args: ReadArgs) -> Result<Outcome<ReadResult>> {
        let reference = MessageRef::parse(&args.id)?;
        let folders: Vec<Folder> = match args.folder {
            Some(folder) => vec![folder],
            None => Folder::ALL.to_vec(),
        };
        let mailbox = cx.mailroom.my_mailbox()?;
        // The copy that speaks for the message (the whole conversation, wherever it is); one
        // another process is moving right now is waited for, not missed.
        let (envelope, (unmarked, (message, markdown))) =
            mailbox.with_speaking_copy(&reference, &folders, |envelope| {
                // Before reading: a copy replaced in between stays unread (see `mark_read`). A
                // mailbox that cannot be written (read-only, full) is read all the same.
                let unmarked = mailbox.mark_read(envelope).err();
                Ok((unmarked, mailbox.read_with_markdown(envelope)?))
            })?;
        let me = cx.mailroom.me();
        let receipts = match envelope.folder {
            Folder::Inbox if cx.receipts => {
                let id = MessageRef::Id(envelope.header.id().to_owned());
                cx.mailroom.mark_read(me, &[id], me.as_str(), "read")?
            }
            _ => Vec::new(),
        };
        // The file as it is on disk now, its receipt included (or, moved on meanwhile, what
        // was read).
        let (message, markdown) = match receipts.first() {
            Some(Receipt::Recorded) => mailbox
                .read_with_markdown(&envelope)
                .unwrap_or((message, markdown)),
            _ => (message, markdown),
        };
        Ok(Outcome::clean(ReadResult {
            message: MessageDetail::new(me, &envelope, &message),
            markdown,
        })
        .noting(
            unmarked
                .map(|e| format!("not marked read (list --unread still shows it): {e}"))
                .into_iter()
                .chain(receipt_notes(&receipts))
                .collect(),
        ))
    }

    fn render(read: &ReadResult) -> String {
        read.markdown.clone()
    }

    /// The file as a model may read it (`model_text::whole`): the structured content keeps
    /// it byte for byte.
    fn brief(read: &ReadResult) -> String {
        crate::model_text::whole(&read.markdown)
    }
}
