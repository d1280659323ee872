//! `filebox read <folder> <message>`.

use filebox_api::verbs::ReadMessage;

use super::run_verb;
use crate::cli::{Global, ReadArgs};
use crate::output::Outcome;

pub(crate) fn run(global: &Global, args: &ReadArgs) -> anyhow::Result<Outcome> {
    run_verb::<ReadMessage>(
        global,
        filebox_api::ReadArgs {
            id: args.message.clone(),
            folder: Some(args.folder),
        },
    )
}
