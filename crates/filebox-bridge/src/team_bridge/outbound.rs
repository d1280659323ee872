//! FileBox → team inbox: mail in a bridged member's FileBox inbox is appended to that member's
//! team inbox (from the FileBox sender, with the message's own time, so a retried append is
//! recognized by its identity and not duplicated), then resolved into the member's `done/`.

use filebox_core::message::field;
use filebox_core::{Folder, Mailroom, MessageRef, Transition};

use super::roster::BridgedMember;
use super::{Carried, PassReport};
use crate::team_inbox::{Team, TeammateMessage, iso_millis};

pub(super) fn push(
    mailroom: &Mailroom,
    team: &Team,
    members: &[BridgedMember],
    report: &mut PassReport,
) {
    for member in members {
        if let Err(e) = push_member(mailroom, team, member, report) {
            report
                .problems
                .push(format!("mail for {}: {e}", member.agent));
        }
    }
}

fn push_member(
    mailroom: &Mailroom,
    team: &Team,
    member: &BridgedMember,
    report: &mut PassReport,
) -> Result<(), super::BridgeError> {
    let as_member = Mailroom::new(mailroom.config().clone(), Some(&member.agent))?;
    let mailbox = as_member.my_mailbox()?;
    let listing = mailbox.list(Folder::Inbox)?;
    let inbox = team.inbox(&member.name);
    for envelope in &listing.messages {
        let message = mailbox.read(envelope)?;
        let header = &message.header;
        let (from, text, stamp) = match message.conversation.last() {
            Some(entry) => (
                entry.from.clone(),
                entry.body.clone(),
                entry.timestamp.clone(),
            ),
            None => (
                header.get(field::SENDER).unwrap_or_default().to_owned(),
                message.body.clone(),
                header.get(field::TIMESTAMP).unwrap_or_default().to_owned(),
            ),
        };
        let timestamp = stamp
            .parse::<jiff::Timestamp>()
            .map(iso_millis)
            .unwrap_or(stamp);
        let teammate = TeammateMessage {
            summary: Some(header.title.clone()).filter(|t| !t.is_empty()),
            timestamp,
            ..TeammateMessage::new(&from, &text)
        };
        inbox.append_once(&teammate)?;
        let reference = MessageRef::parse(envelope.file.as_str())?;
        match as_member.transition(
            Transition::Resolve,
            &reference,
            &format!(
                "delivered to the Claude Code team inbox {}/{}",
                team.name, member.name
            ),
        ) {
            Ok(_) | Err(filebox_core::Error::AlreadyHandled { .. }) => {}
            Err(e) => return Err(e.into()),
        }
        report.carried.push(Carried {
            direction: "out".to_owned(),
            from,
            to: member.agent.to_string(),
            title: header.title.clone(),
            id: header.id().to_owned(),
        });
    }
    Ok(())
}
