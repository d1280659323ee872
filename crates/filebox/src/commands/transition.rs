//! `filebox resolved | reject | onhold <message> <details>`.

use filebox_api::verbs;
use filebox_core::Transition;

use super::mailroom;
use crate::cli::{Global, TransitionArgs};
use crate::output::{self, Outcome};

pub(crate) fn run(
    global: &Global,
    transition: Transition,
    args: &TransitionArgs,
) -> anyhow::Result<Outcome> {
    let result = verbs::transition(&mailroom(global)?, transition, &args.message, &args.details)?;
    output::either(global.json, &result, |r| {
        vec![format!("{} -> {}/{}", r.id, r.folder, r.file)]
    })?;
    Ok(Outcome::Success)
}
