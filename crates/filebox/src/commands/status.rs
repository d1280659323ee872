//! `filebox status <message>`.

use filebox_api::verbs::MessageStatus;

use super::run_verb;
use crate::cli::{Global, StatusArgs};
use crate::output::Exit;

pub(crate) fn run(global: &Global, args: &StatusArgs) -> anyhow::Result<Exit> {
    run_verb::<MessageStatus>(
        global,
        filebox_api::StatusArgs {
            id: args.message.clone(),
        },
    )
}
