//! `filebox resolved | reject | onhold <message> <details>`.

use filebox_api::verbs::{HoldMessage, RejectMessage, ResolveMessage};
use filebox_api::{HoldArgs, RejectArgs, ResolveArgs};

use super::run_verb;
use crate::cli::{Global, TransitionArgs};
use crate::output::Outcome;

pub(crate) fn resolved(global: &Global, args: &TransitionArgs) -> anyhow::Result<Outcome> {
    run_verb::<ResolveMessage>(
        global,
        ResolveArgs {
            id: args.message.clone(),
            details: args.details.clone(),
        },
    )
}

pub(crate) fn reject(global: &Global, args: &TransitionArgs) -> anyhow::Result<Outcome> {
    run_verb::<RejectMessage>(
        global,
        RejectArgs {
            id: args.message.clone(),
            reason: args.details.clone(),
        },
    )
}

pub(crate) fn onhold(global: &Global, args: &TransitionArgs) -> anyhow::Result<Outcome> {
    run_verb::<HoldMessage>(
        global,
        HoldArgs {
            id: args.message.clone(),
            reason: args.details.clone(),
        },
    )
}
