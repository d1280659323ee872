//! Callbacks: when a reply reaches a message that carries a `callback`, the hub POSTs the
//! message (its `AgentEmail` as JSON) to the endpoint, or for an `rpc` callback calls the
//! JSON-RPC method with it (`rpc`), signed the Standard Webhooks way (`sign`), at least once: a failed try is retried with exponential backoff under the same
//! `webhook-id`, and every try's outcome is a processing-history line of the message
//! (`ledger`), written through the core. The files say what is pending, so the deliveries are
//! found at start, again on every change the live-event feed reports for a message with a
//! callback, after events were lost, and after the bound on deliveries under way turned some
//! away (`flights`). The endpoint is checked against the config's
//! `hub.callback_allow` before every try, not only when the message was sent: a file can be
//! written by anyone.

mod flights;
mod ledger;
pub(crate) mod post;
mod rpc;
mod sign;

use std::time::Duration;

use anyhow::Context;
use filebox_api::MessageDetail;
use filebox_core::message::FileName;
use filebox_core::message::field;
use filebox_core::{AgentId, Config, Envelope, Folder, Mailbox, Mailroom, Message, MessageRef};
use tokio::sync::broadcast;

use flights::Flights;
pub(crate) use ledger::Webhook;
pub(crate) use post::check_endpoint;
pub(crate) use rpc::check_method;
pub(crate) use sign::Secret;

use crate::email::view::{agent_email, parse_callback};
use crate::events::HubEvent;
use crate::hub::Hub;
use crate::task_states::Run;
use crate::tasks::keep_running;

/// The longest wait between two tries.
const MAX_BACKOFF: Duration = Duration::from_secs(3600);
/// Headers a callback may not set: the hub's own.
const RESERVED_HEADERS: &[&str] = &[
    "host",
    "content-type",
    "content-length",
    "transfer-encoding",
    "connection",
];

/// Deliver webhooks until the hub stops: what is due now, then what changes make due; kept
/// running (`tasks.rs`), with `changes` for the first run and a new subscription after.
pub(crate) async fn supervise(hub: Hub, changes: broadcast::Receiver<HubEvent>) {
    let flights = Flights::default();
    let mut first = Some(changes);
    keep_running(hub.clone(), "webhooks".into(), |run| {
        let changes = first.take().unwrap_or_else(|| hub.events().live());
        send(hub.clone(), flights.clone(), changes, run)
    })
    .await;
}

/// One run of the sender: a scan of every mailbox, then the changes as they come (and a scan
/// again whenever events were lost).
async fn send(
    hub: Hub,
    flights: Flights,
    mut changes: broadcast::Receiver<HubEvent>,
    run: Run,
) -> anyhow::Result<()> {
    let stop = hub.sessions();
    let mut rescan = true;
    loop {
        if std::mem::take(&mut rescan) {
            let config = hub
                .config()
                .context("reading the config for the webhooks")?;
            let due = tokio::task::spawn_blocking(move || due_everywhere(&config))
                .await
                .context("looking for the webhooks due")?;
            launch(&hub, &flights, due);
            run.up();
        }
        let event = tokio::select! {
            _ = stop.cancelled() => return Ok(()),
            // Webhooks were turned away by the bound on those in flight: the files still owe
            // them.
            () = flights.drained() => {
                rescan = true;
                continue;
            }
            event = changes.recv() => event,
        };
        match event {
            Ok(event) if event.is_resync() => rescan = true,
            Ok(event) if event.has_callback => {
                let (Ok(agent), Some(id), Ok(file)) = (
                    AgentId::new(&event.agent),
                    event.message_id,
                    FileName::new(&event.file),
                ) else {
                    continue;
                };
                let config = hub.config();
                let found = tokio::task::spawn_blocking(move || {
                    config.map(|c| due_in(&c, &agent, &id, &file).unwrap_or_default())
                });
                if let Ok(Ok(due)) = found.await {
                    launch(&hub, &flights, due);
                }
            }
            Ok(_) => {}
            Err(broadcast::error::RecvError::Lagged(_)) => rescan = true,
            Err(broadcast::error::RecvError::Closed) => return Ok(()),
        }
    }
}

