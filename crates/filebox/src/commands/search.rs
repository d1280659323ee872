//! `filebox search <query>`: one line per hit (`--json`: an array of hits).

use filebox_api::verbs;

use super::mailroom;
use crate::cli::{Global, SearchArgs};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &SearchArgs) -> anyhow::Result<Outcome> {
    let result = verbs::search(
        &mailroom(global)?,
        &filebox_api::SearchArgs {
            query: args.query.clone(),
            all: Some(args.all),
            from: args.from.clone(),
            kind: args.kind.clone(),
            folder: args.folder.map(Into::into),
            thread: args.thread.clone(),
            status: args.status.clone(),
            since: args.since.clone(),
            limit: Some(args.limit),
        },
    )?;
    output::either(global.json, &result.hits, |hits| {
        hits.iter()
            .map(|h| {
                let place = if args.all {
                    format!("{}/{}", h.mailbox, h.folder)
                } else {
                    h.folder.clone()
                };
                format!(
                    "{place} {} {} {} [{}] {} ({})\n    {}",
                    h.last_activity, h.kind, h.sender, h.status, h.title, h.file, h.snippet
                )
            })
            .collect()
    })?;
    Ok(Outcome::Success)
}
