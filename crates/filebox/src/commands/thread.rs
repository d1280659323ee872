//! `filebox thread <message>` (a tree) and `filebox threads` (mine, newest activity first).

use filebox_api::verbs::{GetThread, ListThreads};

use super::run_verb;
use crate::cli::{Global, ThreadArgs, ThreadsArgs};
use crate::output::Outcome;

pub(crate) fn run(global: &Global, args: &ThreadArgs) -> anyhow::Result<Outcome> {
    run_verb::<GetThread>(
        global,
        filebox_api::ThreadArgs {
            id: args.message.clone(),
        },
    )
}

pub(crate) fn run_list(global: &Global, args: &ThreadsArgs) -> anyhow::Result<Outcome> {
    run_verb::<ListThreads>(
        global,
        filebox_api::ThreadsArgs {
            limit: Some(args.limit),
        },
    )
}
