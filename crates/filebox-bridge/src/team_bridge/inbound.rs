//! Team inbox → FileBox: the unread messages of the bridge agent's team inbox become mail in
//! its FileBox inbox from `member@team`. The Message ID is derived from the message's
//! identity, so a pass that stops after delivering but before marking read delivers nothing
//! twice; each message is marked read (by identity) only once it is safely in FileBox.

use filebox_core::message::field;
use filebox_core::{ForeignDelivery, ForeignMessage, Mailroom, MessageType, derive_title};
use sha2::{Digest, Sha256};

use super::{BridgeError, Carried, PassReport, roster::member_agent};
use crate::team_inbox::{Structured, Team, TeammateMessage};

/// Header fields a bridged message carries besides the standard ones.
pub const TEAM_HEADER: &str = "Claude Team";
const COLOR_HEADER: &str = "Claude Color";
const TEAM_TIMESTAMP_HEADER: &str = "Claude Timestamp";

pub(super) fn pull(
    mailroom: &Mailroom,
    team: &Team,
    report: &mut PassReport,
) -> Result<(), BridgeError> {
    let me = mailroom.me();
    let inbox = team.inbox(me.as_str());
    let unread: Vec<TeammateMessage> = inbox
        .read()?
        .messages()
        .filter(|m| !m.read)
        .cloned()
        .collect();
    let mut delivered = Vec::new();
    for message in &unread {
        let foreign = foreign_message(message, &team.name, me.as_str())?;
        match mailroom.deliver_foreign(me, &foreign) {
            Ok(ForeignDelivery::Delivered(_)) => {
                report.carried.push(Carried {
                    direction: "in".to_owned(),
                    from: foreign.sender.clone(),
                    to: me.to_string(),
                    title: foreign.title.clone(),
                    id: foreign.id.clone(),
                });
                delivered.push(message.identity());
            }
            Ok(ForeignDelivery::AlreadyThere(_)) => delivered.push(message.identity()),
            Err(e) => report.problems.push(format!(
                "message from {} at {} not delivered to {me}: {e}",
                message.from, message.timestamp
            )),
        }
    }
    inbox.mark_read(&delivered)?;
    Ok(())
}

fn foreign_message(
    message: &TeammateMessage,
    team: &str,
    me: &str,
) -> filebox_core::Result<ForeignMessage> {
    let structured = Structured::parse(&message.text);
    let title = message
        .summary
        .clone()
        .filter(|s| !s.trim().is_empty())
        .or_else(|| structured.as_ref().map(Structured::describe))
        .unwrap_or_else(|| derive_title(&message.text));
    let mut fields = vec![
        (field::SOURCE_TYPE.to_owned(), "agent".to_owned()),
        (TEAM_HEADER.to_owned(), team.to_owned()),
        (TEAM_TIMESTAMP_HEADER.to_owned(), message.timestamp.clone()),
    ];
    if let Some(color) = &message.color {
        fields.push((COLOR_HEADER.to_owned(), color.clone()));
    }
    let sender = member_agent(&message.from, team)
        .map(|a| a.to_string())
        .unwrap_or_else(|| format!("{}@{team}", message.from));
    Ok(ForeignMessage {
        id: identity_id(team, me, message),
        sender,
        timestamp: message
            .timestamp
            .parse()
            .unwrap_or_else(|_| jiff::Timestamp::now()),
        kind: MessageType::new("DIS")?,
        title,
        body: message.text.clone(),
        fields,
    })
}

/// A UUID-shaped Message ID from (team, inbox, from, timestamp, text): the same message always
/// gets the same id, different messages different ones.
fn identity_id(team: &str, inbox: &str, message: &TeammateMessage) -> String {
    let mut hash = Sha256::new();
    for part in [
        team,
        inbox,
        &message.from,
        &message.timestamp,
        &message.text,
    ] {
        hash.update((part.len() as u64).to_le_bytes());
        hash.update(part.as_bytes());
    }
    let digest = hash.finalize();
    let mut bytes = [0u8; 16];
    bytes.copy_from_slice(&digest[..16]);
    uuid::Builder::from_random_bytes(bytes)
        .into_uuid()
        .to_string()
}
