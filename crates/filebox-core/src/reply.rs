//! Where a reply goes (seed 004): the message's `Reply To` when set; for a message whose
//! `Source Type` is `system`, the `system` mailbox; else whoever sent it to me, never myself.

use crate::agent::AgentId;
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::MessageRef;
use crate::mailroom::Mailroom;
use crate::message::field;
use crate::send::SourceType;

/// The mailbox replies to `system`-sourced messages go to (seed 004's system inbox).
pub const SYSTEM_MAILBOX: &str = "system";

impl Mailroom {
    /// The agent a reply to a message of my mailbox goes to. For a `system` message without
    /// `Reply To` that is [`SYSTEM_MAILBOX`], which may not be in the config yet (the hub
    /// creates it on demand; a send to it fails with `UnknownAgent` until then).
    pub fn reply_target(&self, reference: &MessageRef) -> Result<AgentId> {
        let found = self.my_mailbox()?.find_settled(reference, &Folder::ALL)?;
        let h = &found.header;
        let system =
            h.get(field::SOURCE_TYPE).and_then(SourceType::parse) == Some(SourceType::System);
        if system && h.get(field::REPLY_TO).is_none() {
            return AgentId::new(SYSTEM_MAILBOX);
        }
        [
            field::REPLY_TO,
            field::SENDER,
            field::ORIGINAL_SENDER,
            field::RECEIVER,
        ]
        .into_iter()
        .flat_map(|key| h.list(key))
        .filter_map(|name| AgentId::new(&name).ok())
        .find(|agent| agent != self.me() && self.config().agent(agent).is_ok())
        .ok_or_else(|| Error::NoReplyTarget {
            file: found.file.to_string(),
        })
    }
}
