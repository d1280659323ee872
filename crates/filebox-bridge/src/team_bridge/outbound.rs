//! FileBox → team inbox: mail in a bridged member's FileBox inbox is appended to that member's
//! team inbox (from the FileBox sender, with the message's own time and a `msg_id` derived
//! from its Message ID and version, so a retried append is recognized and not duplicated),
//! then resolved into the member's `done/`. Mail for a member of a team that has ended is
//! rejected into the member's `cancel/`, which the sender's status shows with the reason.
//! An agent the config places on another hub is never one of them, whatever its name.

use filebox_core::message::field;
use filebox_core::{AgentId, Folder, Mailroom, MessageRef, Transition};

use super::derived_id::derived_uuid;
use super::report::{Carried, PassReport};
use super::roster::{BridgedMember, reached_by_bridge};
use crate::team_inbox::{Team, TeammateMessage, iso_millis, names};

pub(super) fn push(
    mailroom: &Mailroom,
    team: &Team,
    members: &[BridgedMember],
    report: &mut PassReport,
) {
    for member in members
        .iter()
        .filter(|m| reached_by_bridge(mailroom, &m.agent))
    {
        if let Err(e) = push_member(mailroom, team, member, report) {
            report.failed(&format!("mail for {}", member.agent), e);
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
        let version = message.conversation.len().to_string();
        let teammate = TeammateMessage {
            summary: Some(header.title.clone()).filter(|t| !t.is_empty()),
            timestamp,
            msg_id: Some(derived_uuid(&[header.id(), &version])),
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

/// The team has ended: every message waiting for one of its members (the config's agents
/// `member@team`) is rejected with the reason, so its sender sees it refused, not pending.
pub(super) fn refuse(mailroom: &Mailroom, team: &Team, report: &mut PassReport) {
    let suffix = format!("@{}", names::path_component(&team.name));
    let members: Vec<AgentId> = mailroom
        .config()
        .file
        .agents
        .keys()
        .filter(|agent| agent.as_str().ends_with(&suffix) && reached_by_bridge(mailroom, agent))
        .cloned()
        .collect();
    for member in members {
        if let Err(e) = refuse_member(mailroom, team, &member, report) {
            report.problems.push(format!("mail for {member}: {e}"));
        }
    }
}

fn refuse_member(
    mailroom: &Mailroom,
    team: &Team,
    member: &AgentId,
    report: &mut PassReport,
) -> Result<(), super::BridgeError> {
    let as_member = Mailroom::new(mailroom.config().clone(), Some(member))?;
    let mailbox = as_member.my_mailbox()?;
    let reason = format!(
        "not delivered: the Claude Code team {} has ended{} and no one reads its inboxes; \
         send again once a team of that name is back",
        team.name,
        if team.is_session() {
            " (its session exited)"
        } else {
            ""
        }
    );
    for envelope in &mailbox.list(Folder::Inbox)?.messages {
        let message = mailbox.read(envelope)?;
        let reference = MessageRef::parse(envelope.file.as_str())?;
        match as_member.transition(Transition::Reject, &reference, &reason) {
            Ok(_) => report.carried.push(Carried {
                direction: "refused".to_owned(),
                from: message
                    .header
                    .get(field::SENDER)
                    .unwrap_or_default()
                    .to_owned(),
                to: member.to_string(),
                title: message.header.title.clone(),
                id: message.header.id().to_owned(),
            }),
            Err(filebox_core::Error::AlreadyHandled { .. }) => {}
            Err(e) => return Err(e.into()),
        }
    }
    Ok(())
}
