//! Applying what arrived from another hub to the mailbox files, through the core only:
//! mail is delivered with `Mailroom::deliver_travelled` (idempotent: a redelivery writes
//! nothing) and answered with a delivery receipt, its attachments are kept beside it, a
//! copy's new state is mirrored into the sender's stand-in mailbox, a fork's obsolete marks
//! are written with `Mailroom::mark_obsolete`, a receipt marks the spool copy it is for, and a
//! refusal moves it to cancel/ with the reason (`Mailroom::record_refusal`). Every
//! name is checked against the hub the subject says it came from: a hub speaks only for its
//! own agents.

use filebox_core::message::{FileName, field, parse};
use filebox_core::{
    AgentEntry, AgentId, Config, ENTRY_SEPARATOR, Error, Folder, LiveConfig, Mailroom, Message,
    MessageRef, Unsynced, replier_copy_folder,
};

use crate::names;
use crate::settings::check_hub_name;
use crate::wire::Event;

/// Why something that arrived was not applied.
#[derive(Debug)]
pub(crate) enum Failure {
    /// It can never be applied (malformed, not addressed to an agent here, a hub speaking for
    /// another): it is set aside, not retried.
    Refused(anyhow::Error),
    /// It may work later (the disk, the config): it is redelivered.
    Retry(anyhow::Error),
}

impl From<Error> for Failure {
    fn from(error: Error) -> Self {
        match error {
            Error::Io { .. } | Error::Index { .. } | Error::Config { .. } => {
                Failure::Retry(error.into())
            }
            other => Failure::Refused(other.into()),
        }
    }
}

fn refused(message: impl std::fmt::Display) -> Failure {
    Failure::Refused(anyhow::anyhow!("{message}"))
}

/// The agent of this hub a subject's agent token names.
fn local_agent(config: &Config, me: &str, agent_token: &str) -> Result<AgentId, Failure> {
    check_local(config, me, names::from_subject_token(agent_token)?)
}

/// `agent`, when it is an agent of this hub.
fn check_local(config: &Config, me: &str, agent: AgentId) -> Result<AgentId, Failure> {
    match config.agent(&agent) {
        Ok(entry) if entry.hub().is_none() => Ok(agent),
        Ok(_) => Err(refused(format!("{agent} is not an agent of hub {me}"))),
        Err(_) => Err(refused(format!("hub {me} has no agent {agent}"))),
    }
}

/// Keep an attachment of a mail for `agent_token` that hub `from` published (just before the
/// mail that links to it).
pub(crate) fn attachment(
    live: &LiveConfig,
    me: &str,
    agent_token: &str,
    id: Option<&str>,
    name: Option<&str>,
    payload: &[u8],
) -> Result<(), Failure> {
    let config = live.current()?;
    let agent = local_agent(&config, me, agent_token)?;
    let id = id.ok_or_else(|| refused("an attachment without a Filebox-Message-Id header"))?;
    let name = name.ok_or_else(|| refused("an attachment without a Filebox-File header"))?;
    let limit = config.max_body_bytes();
    if payload.len() > limit {
        return Err(refused(format!(
            "attachment {name} of {id}: {} bytes, more than max_body_bytes ({limit}) here",
            payload.len()
        )));
    }
    let mailroom = Mailroom::new(config, Some(&agent))?;
    mailroom
        .mailbox(&agent)?
        .keep_travelled_attachment(id, name, payload)?;
    Ok(())
}

/// Deliver a mail for `agent_token` (the subject's agent) that hub `from` published; returns
/// the delivery receipt to send back once the file is on disk (once `unsynced` is synced).
pub(crate) fn mail(
    live: &LiveConfig,
    me: &str,
    from: &str,
    agent_token: &str,
    file: Option<&str>,
    payload: &[u8],
    unsynced: &mut Unsynced,
) -> Result<Event, Failure> {
    let config = live.current()?;
    let agent = local_agent(&config, me, agent_token)?;
    let file = FileName::new(file.ok_or_else(|| refused("no Filebox-File header"))?)?;
    let mut message = parse_payload(payload)?;
    let sender = message
        .header
        .get(field::SENDER)
        .unwrap_or_default()
        .to_owned();
    if names::hub_of_name(&sender) != Some(from) {
        return Err(refused(format!(
            "hub {from} may only send mail from its own agents, not from {sender:?}"
        )));
    }
    names::from_wire(&mut message, me);
    let config = learn(config, &message, me)?;
    let mailroom = Mailroom::new(config, Some(&agent))?;
    mailroom.deliver_travelled(&agent, &file, &message, unsynced)?;
    // A reply: the sender's stand-in here records what it sent (its copy moves on, to where
    // a replier keeps its copy: a question it answered in done/), so the status of what we
    // sent it follows.
    let sender = AgentId::new(&sender)?;
    if !message.conversation.is_empty()
        && mailroom.holds_travelled(&sender, message.header.id(), &file)
    {
        let kept = replier_copy_folder(&message.header, &sender);
        mailroom.mirror_travelled(&sender, kept, &file, &message)?;
    }
    for obsolete in message.header.list(field::OBSOLETES) {
        if !obsolete.contains(ENTRY_SEPARATOR) {
            mailroom.mark_obsolete(&obsolete)?;
        }
    }
    Ok(Event::Received {
        agent: names::qualify(agent.as_str(), me),
        id: message.header.id().to_owned(),
        conversation: message.conversation.len(),
        file: Some(file.to_string()),
    })
}

