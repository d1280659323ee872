//! What webhooks a message owes and how far each got, read from the message file alone.
//!
//! A message with a `Callback` header owes one webhook per reply in its conversation that its
//! original sender did not write: the n-th conversation entry's webhook is `<Message ID>#<n>`
//! (its `webhook-id`, the same on every try). It is owed by the copy that speaks for the
//! message (`filebox_core::copy`) in the mailbox of the reply's first recipient, and each
//! attempt is a processing-history line of that copy:
//! `Webhook Failed` (another try follows), `Webhook Delivered` or `Webhook Abandoned` (the
//! last), whose details start with the webhook id. So a restarted hub knows what is pending.

use filebox_core::message::field;
use filebox_core::{AgentId, Message};
use schemars::JsonSchema;
use serde::Serialize;

/// An attempt that failed; another follows.
pub(crate) const FAILED: &str = "Webhook Failed";
/// The attempt that reached the endpoint (2xx).
pub(crate) const DELIVERED: &str = "Webhook Delivered";
/// No more tries: the endpoint is not allowed, or every attempt failed.
pub(crate) const ABANDONED: &str = "Webhook Abandoned";
/// How the details of a line that records a try go on after the webhook id.
pub(crate) const ATTEMPT: &str = "attempt ";
/// Who the lines are written by.
pub(crate) const BY: &str = "hub";

/// Where a webhook stands.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "lowercase")]
pub(crate) enum WebhookState {
    /// Not tried yet.
    Pending,
    /// Tried and failed; tried again later.
    Failing,
    Delivered,
    /// Given up (see `lastOutcome`).
    Failed,
}

/// One owed webhook, as `email.status` shows it.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct Webhook {
    /// The `webhook-id`: `<Message ID>#<n>`, n the reply's place in the conversation.
    pub(crate) id: String,
    /// The mailbox whose copy records the attempts (the reply's recipient).
    pub(crate) mailbox: String,
    pub(crate) state: WebhookState,
    pub(crate) attempts: u32,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) last_attempt_at: Option<String>,
    /// The last attempt's details (status code or error).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub(crate) last_outcome: Option<String>,
}

impl Webhook {
    /// Whether the hub still has to try it.
    pub(crate) fn due(&self) -> bool {
        matches!(self.state, WebhookState::Pending | WebhookState::Failing)
    }
}

/// The webhooks `owner`'s copy `message` owes (none without a `Callback`).
pub(crate) fn owed(owner: &AgentId, message: &Message) -> Vec<Webhook> {
    let header = &message.header;
    if header.get(field::CALLBACK).is_none() {
        return Vec::new();
    }
    let asker = filebox_core::copy::sender(message);
    let id = header.id();
    message
        .conversation
        .iter()
        .enumerate()
        .filter(|(_, entry)| entry.from != asker)
        .filter(|(_, entry)| entry.to.split(',').next().map(str::trim) == Some(owner.as_str()))
        .map(|(index, _)| {
            let webhook_id = format!("{id}#{}", index + 1);
            let prefix = format!("{webhook_id} ");
            let lines: Vec<_> = message
                .processing
                .iter()
                .filter(|line| matches!(line.action.as_str(), FAILED | DELIVERED | ABANDONED))
                .filter(|line| line.details.starts_with(&prefix))
                .collect();
            let last = lines.last();
            Webhook {
                state: match last.map(|line| line.action.as_str()) {
                    None => WebhookState::Pending,
                    Some(DELIVERED) => WebhookState::Delivered,
                    Some(ABANDONED) => WebhookState::Failed,
                    Some(_) => WebhookState::Failing,
                },
                attempts: lines
                    .iter()
                    .filter(|line| line.details[prefix.len()..].starts_with(ATTEMPT))
                    .count() as u32,
                last_attempt_at: last.map(|line| line.timestamp.clone()),
                last_outcome: last.map(|line| line.details[prefix.len()..].to_owned()),
                mailbox: owner.to_string(),
                id: webhook_id,
            }
        })
        .collect()
}
