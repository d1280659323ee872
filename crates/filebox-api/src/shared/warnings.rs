//! The warnings and notes verbs attach to an [`Outcome`](crate::Outcome) for what they passed
//! over: files that could not be read, mailboxes that could not be opened, read receipts that
//! could not be written.

use filebox_core::{Problem, Receipt, Unusable};

/// One warning per file that could not be read.
pub(crate) fn unreadable_warnings(problems: &[Problem]) -> Vec<String> {
    problems
        .iter()
        .map(|p| format!("skipped {}: {}", p.path.display(), p.reason))
        .collect()
}

/// The one warning for a mailbox of the config that could not be read (every verb that looks
/// at several mailboxes goes on without it).
pub(crate) fn unusable_warnings(unusable: &[Unusable]) -> Vec<String> {
    unusable
        .iter()
        .map(|u| format!("the mailbox of {} is unusable: {}", u.agent, u.reason))
        .collect()
}

/// A note on receipts that could not be written (the reader may not write the mailbox, the
/// disk is full): the read itself succeeded, but the sender's `status` will not say `read`.
pub(crate) fn receipt_notes(receipts: &[Receipt]) -> Vec<String> {
    let refused = receipts.iter().find_map(|receipt| match receipt {
        Receipt::NotRecorded(why) => Some(why),
        _ => None,
    });
    refused
        .map(|why| format!("read without a receipt (the sender's status will not say read): {why}"))
        .into_iter()
        .collect()
}
