//! The three moves out of the inbox (`resolve_message`, `reject_message`, `hold_message`): each
//! records a line in the processing history and moves the message on, and says so alike.

use filebox_core::{MessageRef, Result, Transition};

use crate::outcome::Outcome;
use crate::verb::VerbContext;
use crate::views::TransitionResult;

/// Move message `id` on as `transition` says, with `details` in its processing history.
pub(crate) fn transition(
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

/// `0a1b… -> done/file.md`.
pub(crate) fn moved(moved: &TransitionResult) -> String {
    format!("{} -> {}/{}", moved.id, moved.folder, moved.file)
}
