//! `filebox list <folder>`.

use filebox_api::verbs;

use super::mailroom;
use crate::cli::{Global, ListArgs};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &ListArgs) -> anyhow::Result<Outcome> {
    let result = verbs::list(
        &mailroom(global)?,
        &filebox_api::ListArgs {
            folder: Some(args.folder.into()),
            from: args.from.clone(),
            kind: args.kind.clone(),
            unread: Some(args.unread),
            thread: args.thread.clone(),
            limit: args.limit,
        },
    )?;
    if global.json {
        output::json(&result.messages)?;
    } else {
        output::lines(result.messages.iter().map(|m| &m.line))?;
    }
    for skipped in &result.skipped {
        output::warn(format!("skipped {}: {}", skipped.path, skipped.reason));
    }
    Ok(if result.skipped.is_empty() {
        Outcome::Success
    } else {
        Outcome::Partial
    })
}