/// A webhook that is due, and the message that owes it.
struct Due {
    message_id: String,
    /// The name of the message's copies (`Mailbox::speaking_copy_named`).
    file: FileName,
    webhook: Webhook,
}

/// Start a delivery for each due webhook not already under way.
fn launch(hub: &Hub, flights: &Flights, due: Vec<Due>) {
    for Due {
        message_id,
        file,
        webhook,
    } in due
    {
        let Some(flight) = flights.take(&webhook.id) else {
            continue;
        };
        let Ok(owner) = AgentId::new(&webhook.mailbox) else {
            continue;
        };
        let hub = hub.clone();
        tokio::spawn(async move {
            deliver(&hub, &owner, (&message_id, &file), &flight.id).await;
            drop(flight);
        });
    }
}

/// The due webhooks of `agent`'s copy of message `id` (a copy of which is named `file`).
fn due_in(
    config: &Config,
    agent: &AgentId,
    id: &str,
    file: &FileName,
) -> filebox_core::Result<Vec<Due>> {
    Ok(webhooks_in(config, agent, id, file)?
        .into_iter()
        .filter(Webhook::due)
        .map(|webhook| Due {
            message_id: id.to_owned(),
            file: file.clone(),
            webhook,
        })
        .collect())
}

/// The webhooks `agent`'s copy of message `id` that speaks for it owes (none if it has no
/// copy): the ledger is read from the copy the attempts are written to (`Mailroom::annotate`).
/// The copy is looked for under `file`, the name of a copy of it, before by id
/// (`Mailbox::speaking_copy_named`): every change to a message with a callback comes here.
fn webhooks_in(
    config: &Config,
    agent: &AgentId,
    id: &str,
    file: &FileName,
) -> filebox_core::Result<Vec<Webhook>> {
    let mailbox = config.mailbox_to_read(agent)?;
    Ok(speaking_copy(&mailbox, id, file)?
        .map(|(_, message)| ledger::owed(agent, &message))
        .unwrap_or_default())
}

/// The copy of message `id` in `mailbox` that speaks for it (`filebox_core::copy`), if any.
fn speaking_copy(
    mailbox: &Mailbox,
    id: &str,
    file: &FileName,
) -> filebox_core::Result<Option<(Envelope, Message)>> {
    match mailbox.speaking_copy_named(id, file, &Folder::ALL) {
        Ok(copy) => Ok(Some(copy)),
        Err(filebox_core::Error::NotFound { .. }) => Ok(None),
        Err(e) => Err(e),
    }
}

/// Every due webhook of every mailbox (at start, after lost events, after an overflow of
/// `flights`). The files are read one at a time and only the due webhooks kept (a listing
/// would hold every header of the mailbox at once, and a map of every message with a callback
/// grows with the mailbox): a message with copies in several folders is looked at once per
/// copy, and each of its webhooks started once (`Flights`).
fn due_everywhere(config: &Config) -> Vec<Due> {
    let mut due = Vec::new();
    for (agent, mailbox) in config.readable_mailboxes() {
        for folder in Folder::ALL {
            // A folder that cannot be read owes nothing now; the next rescan looks again.
            let _ = mailbox.visit_envelopes(folder, |envelope| {
                if envelope.header.get(field::CALLBACK).is_some() {
                    let owed = due_in(config, agent, envelope.header.id(), &envelope.file);
                    due.extend(owed.unwrap_or_default());
                }
            });
        }
    }
    due
}

