//! `resolve_message`, `reject_message` and `hold_message`: each records a line in the
//! processing history and moves the message out of the inbox.

use filebox_core::{MessageRef, Result, Transition};

use crate::args::{HoldArgs, RejectArgs, ResolveArgs};
use crate::outcome::Outcome;
use crate::render;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::TransitionResult;

fn transition(
    cx: &VerbContext<'_>,
    transition: Transition,
    id: &str,
    details: &str,
) -> Result<Outcome<TransitionResult>> {
    let receipt = cx
        .mailroom
        .transition(transition, &MessageRef::parse(id)?, details)?;
    Ok(Outcome::clean(TransitionResult {
        id: receipt.id,
        file: receipt.file,
        folder: receipt.folder,
    }))
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

    fn render(moved: &TransitionResult) -> String {
        render::moved(moved)
    }
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

    fn render(moved: &TransitionResult) -> String {
        render::moved(moved)
    }
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

    fn render(moved: &TransitionResult) -> String {
        render::moved(moved)
    }
}
