//! Team inbox → FileBox: the unread messages of the bridge agent's team inbox become mail in
//! its FileBox inbox from `member@team`. The Message ID is derived from the message's
//! identity, so a pass that stops after delivering but before marking read delivers nothing
//! twice; each message is marked read (by identity) only once it is safely in FileBox.
//!
//! What a teammate wrote into a header field (its summary, which becomes the title; its
//! color, time and name) is cut to [`MAX_FIELD_CHARS`] with a `…`, so the message is stored
//! readable whatever its size (a header must fit what FileBox's readers read); the body is
//! kept byte for byte, within the config's body limit, or the message is left unread.

use filebox_core::message::field;
use filebox_core::{ForeignDelivery, ForeignMessage, Mailroom, MessageType, derive_title};

use super::derived_id::derived_uuid;
use super::report::{BridgeError, Carried, PassReport};
use super::roster::member_agent;
use crate::team_inbox::{InboxError, Structured, Team, TeammateMessage};

/// Header fields a bridged message carries besides the standard ones.
pub const TEAM_HEADER: &str = "Claude Team";
const COLOR_HEADER: &str = "Claude Color";
const TEAM_TIMESTAMP_HEADER: &str = "Claude Timestamp";
/// The longest header field value the bridge takes from a teammate's message, in characters:
/// Claude Code's summaries are a few words and its colors and times a few characters, so
/// only a broken or hostile entry is cut; far inside the core's bound on a title and the
/// first MiB of a file that FileBox's listing reads for the header.
const MAX_FIELD_CHARS: usize = 200;

pub(super) fn pull(
    mailroom: &Mailroom,
    team: &Team,
    report: &mut PassReport,
) -> Result<(), BridgeError> {
    let me = mailroom.me();
    let inbox = team.inbox(me.as_str());
    // A refused inbox is reported and the pass goes on to the other direction.
    let file = match inbox.read() {
        Ok(file) => file,
        Err(InboxError::Refused(refused)) => {
            report.refused.push(refused.to_string());
            return Ok(());
        }
        Err(e) => return Err(e.into()),
    };
    let unread: Vec<TeammateMessage> = file.messages().filter(|m| !m.is_read()).cloned().collect();
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
        .as_deref()
        .filter(|s| !s.trim().is_empty())
        .map(cut)
        .or_else(|| structured.as_ref().map(|s| cut(&s.describe())))
        .unwrap_or_else(|| derive_title(&message.text));
    let mut fields = vec![
        (field::SOURCE_TYPE.to_owned(), "agent".to_owned()),
        (TEAM_HEADER.to_owned(), team.to_owned()),
        (TEAM_TIMESTAMP_HEADER.to_owned(), cut(&message.timestamp)),
    ];
    if let Some(color) = &message.color {
        fields.push((COLOR_HEADER.to_owned(), cut(color)));
    }
    let sender = member_agent(&message.from, team)
        .map(|a| a.to_string())
        .unwrap_or_else(|| format!("{}@{team}", cut(&message.from)));
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

/// `value`, or its first [`MAX_FIELD_CHARS`] characters and a `…` that says it was cut.
fn cut(value: &str) -> String {
    match value.char_indices().nth(MAX_FIELD_CHARS) {
        Some((end, _)) => format!("{}…", &value[..end]),
        None => value.to_owned(),
    }
}

/// A UUID-shaped Message ID from (team, inbox, from, timestamp, text): the same message always
/// gets the same id, different messages different ones.
fn identity_id(team: &str, inbox: &str, message: &TeammateMessage) -> String {
    derived_uuid(&[
        team,
        inbox,
        &message.from,
        &message.timestamp,
        &message.text,
    ])
}
