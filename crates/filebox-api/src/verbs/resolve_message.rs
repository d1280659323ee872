//! `resolve_message` (`filebox resolved`): a message of my inbox or hold is dealt with: the
//! details go in its history and it moves to done.

use filebox_core::{Result, Transition};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;
use crate::shared::transition::{moved, transition};
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::TransitionResult;

/// Mark a message of my inbox resolved: record the details, move it to done/.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct ResolveArgs {
    /// Id or short id.
    #[arg(value_name = "MESSAGE")]
    pub id: String,
    /// What was done.
    pub details: String,
}

/// The message is dealt with; it moves to done.
#[derive(Debug)]
pub struct ResolveMessage;

impl Verb for ResolveMessage {
    const NAME: &'static str = "resolve_message";
    const CLI: &'static str = "resolved";
    const TITLE: &'static str = "Resolve a message";
    const DESCRIPTION: &'static str =
        "Move a message of your inbox or hold to done, with details in its history.";
    const EFFECT: Effect = Effect::Destructive;
    type Args = ResolveArgs;
    type Output = TransitionResult;

    fn run(cx: &VerbContext<'_>, args: ResolveArgs) -> Result<Outcome<TransitionResult>> {
        transition(cx, Transition::Resolve, &args.id, &args.details)
    }

    fn render(result: &TransitionResult) -> String {
        moved(result)
    }
}
