//! Messages that come from outside FileBox (a bridge to another tool, an imported transcript):
//! published into an agent's inbox with the sender, time and Message ID they already carry.
//! Delivery is idempotent by Message ID, so a bridge that retries after a crash does not
//! duplicate a message. A type only FileBox itself writes (`PRM`) arrives as plain mail (`DIS`).

use jiff::Timestamp;

use crate::agent::AgentId;
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::MessageRef;
use crate::mailroom::Mailroom;
use crate::message::{
    Header, Message, MessageType, PERMISSION, field, file_name_for, limits, render,
};
use crate::store;
use crate::time;

/// A message written elsewhere, ready to deliver.
#[derive(Debug, Clone)]
pub struct ForeignMessage {
    /// Its Message ID: a UUID, fresh or derived from what identifies it at its source.
    pub id: String,
    /// Who wrote it, as its source names them (e.g. `researcher@my-team`).
    pub sender: String,
    pub timestamp: Timestamp,
    pub kind: MessageType,
    pub title: String,
    /// Markdown; kept byte for byte.
    pub body: String,
    /// Further header fields (Thread ID, In Reply To, Source Type, the source's own keys).
    pub fields: Vec<(String, String)>,
}

/// What a foreign delivery did.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ForeignDelivery {
    /// Published under this file name.
    Delivered(String),
    /// A message with this Message ID was already in the mailbox (any folder): nothing written.
    AlreadyThere(String),
}

impl Mailroom {
    /// Deliver `message` to `to`'s inbox, unless that mailbox already holds its Message ID.
    pub fn deliver_foreign(
        &self,
        to: &AgentId,
        message: &ForeignMessage,
    ) -> Result<ForeignDelivery> {
        let (file, kind) = self.foreign_file(to, message)?;
        let reference = MessageRef::parse(&message.id)?;
        let mailbox = self.mailbox(to)?;
        match mailbox.find(&reference, &Folder::ALL) {
            Ok(found) => return Ok(ForeignDelivery::AlreadyThere(found.file.to_string())),
            Err(Error::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
        let name = file_name_for(message.timestamp, &kind, &file.header.title, &message.id);
        store::publish_new(
            &mailbox.tmp(),
            &mailbox.folder_path(Folder::Inbox),
            name.as_str(),
            render(&file).as_bytes(),
        )?;
        Ok(ForeignDelivery::Delivered(name.to_string()))
    }

    /// Whether `message` may be delivered to `to` (its body and every header field within
    /// their bounds), writing nothing: a caller that delivers several messages as one (an
    /// import) checks them all first, so a refusal leaves no part of them behind.
    pub fn check_foreign(&self, to: &AgentId, message: &ForeignMessage) -> Result<()> {
        self.foreign_file(to, message).map(drop)
    }

    /// The file `message` becomes in `to`'s inbox, and its type, once its bounds are checked.
    fn foreign_file(
        &self,
        to: &AgentId,
        message: &ForeignMessage,
    ) -> Result<(Message, MessageType)> {
        let limit = self.config().max_body_bytes();
        if message.body.len() > limit {
            return Err(Error::TooLarge {
                size: message.body.len(),
                limit,
            });
        }
        // A permission prompt is the relay's alone (`crate::human::permission`): one from outside is
        // delivered as the plain mail it is.
        let kind = as_foreign(&message.kind);
        let mut header = Header::new(&kind, &message.title);
        for (key, value) in [
            (field::FORMAT_VERSION, "1.0"),
            (field::MESSAGE_ID, message.id.as_str()),
            (field::SENDER, message.sender.as_str()),
            (field::RECEIVER, to.as_str()),
            (field::TIMESTAMP, &time::iso(message.timestamp)),
            (field::ORIGINAL_SENDER, message.sender.as_str()),
            (field::CURRENT_OWNER, to.as_str()),
        ] {
            header.set(key, value);
        }
        for (key, value) in &message.fields {
            header.set(key, value);
        }
        limits::check(&header)?;
        let file = Message {
            header,
            body: message.body.clone(),
            conversation: Vec::new(),
            processing: Vec::new(),
        };
        Ok((file, kind))
    }
}

/// The type a `PRM` from outside FileBox is delivered as.
const PLAIN: &str = "DIS";

/// The type a message from outside FileBox (an import, a bridge) is delivered as: a `PRM` as
/// plain mail (`DIS`), since no relay waits for it; any other as it is.
fn as_foreign(kind: &MessageType) -> MessageType {
    match kind.as_str() == PERMISSION {
        true => MessageType::new(PLAIN).expect("DIS is a valid message type"),
        false => kind.clone(),
    }
}