/// Every webhook message `id` (a copy of which is named `file`) owes, in the mailboxes within
/// `viewer`'s reach (for `email.status`).
pub(crate) fn webhooks_of(viewer: &Mailroom, id: &str, file: &FileName) -> Vec<Webhook> {
    viewer
        .reachable()
        .flat_map(|agent| webhooks_in(viewer.config(), agent, id, file).unwrap_or_default())
        .collect()
}

/// One try, ready to send.
struct Attempt {
    /// The name of the copy that owes it, where its outcome is written.
    copy: FileName,
    endpoint: String,
    /// An `rpc` callback's method: the answer must be its JSON-RPC result.
    method: Option<String>,
    headers: Vec<(String, String)>,
    body: Vec<u8>,
    secret: Secret,
    number: u32,
    last: bool,
    backoff: Duration,
}

/// What became of the preparation of a try.
enum Next {
    Try(Attempt),
    /// Nothing left to do (delivered, given up, or the copy is gone).
    Done,
}

/// Try until delivered, given up, or the hub stops (a restart takes over from the files).
/// `message` is the id of the message that owes the webhook and the name of its copies.
async fn deliver(hub: &Hub, owner: &AgentId, message: (&str, &FileName), webhook_id: &str) {
    let stop = hub.sessions();
    loop {
        let prepared = {
            let (hub, owner, message_id, file, webhook_id) = (
                hub.clone(),
                owner.clone(),
                message.0.to_owned(),
                message.1.clone(),
                webhook_id.to_owned(),
            );
            tokio::task::spawn_blocking(move || {
                prepare(&hub, &owner, (&message_id, &file), &webhook_id)
            })
            .await
        };
        let attempt = match prepared {
            Ok(Ok(Next::Try(attempt))) => attempt,
            Ok(Ok(Next::Done)) => return,
            Ok(Err(e)) => {
                tracing::warn!(webhook = %webhook_id, "{e}");
                return;
            }
            Err(_) => return,
        };
        let timestamp = std::time::SystemTime::now()
            .duration_since(std::time::UNIX_EPOCH)
            .map_or(0, |d| d.as_secs() as i64);
        let mut headers = attempt.headers.clone();
        headers.extend([
            ("webhook-id".to_owned(), webhook_id.to_owned()),
            ("webhook-timestamp".to_owned(), timestamp.to_string()),
            (
                "webhook-signature".to_owned(),
                attempt.secret.sign(webhook_id, timestamp, &attempt.body),
            ),
        ]);
        let outcome = post::post(&attempt.endpoint, &headers, attempt.body.clone()).await;
        let tried = format!(
            "{webhook_id} {}{} to {}",
            ledger::ATTEMPT,
            attempt.number,
            attempt.endpoint
        );
        let taken = outcome.and_then(|answer| {
            let code = answer.status;
            if !(200..300).contains(&code) {
                return Err(format!("HTTP {code}"));
            }
            match &attempt.method {
                Some(method) => rpc::accepted(webhook_id, &answer.body)
                    .map(|()| format!("HTTP {code}, {method} returned a result")),
                None => Ok(format!("HTTP {code}")),
            }
        });
        let (action, details, retry) = match taken {
            Ok(how) => (ledger::DELIVERED, format!("{tried}: {how}"), None),
            Err(why) => {
                if attempt.last {
                    let details = format!("{tried}: {why}; gave up after {} tries", attempt.number);
                    (ledger::ABANDONED, details, None)
                } else {
                    let details = format!(
                        "{tried}: {why}; next try in {} ms",
                        attempt.backoff.as_millis()
                    );
                    (ledger::FAILED, details, Some(attempt.backoff))
                }
            }
        };
        if let Err(e) = record(hub, owner, &attempt.copy, action, &details).await {
            tracing::warn!(webhook = %webhook_id, "recording the attempt: {e}");
            return;
        }
        let Some(wait) = retry else { return };
        tokio::select! {
            _ = stop.cancelled() => return,
            _ = tokio::time::sleep(wait) => {}
        }
    }
}

