//! `filebox reindex`: rebuild the derived search index from the files.

use filebox_api::verbs;

use super::mailroom;
use crate::cli::{Global, ReindexArgs};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &ReindexArgs) -> anyhow::Result<Outcome> {
    let result = verbs::reindex(
        &mailroom(global)?,
        &filebox_api::ReindexArgs {
            all: Some(args.all),
        },
    )?;
    output::either(global.json, &result, |r| {
        r.mailboxes
            .iter()
            .map(|m| format!("{}: {} messages indexed", m.agent, m.indexed))
            .collect()
    })?;
    Ok(Outcome::Success)
}
