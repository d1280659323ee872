//! `filebox search <query>`.

use filebox_api::verbs::SearchMessages;

use super::run_verb;
use crate::cli::{Global, SearchArgs};
use crate::output::Outcome;

pub(crate) fn run(global: &Global, args: &SearchArgs) -> anyhow::Result<Outcome> {
    run_verb::<SearchMessages>(
        global,
        filebox_api::SearchArgs {
            query: args.query.clone(),
            all: Some(args.all),
            from: args.from.clone(),
            kind: args.kind.clone(),
            folder: args.folder,
            thread: args.thread.clone(),
            status: args.status,
            since: args.since.clone(),
            limit: Some(args.limit),
        },
    )
}
