//! `filebox fork --from <message> --reason <why> --context <text|->`.

use filebox_api::{Recipients, verbs};

use super::mailroom;
use super::send::read_content;
use crate::cli::{ForkArgs, Global};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &ForkArgs) -> anyhow::Result<Outcome> {
    let result = verbs::fork(
        &mailroom(global)?,
        &filebox_api::ForkArgs {
            from: args.from.clone(),
            reason: args.reason.as_str().to_owned(),
            context: read_content(Some(&args.context), None)?,
            to: args.to.clone().map(Recipients::One),
            thread: args.thread.clone(),
        },
    )?;
    output::either(global.json, &result, |r| {
        let mut lines = vec![r.id.clone()];
        if !r.obsoleted.is_empty() {
            lines.push(format!("obsolete: {}", r.obsoleted.join(", ")));
        }
        lines
    })?;
    for unmarked in &result.unmarked {
        output::warn(format!("could not mark {unmarked} as obsolete"));
    }
    Ok(if result.unmarked.is_empty() {
        Outcome::Success
    } else {
        Outcome::Partial
    })
}
