//! `filebox reindex`: rebuild the derived search index from the files.

use filebox_api::verbs::Reindex;

use super::run_verb;
use crate::cli::{Global, ReindexArgs};
use crate::output::Outcome;

pub(crate) fn run(global: &Global, args: &ReindexArgs) -> anyhow::Result<Outcome> {
    run_verb::<Reindex>(
        global,
        filebox_api::ReindexArgs {
            all: Some(args.all),
        },
    )
}
