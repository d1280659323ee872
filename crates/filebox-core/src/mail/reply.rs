//! Where a reply goes: the message's `Reply To` when set; for a message whose `Source Type` is
//! `system`, the `system` mailbox; else whoever sent it to me, never myself.
//! And in which folder: a reply to a person's own request (`Source Type: human`, back to the
//! `kind: human` mailbox that sent it) arrives in `done/`, marked done; any other in `inbox/`.
//! And where the one who replies keeps its own copy: `done/` for a question it was asked (it is
//! answered once, so answering finishes it), `outbox/` for any other reply.

use crate::agent::AgentId;
use crate::choice::choice;
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::{Mailbox, MessageRef};
use crate::mailroom::Mailroom;
use crate::mailroom::config::{AgentEntry, Config};
use crate::message::is_question;
use crate::message::{Header, field};

choice! {
    /// Who sent it, which decides where replies go.
    pub enum SourceType("source type") {
        Agent => "agent",
        Human => "human",
        System => "system",
        External => "external",
    }
}

/// The mailbox replies to `system`-sourced messages go to (the system inbox).
pub const SYSTEM_MAILBOX: &str = "system";

/// The folders [`replier_copy_folder`] files a replier's own copy in, the usual one first
/// (where a surface looks for the copy it just replied with).
pub const REPLIER_COPY_FOLDERS: [Folder; 2] = [Folder::Outbox, Folder::Done];

impl Mailroom {
    /// The agent a reply to a message of my mailbox goes to, read from the copy that speaks for
    /// it (`crate::mailbox::copy`). For a `system` message without `Reply To` that is
    /// [`SYSTEM_MAILBOX`], which may not be in the config yet ([`Mailroom::with_system_mailbox`]
    /// adds it).
    pub fn reply_target(&self, reference: &MessageRef) -> Result<AgentId> {
        let (found, _) = self.my_mailbox()?.speaking_copy(reference, &Folder::ALL)?;
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

    /// The folder of `recipient` a reply to the message with `header` is delivered to: the
    /// answer to a human's request is marked done, so it lands in `done/` of the person who
    /// asked (replied, nothing left to handle); everything else lands in `inbox/`.
    pub(crate) fn reply_folder(&self, header: &Header, recipient: &AgentId) -> Folder {
        let human_request =
            header.get(field::SOURCE_TYPE).and_then(SourceType::parse) == Some(SourceType::Human);
        let asker = header.get(field::ORIGINAL_SENDER) == Some(recipient.as_str());
        let person = self
            .config()
            .agent(recipient)
            .is_ok_and(|entry| entry.kind == Some(crate::AgentKind::Human));
        if human_request && asker && person {
            Folder::Done
        } else {
            Folder::Inbox
        }
    }

    /// This mailroom with the [`SYSTEM_MAILBOX`] in its config: added, beside the other
    /// mailboxes, when missing (the first reply to a `system` message creates it).
    pub fn with_system_mailbox(&self) -> Result<Mailroom> {
        let system = AgentId::new(SYSTEM_MAILBOX)?;
        if self.config().file.agents.contains_key(&system) {
            return Ok(self.clone());
        }
        let config = self.config();
        let beside = config
            .file
            .agents
            .keys()
            .next()
            .and_then(|first| config.mailbox_path(first).ok())
            .and_then(|path| path.parent().map(|p| p.join(SYSTEM_MAILBOX)))
            .unwrap_or_else(|| config.base_dir().join("mailboxes").join(SYSTEM_MAILBOX));
        let updated = Config::update(&config.path, |file| {
            file.agents
                .entry(system.clone())
                .or_insert_with(|| AgentEntry::new(beside.clone()));
            Ok(())
        })?;
        Mailbox::open(
            system,
            updated.mailbox_path(&AgentId::new(SYSTEM_MAILBOX)?)?,
        )?;
        Ok(self.rebound(updated))
    }
}

/// The folder where `replier` keeps its own copy of its reply to the message with `header`. A
/// question (or work report) asked of the replier is answered once, so answering it finishes
/// it: the copy is filed in `done/`, as a resolved message is, and a person finds what they
/// answered among what they are done with. Any other reply keeps its full copy in `outbox/`,
/// the asker's follow-up to its own question included. The same rule files a
/// remote replier's copy in its stand-in mailbox (federation).
pub fn replier_copy_folder(header: &Header, replier: &AgentId) -> Folder {
    let asked_of_replier =
        is_question(&header.kind) && header.get(field::ORIGINAL_SENDER) != Some(replier.as_str());
    if asked_of_replier {
        Folder::Done
    } else {
        Folder::Outbox
    }
}
