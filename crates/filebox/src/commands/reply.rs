//! `filebox reply <message> <content>`: `send` to the message's Reply To or sender, with
//! `--reply_to`.

use filebox_api::verbs;

use super::mailroom;
use super::send::read_content;
use crate::cli::{Global, ReplyArgs};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &ReplyArgs) -> anyhow::Result<Outcome> {
    let result = verbs::reply(
        &mailroom(global)?,
        &filebox_api::ReplyArgs {
            id: args.message.clone(),
            content: read_content(Some(&args.content), None)?,
            kind: Some(args.kind.clone()),
        },
    )?;
    output::either(global.json, &result, |r| vec![r.id.clone()])?;
    Ok(Outcome::Success)
}
