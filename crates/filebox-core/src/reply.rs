//! Where a reply goes (seed 004): the message's `Reply To` when set, else whoever sent it to
//! me, never myself.

use crate::agent::AgentId;
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::MessageRef;
use crate::mailroom::Mailroom;
use crate::message::field;

impl Mailroom {
    /// The agent a reply to a message of my mailbox goes to.
    pub fn reply_target(&self, reference: &MessageRef) -> Result<AgentId> {
        let found = self.my_mailbox()?.find_settled(reference, &Folder::ALL)?;
        let h = &found.header;
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
