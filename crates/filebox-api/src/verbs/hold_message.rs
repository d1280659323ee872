//! `hold_message` (`filebox onhold`): a message of my inbox waits: the reason goes in its
//! history and it moves to hold.

use filebox_core::{Result, Transition};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;
use crate::shared::transition::{moved, transition};
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::TransitionResult;

/// Put a message of my inbox on hold: record the reason, move it to hold/.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct HoldArgs {
    /// Id or short id.
    #[arg(value_name = "MESSAGE")]
    pub id: String,
    /// Why it waits.
    pub reason: String,
}

/// The message waits; it moves to hold.
#[derive(Debug)]
pub struct HoldMessage;

impl Verb for HoldMessage {
    const NAME: &'static str = "hold_message";
    const CLI: &'static str = "onhold";
    const TITLE: &'static str = "Put a message on hold";
    const DESCRIPTION: &'static str =
        "Move a message of your inbox to hold, to resolve or reject later.";
    const EFFECT: Effect = Effect::Destructive;
    type Args = HoldArgs;
    type Output = TransitionResult;

    fn run(cx: &VerbContext<'_>, args: HoldArgs) -> Result<Outcome<TransitionResult>> {
        transition(cx, Transition::Hold, &args.id, &args.reason)
    }

    fn render(result: &TransitionResult) -> String {
        moved(result)
    }
}