/// Read the copy and the config as they are now: the next try, or why there is none (a
/// refusal is recorded as the last line).
fn prepare(
    hub: &Hub,
    owner: &AgentId,
    (message_id, file): (&str, &FileName),
    webhook_id: &str,
) -> anyhow::Result<Next> {
    let (config, settings) = hub.current()?;
    let mailroom = Mailroom::new(config, Some(owner))?;
    let mailbox = mailroom.my_mailbox()?;
    let Some((copy, message)) = speaking_copy(&mailbox, message_id, file)? else {
        return Ok(Next::Done);
    };
    // The attempts are written by the name of the copy found to hold the message.
    let reference = MessageRef::File(copy.file.clone());
    let Some(webhook) = ledger::owed(owner, &message)
        .into_iter()
        .find(|w| w.id == webhook_id && w.due())
    else {
        return Ok(Next::Done);
    };
    let settings = settings
        .as_ref()
        .as_ref()
        .map_err(|e| anyhow::anyhow!("{e}"))?;
    let refusal = |why: String| -> anyhow::Result<Next> {
        mailroom.annotate(
            &reference,
            ledger::ABANDONED,
            ledger::BY,
            &format!("{webhook_id} refused: {why}"),
        )?;
        Ok(Next::Done)
    };
    let Some(callback) = message.header.get(field::CALLBACK).and_then(parse_callback) else {
        return refusal("the Callback header is not a callback's JSON".into());
    };
    let Some(target) = callback.target().0.map(str::to_owned) else {
        return refusal("an rpc callback without the url of its JSON-RPC endpoint".into());
    };
    if let Some(Err(why)) = callback.method().map(check_method) {
        return refusal(format!("the method {:?}: {why}", callback.endpoint));
    }
    if !settings.allows_callback(&target) {
        return refusal(format!(
            "{target} is not under an entry of hub.callback_allow"
        ));
    }
    if let Err(why) = check_endpoint(&target) {
        return refusal(format!("{target}: {why}"));
    }
    let secret = match settings.webhook_secret.as_deref().map(Secret::parse) {
        Some(Ok(secret)) => secret,
        Some(Err(why)) => return refusal(why),
        None => return refusal("the config has no hub.webhook_secret to sign with".into()),
    };
    let detail = MessageDetail::new(owner, &copy, &message);
    let email = serde_json::to_value(agent_email(owner.as_str(), &detail))?;
    let method = callback.method().map(str::to_owned);
    let body = match &method {
        Some(method) => serde_json::to_vec(&rpc::request(method, webhook_id, &email))?,
        None => serde_json::to_vec(&email)?,
    };
    let number = webhook.attempts + 1;
    let backoff = Duration::from_millis(settings.webhook_first_retry_ms)
        .saturating_mul(2u32.saturating_pow(number.saturating_sub(1).min(31)))
        .min(MAX_BACKOFF);
    Ok(Next::Try(Attempt {
        copy: copy.file,
        endpoint: target,
        method,
        headers: callback
            .headers
            .into_iter()
            .filter(|(name, _)| {
                let name = name.to_ascii_lowercase();
                !name.starts_with("webhook-") && !RESERVED_HEADERS.contains(&name.as_str())
            })
            .collect(),
        body,
        secret,
        number,
        last: number >= settings.webhook_attempts.max(1),
        backoff,
    }))
}

/// Write one attempt's line into the owner's copy, through the core.
async fn record(
    hub: &Hub,
    owner: &AgentId,
    copy: &FileName,
    action: &'static str,
    details: &str,
) -> anyhow::Result<()> {
    let (hub, owner, copy, details) =
        (hub.clone(), owner.clone(), copy.clone(), details.to_owned());
    tokio::task::spawn_blocking(move || -> anyhow::Result<()> {
        let mailroom = Mailroom::new(hub.config()?, Some(&owner))?;
        mailroom.annotate(&MessageRef::File(copy), action, ledger::BY, &details)?;
        Ok(())
    })
    .await?
}
