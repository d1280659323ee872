//! `resolved`, `reject`, `onhold`: append to the processing history and move the message from
//! my inbox to done/, cancel/ or hold/.

use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::{Envelope, Mailbox, MessageRef, parse_bytes};
use crate::mailroom::Mailroom;
use crate::message::{ProcessingEntry, field, render};
use crate::store::{self, Destination, Moved};
use crate::time;

/// What is done with a received message.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Transition {
    Resolve,
    Reject,
    Hold,
}

impl Transition {
    /// The action word written to the processing history.
    pub fn action(self) -> &'static str {
        match self {
            Transition::Resolve => "Resolved",
            Transition::Reject => "Rejected",
            Transition::Hold => "On Hold",
        }
    }

    /// The verb, as a sentence says it.
    fn verb(self) -> &'static str {
        match self {
            Transition::Resolve => "resolve",
            Transition::Reject => "reject",
            Transition::Hold => "put on hold",
        }
    }

    /// Where the message goes.
    pub fn destination(self) -> Folder {
        match self {
            Transition::Resolve => Folder::Done,
            Transition::Reject => Folder::Cancel,
            Transition::Hold => Folder::Hold,
        }
    }

    /// Where the message may be: a held message can still be resolved or rejected.
    fn sources(self) -> &'static [Folder] {
        match self {
            Transition::Resolve | Transition::Reject => &[Folder::Inbox, Folder::Hold],
            Transition::Hold => &[Folder::Inbox],
        }
    }
}

/// What a transition did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TransitionReceipt {
    pub id: String,
    pub file: String,
    pub folder: Folder,
}

impl Mailroom {
    /// Apply a transition to a message in my inbox (or hold/).
    pub fn transition(
        &self,
        transition: Transition,
        reference: &MessageRef,
        details: &str,
    ) -> Result<TransitionReceipt> {
        let mine = self.my_mailbox()?;
        let found = match mine.find_settled(reference, transition.sources()) {
            Ok(found) => found,
            Err(Error::NotFound { .. }) => {
                // Say where it is if it was already handled; otherwise it is simply unknown.
                let records = [Folder::Hold, Folder::Done, Folder::Cancel, Folder::Outbox];
                return Err(match mine.find_settled(reference, &records) {
                    // Only in my outbox, and I started it: it is my request, not my task.
                    Ok(sent)
                        if sent.folder == Folder::Outbox
                            && sent.header.get(field::ORIGINAL_SENDER)
                                == Some(self.me().as_str()) =>
                    {
                        Error::NotMine {
                            reference: reference.text().to_owned(),
                            recipient: sent.header.get(field::RECEIVER).unwrap_or("?").to_owned(),
                            verb: transition.verb(),
                        }
                    }
                    Ok(elsewhere) => Error::AlreadyHandled {
                        reference: reference.text().to_owned(),
                        folder: format!("{}/ of {}", elsewhere.folder, self.me()),
                    },
                    Err(e) => e,
                });
            }
            Err(e) => return Err(e),
        };
        let destination = transition.destination();
        if self.record_move(&mine, &found, destination, transition.action(), details)? {
            Ok(TransitionReceipt {
                id: found.header.id().to_owned(),
                file: found.file.to_string(),
                folder: destination,
            })
        } else {
            Err(self.already_handled(reference))
        }
    }

    /// Move `found` (in `mailbox`, mine or another's) to `destination`, appending a processing
    /// line by me. `false` if another process moved it first.
    pub(crate) fn record_move(
        &self,
        mailbox: &Mailbox,
        found: &Envelope,
        destination: Folder,
        action: &str,
        details: &str,
    ) -> Result<bool> {
        let target = Destination {
            tmp: mailbox.tmp(),
            dir: mailbox.folder_path(destination),
            name: found.file.to_string(),
        };
        let me = self.me().to_string();
        let rewrite = |bytes: &[u8]| -> Result<Vec<Vec<u8>>> {
            let mut message = parse_bytes(&found.path, bytes)?;
            message.processing.push(ProcessingEntry {
                timestamp: time::iso(time::now()),
                action: action.to_owned(),
                by: me.clone(),
                details: details.to_owned(),
            });
            message.header.set(field::CURRENT_OWNER, &me);
            Ok(vec![render(&message).into_bytes()])
        };
        match store::move_message(&mailbox.tmp(), &found.path, &[target], rewrite)? {
            Moved::Done => Ok(true),
            Moved::Gone => Ok(false),
        }
    }
}
