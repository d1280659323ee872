//! `filebox reply <message> <content>`: `send` to the message's Reply To or sender, with
//! `--reply_to`. Prints `ID -> AGENT`: the Message ID and who got the answer.

use filebox_api::verbs::ReplyMessage;

use super::send::{read_attachments, read_content};
use super::{message_type, run_verb_as_text};
use crate::cli::{Global, ReplyArgs};
use crate::output::Outcome;

pub(crate) fn run(global: &Global, args: &ReplyArgs) -> anyhow::Result<Outcome> {
    run_verb_as_text::<ReplyMessage>(
        global,
        filebox_api::ReplyArgs {
            id: args.message.clone(),
            content: read_content(Some(&args.content), None)?,
            kind: Some(message_type(&args.kind)?),
            attachments: Some(read_attachments(&args.attach)?).filter(|a| !a.is_empty()),
        },
        |sent| format!("{} -> {}", sent.id, sent.delivered_to.join(", ")),
    )
}
