//! `filebox fork --from <message> --reason <why> --context <text|->`.

use filebox_api::Recipients;
use filebox_api::verbs::ForkThread;

use super::run_verb;
use super::send::read_content;
use crate::cli::{ForkArgs, Global};
use crate::output::Outcome;

pub(crate) fn run(global: &Global, args: &ForkArgs) -> anyhow::Result<Outcome> {
    run_verb::<ForkThread>(
        global,
        filebox_api::ForkArgs {
            from: args.from.clone(),
            reason: args.reason,
            context: read_content(Some(&args.context), None)?,
            to: args.to.clone().map(Recipients::One),
            thread: args.thread.clone(),
        },
    )
}
