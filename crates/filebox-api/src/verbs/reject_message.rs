//! `reject_message` (`filebox reject`): a message of my inbox or hold is refused: the reason
//! goes in its history and it moves to cancel.

use filebox_core::{Result, Transition};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;
use crate::shared::transition::{moved, transition};
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::TransitionResult;

/// Reject a message of my inbox: record the reason, move it to cancel/.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct RejectArgs {
    /// Id or short id.
    #[arg(value_name = "MESSAGE")]
    pub id: String,
    /// Why, for the sender.
    pub reason: String,
}

/// The message is refused; it moves to cancel.
#[derive(Debug)]
pub struct RejectMessage;

impl Verb for RejectMessage {
    const NAME: &'static str = "reject_message";
    const CLI: &'static str = "reject";
    const TITLE: &'static str = "Reject a message";
    const DESCRIPTION: &'static str =
        "Move a message of your inbox or hold to cancel, with the reason in its history.";
    const EFFECT: Effect = Effect::Destructive;
    type Args = RejectArgs;
    type Output = TransitionResult;

    fn run(cx: &VerbContext<'_>, args: RejectArgs) -> Result<Outcome<TransitionResult>> {
        transition(cx, Transition::Reject, &args.id, &args.reason)
    }

    fn render(result: &TransitionResult) -> String {
        moved(result)
    }
}
