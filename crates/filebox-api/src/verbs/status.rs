//! `message_status`: where a message stands.

use filebox_core::{MessageRef, Result};

use crate::args::StatusArgs;
use crate::outcome::Outcome;
use crate::render;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::StatusResult;

/// The status of one message, with each recipient's copy.
#[derive(Debug)]
pub struct MessageStatus;

impl Verb for MessageStatus {
    const NAME: &'static str = "message_status";
    const CLI: &'static str = "status";
    const TITLE: &'static str = "Message status";
    const DESCRIPTION: &'static str =
        "Where a message stands; for one you sent, each recipient's copy.";
    const EFFECT: Effect = Effect::ReadOnly;
    type Args = StatusArgs;
    type Output = StatusResult;

    fn run(cx: &VerbContext<'_>, args: StatusArgs) -> Result<Outcome<StatusResult>> {
        let report = cx.mailroom.status(&MessageRef::parse(&args.id)?)?;
        Ok(Outcome::with_warnings(
            StatusResult::from(&report),
            crate::shared::warnings::unusable_warnings(&report.unusable),
        ))
    }

    fn render(status: &StatusResult) -> String {
        render::status(status)
    }
}