/// Apply an event hub `from` published; returns it for the caller's bookkeeping.
pub(crate) fn event(
    live: &LiveConfig,
    me: &str,
    from: &str,
    payload: &[u8],
) -> Result<Event, Failure> {
    let config = live.current()?;
    let event: Event =
        serde_json::from_slice(payload).map_err(|e| refused(format!("not an event: {e}")))?;
    match &event {
        Event::State {
            agent,
            folder,
            file,
            markdown,
        } => {
            if names::hub_of_name(agent) != Some(from) {
                return Err(refused(format!(
                    "hub {from} may only report its own agents' copies, not {agent:?}"
                )));
            }
            let folder = Folder::parse(folder)
                .filter(|f| matches!(f, Folder::Hold | Folder::Done | Folder::Cancel))
                .ok_or_else(|| refused(format!("no such state: {folder}")))?;
            let file = FileName::new(file)?;
            let mut message = parse_payload(markdown.as_bytes())?;
            names::from_wire(&mut message, me);
            let agent = AgentId::new(agent)?;
            let config = learn(config, &message, me)?;
            if config.agent(&agent)?.hub() != Some(from) {
                return Err(refused(format!(
                    "{agent} is not an agent of hub {from} here"
                )));
            }
            let mailroom = Mailroom::new(config, Some(&agent))?;
            mailroom.mirror_travelled(&agent, folder, &file, &message)?;
        }
        Event::Obsolete { id } => {
            MessageRef::parse(id)?;
            let any = config
                .file
                .agents
                .keys()
                .next()
                .cloned()
                .ok_or_else(|| refused("no agents in the config"))?;
            Mailroom::new(config, Some(&any))?.mark_obsolete(id)?;
        }
        Event::Received {
            agent,
            id,
            conversation,
            file,
        } => {
            let agent = own_agent(&config, from, agent, id)?;
            // A name that is not one is no reason to drop the receipt: looked up by id.
            let file = file.as_deref().and_then(|name| FileName::new(name).ok());
            Mailroom::new(config, Some(&agent))?.record_receipt(
                &agent,
                id,
                *conversation,
                file.as_ref(),
            )?;
        }
        Event::Withdrawn {
            asker,
            agent,
            id,
            details,
        } => {
            if names::hub_of_name(asker) != Some(from) {
                return Err(refused(format!(
                    "hub {from} may only withdraw its own agents' questions, not {asker:?}"
                )));
            }
            let human = check_local(&config, me, AgentId::new(&names::localise(agent, me))?)?;
            let asker = AgentId::new(asker)?;
            if config.agent(&asker)?.hub() != Some(from) {
                return Err(refused(format!(
                    "{asker} is not an agent of hub {from} here"
                )));
            }
            Mailroom::new(config, Some(&asker))?.withdraw_travelled(&human, id, details)?;
        }
        Event::Refused {
            agent,
            id,
            conversation,
            reason,
        } => {
            let agent = own_agent(&config, from, agent, id)?;
            Mailroom::new(config, Some(&agent))?.record_refusal(
                &agent,
                id,
                *conversation,
                reason,
            )?;
        }
    }
    Ok(event)
}

/// The agent a receipt or refusal from hub `from` is about, when it is one of that hub's (a
/// hub speaks only for its own agents), and the message id it names well-formed.
fn own_agent(config: &Config, from: &str, agent: &str, id: &str) -> Result<AgentId, Failure> {
    if names::hub_of_name(agent) != Some(from) {
        return Err(refused(format!(
            "hub {from} may only speak for its own agents, not {agent:?}"
        )));
    }
    MessageRef::parse(id)?;
    let agent = AgentId::new(agent)?;
    if config.agent(&agent)?.hub() != Some(from) {
        return Err(refused(format!(
            "{agent} is not an agent of hub {from} here"
        )));
    }
    Ok(agent)
}

/// The refusal to send back to hub `from` for a mail to `agent_token` of hub `me` it could not
/// take, when the payload says which message it was.
pub(crate) fn refusal(
    me: &str,
    agent_token: &str,
    payload: &[u8],
    reason: &anyhow::Error,
) -> Option<Event> {
    let message = parse_payload(payload).ok()?;
    let agent = names::from_subject_token(agent_token).ok()?;
    Some(Event::Refused {
        agent: names::qualify(agent.as_str(), me),
        id: message.header.id().to_owned(),
        conversation: message.conversation.len(),
        reason: format!("{reason:#}"),
    })
}

fn parse_payload(payload: &[u8]) -> Result<Message, Failure> {
    let text = std::str::from_utf8(payload).map_err(|e| refused(format!("not UTF-8: {e}")))?;
    parse(text).map_err(|e| refused(format!("not a message file: {e}")))
}

/// Add to the config the agents of other hubs the message names and the config does not know
/// yet (`name@hub`, `"hub": "hub"`), so they can be answered and their status followed.
fn learn(config: Config, message: &Message, me: &str) -> Result<Config, Failure> {
    let unknown: Vec<(AgentId, String)> = names::people(message)
        .iter()
        .filter_map(|name| {
            let hub = names::hub_of_name(name)?;
            let id = AgentId::new(name).ok()?;
            (hub != me && check_hub_name(hub).is_ok() && config.agent(&id).is_err())
                .then(|| (id, hub.to_owned()))
        })
        .collect();
    if unknown.is_empty() {
        return Ok(config);
    }
    Ok(Config::update(&config.path, |file| {
        for (id, hub) in &unknown {
            file.agents
                .entry(id.clone())
                .or_insert_with(|| AgentEntry::on_hub(hub));
        }
        Ok(())
    })?)
}
