//! `filebox reply <message> <content>`: `send` to the message's Reply To or sender, with
//! `--reply_to`. Prints the Message ID, like `send`.

use filebox_api::verbs::ReplyMessage;

use super::run_verb_as_text;
use super::send::{read_attachments, read_content};
use crate::cli::{Global, ReplyArgs};
use crate::output::Outcome;

pub(crate) fn run(global: &Global, args: &ReplyArgs) -> anyhow::Result<Outcome> {
    run_verb_as_text::<ReplyMessage>(
        global,
        filebox_api::ReplyArgs {
            id: args.message.clone(),
            content: read_content(Some(&args.content), None)?,
            kind: Some(args.kind.clone()),
            attachments: Some(read_attachments(&args.attach)?).filter(|a| !a.is_empty()),
        },
        |sent| sent.id.clone(),
    )
}
