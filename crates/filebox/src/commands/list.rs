//! `filebox list <folder>`.

use filebox_api::verbs::ListMessages;

use super::run_verb;
use crate::cli::{Global, ListArgs};
use crate::output::Outcome;

pub(crate) fn run(global: &Global, args: &ListArgs) -> anyhow::Result<Outcome> {
    run_verb::<ListMessages>(
        global,
        filebox_api::ListArgs {
            folder: Some(args.folder),
            from: args.from.clone(),
            kind: args.kind.clone(),
            unread: Some(args.unread),
            thread: args.thread.clone(),
            // The seed's `list` shows the whole folder unless told otherwise.
            limit: Some(args.limit.unwrap_or(0)),
            offset: None,
        },
    )
}
