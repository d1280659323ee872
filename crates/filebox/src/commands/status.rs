//! `filebox status <message>`.

use filebox_api::verbs::MessageStatus;

use super::run_verb;
use crate::cli::{Global, StatusArgs};
use crate::output::Outcome;

pub(crate) fn run(global: &Global, args: &StatusArgs) -> anyhow::Result<Outcome> {
    run_verb::<MessageStatus>(
        global,
        filebox_api::StatusArgs {
            id: args.message.clone(),
        },
    )
}
