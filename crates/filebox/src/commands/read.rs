//! `filebox read <folder> <message>`.

use filebox_api::verbs;

use super::mailroom;
use crate::cli::{Global, ReadArgs};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &ReadArgs) -> anyhow::Result<Outcome> {
    let result = verbs::read(
        &mailroom(global)?,
        &filebox_api::ReadArgs {
            id: args.message.clone(),
            folder: Some(args.folder.into()),
        },
    )?;
    if global.json {
        output::json(&result)?;
    } else {
        output::text(&result.markdown)?;
    }
    Ok(Outcome::Success)
}
