//! The receiver: this hub's durable pull consumer on `filebox.<me>.>`. Messages are applied
//! one at a time in stream order (so mail from one sender arrives in the order it was sent,
//! across a crash too: the server hands out one message at a time) on a blocking thread, and acknowledged only once the files are durable (the core fsyncs before
//! it returns) and, for mail, once the delivery receipt to the sending hub is in the stream;
//! a crash before the acknowledgement means a redelivery, which the core's idempotent
//! delivery absorbs (and the receipt's `Nats-Msg-Id` deduplicates). What can never be applied
//! is set aside in `federation/refused` beside the config, with the reason, and terminated;
//! for mail, a refusal goes back to the sending hub first, as a receipt does.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::Duration;

use anyhow::Context;
use async_nats::jetstream::{self, AckKind, consumer, message::PublishMessage};
use filebox_core::LiveConfig;
use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::connect;
use crate::outbound::{self, Outgoing};
use crate::published::{DIR, Published};
use crate::receive::{self, Failure};
use crate::wire::{self, Addressed, Event};

/// How long the stream waits for an acknowledgement before it redelivers (a hub killed with
/// messages in hand gets them again this long after it returns).
const ACK_WAIT: Duration = Duration::from_secs(10);
/// How many messages the server hands out before the first is acknowledged: one, so a hub
/// killed with a message in hand gets that one again before any later one (the stream's order,
/// so each sender's, survives a crash: with more in hand, those not yet acknowledged would come
/// back only after [`ACK_WAIT`], behind the later ones).
const MAX_ACK_PENDING: i64 = 1;
/// How many messages one pull asks for (the server still hands out [`MAX_ACK_PENDING`] at a
/// time).
const BATCH: usize = 16;
/// How long one pull waits on the server, and the heartbeat that tells a dead connection
/// (a restarted NATS) from a quiet one: the consumer is opened again after two missed beats.
const PULL_EXPIRES: Duration = Duration::from_secs(4);
const HEARTBEAT: Duration = Duration::from_secs(2);
/// The longest pause before consuming again after NATS went away.
const MAX_RETRY_DELAY: Duration = Duration::from_secs(2);

/// The receiver of one hub.
pub(crate) struct Inbound {
    pub(crate) config: Arc<LiveConfig>,
    pub(crate) me: String,
    pub(crate) js: jetstream::Context,
    /// The stream's replicas, when this hub creates it.
    pub(crate) replicas: usize,
    pub(crate) published: Arc<Mutex<Published>>,
}

impl Inbound {
    /// Consume until `stop` is cancelled, starting again whenever the connection breaks.
    pub(crate) async fn run(self, stop: CancellationToken) {
        let mut delay = Duration::from_millis(50);
        while !stop.is_cancelled() {
            match self.consume(&stop).await {
                Ok(()) => return,
                Err(e) => eprintln!(
                    "filebox serve: federation (hub {}): receiving stopped (starting again): {e:#}",
                    self.me
                ),
            }
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(delay) => {}
            }
            delay = (delay * 2).min(MAX_RETRY_DELAY);
        }
    }

    async fn consume(&self, stop: &CancellationToken) -> anyhow::Result<()> {
        let stream = connect::stream(&self.js, self.replicas).await?;
        let consumer = open_consumer(&stream, &self.me).await?;
        let mut messages = consumer
            .stream()
            .max_messages_per_batch(BATCH)
            .expires(PULL_EXPIRES)
            .heartbeat(HEARTBEAT)
            .messages()
            .await
            .context("pulling from the consumer")?;
        loop {
            let next = tokio::select! {
                _ = stop.cancelled() => return Ok(()),
                next = messages.next() => next,
            };
            let message = match next {
                None => anyhow::bail!("the consumer's message stream ended"),
                Some(message) => message.context("pulling a message")?,
            };
            self.handle(message).await?;
        }
    }

    /// Apply one message and acknowledge it (or set it aside, or ask for a redelivery).
    async fn handle(&self, message: jetstream::Message) -> anyhow::Result<()> {
        let subject = message.subject.to_string();
        let header = |name: &str| {
            message
                .headers
                .as_ref()
                .and_then(|h| h.get(name))
                .map(|v| v.to_string())
        };
        let headers = Headers {
            file: header(wire::FILE_HEADER),
            message_id: header(wire::MESSAGE_ID_HEADER),
        };
        let payload = message.payload.to_vec();
        let config = self.config.clone();
        let me = self.me.clone();
        let published = self.published.clone();
        let applied = tokio::task::spawn_blocking(move || {
            apply(&config, &me, &subject, &headers, &payload, &published)
        })
        .await
        .context("the delivery thread panicked")?;
        match applied {
            Ok(receipt) => {
                if let Some(receipt) = receipt {
                    self.send_event(&receipt).await?;
                }
                message
                    .double_ack()
                    .await
                    .map_err(|e| anyhow::anyhow!("acknowledging: {e}"))
            }
            Err(Failure::Retry(e)) => {
                eprintln!(
                    "filebox serve: federation (hub {}): {} (will be redelivered): {e:#}",
                    self.me, message.subject
                );
                message
                    .ack_with(AckKind::Nak(Some(Duration::from_secs(1))))
                    .await
                    .map_err(|e| anyhow::anyhow!("asking for a redelivery: {e}"))
            }
            Err(Failure::Refused(e)) => {
                eprintln!(
                    "filebox serve: federation (hub {}): refused {}: {e:#}",
                    self.me, message.subject
                );
                // Mail: its sending hub learns why, as it learns of a delivery, so its status
                // says failed instead of in flight (before the termination: a failure here
                // means the mail comes again, and so does the refusal).
                if let Some(Addressed::Mail { from, agent }) =
                    wire::addressed(&message.subject, &self.me)
                    && let Some(refusal) = receive::refusal(&self.me, &agent, &message.payload, &e)
                {
                    self.send_event(&outbound::event(&from, &self.me, refusal)?)
                        .await?;
                }
                set_aside(self.config.path(), &message.subject, &e, &message.payload)?;
                message
                    .double_ack_with(AckKind::Term)
                    .await
                    .map_err(|e| anyhow::anyhow!("terminating: {e}"))
            }
        }
    }
}

/// This hub's durable consumer, created, or updated to this config (a consumer an older hub
/// made hands out up to 1,000 messages at a time).
async fn open_consumer(
    stream: &jetstream::stream::Stream,
    me: &str,
) -> anyhow::Result<consumer::PullConsumer> {
    let name = wire::consumer_for(me);
    stream
        .create_consumer(consumer::pull::Config {
            durable_name: Some(name.clone()),
            filter_subject: wire::filter_for(me),
            ack_policy: consumer::AckPolicy::Explicit,
            ack_wait: ACK_WAIT,
            max_ack_pending: MAX_ACK_PENDING,
            ..Default::default()
        })
        .await
        .with_context(|| format!("opening the durable consumer {name}"))
}

/// The headers of a message of the stream that say what it carries.
struct Headers {
    file: Option<String>,
    message_id: Option<String>,
}

impl Inbound {
    /// Hand a delivery receipt or a refusal to the stream (before the mail it is for is
    /// acknowledged: a failure here means the mail comes again, and so does its answer).
    async fn send_event(&self, event: &Outgoing) -> anyhow::Result<()> {
        let publish = PublishMessage::build()
            .payload(event.payload.clone().into())
            .message_id(&event.key);
        self.js
            .send_publish(event.subject.clone(), publish)
            .await
            .with_context(|| format!("publishing {}", event.key))?
            .await
            .with_context(|| format!("the stream's acknowledgement of {}", event.key))?;
        Ok(())
    }
}

/// Apply one message of the stream; for mail, the delivery receipt to publish.
fn apply(
    live: &LiveConfig,
    me: &str,
    subject: &str,
    headers: &Headers,
    payload: &[u8],
    published: &Mutex<Published>,
) -> Result<Option<Outgoing>, Failure> {
    match wire::addressed(subject, me) {
        Some(Addressed::Mail { from, agent }) => {
            let receipt = receive::mail(live, me, &from, &agent, headers.file.as_deref(), payload)?;
            outbound::event(&from, me, receipt)
                .map(Some)
                .map_err(Failure::Retry)
        }
        Some(Addressed::Attachment { agent, .. }) => receive::attachment(
            live,
            me,
            &agent,
            headers.message_id.as_deref(),
            headers.file.as_deref(),
            payload,
        )
        .map(|()| None),
        Some(Addressed::Event { from }) => {
            let event = receive::event(live, me, &from, payload)?;
            // The hub that sent an obsolete mark has it: never send it back.
            if let Event::Obsolete { .. } = &event {
                let key = wire::event_id(&from, &event);
                published
                    .lock()
                    .expect("published keys")
                    .record(&key)
                    .map_err(Failure::Retry)?;
            }
            Ok(None)
        }
        None => Err(Failure::Refused(anyhow::anyhow!(
            "not a subject hub {me} understands"
        ))),
    }
}

/// Keep what was refused, with why, in `federation/refused` beside the config.
fn set_aside(
    config_path: &std::path::Path,
    subject: &str,
    why: &anyhow::Error,
    payload: &[u8],
) -> anyhow::Result<()> {
    let dir = config_path
        .parent()
        .unwrap_or(std::path::Path::new("."))
        .join(DIR);
    std::fs::create_dir_all(&dir).with_context(|| format!("creating {}", dir.display()))?;
    let path = dir.join(REFUSED);
    let mut file = std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(&path)
        .with_context(|| format!("opening {}", path.display()))?;
    let record = serde_json::json!({
        "subject": subject,
        "reason": format!("{why:#}"),
        "payload": String::from_utf8_lossy(payload),
    });
    writeln!(file, "{record}").with_context(|| format!("writing {}", path.display()))?;
    file.sync_data()
        .with_context(|| format!("syncing {}", path.display()))
}

/// The file of refused messages (JSON lines), in the federation's folder.
pub(crate) const REFUSED: &str = "refused";

#[cfg(test)]
mod tests {
    use super::*;
    use crate::local_nats::LocalNats;

    #[tokio::test]
    async fn a_consumer_an_older_hub_made_hands_out_one_message_at_a_time_after_a_start() {
        let dir = tempfile::tempdir().unwrap();
        let server = LocalNats::start(&dir.path().join("jetstream")).unwrap();
        let client = async_nats::connect(server.url()).await.unwrap();
        let js = connect::jetstream(client);
        let stream = connect::stream(&js, 1).await.unwrap();
        // As a hub before this version made it: the server's default in flight.
        let name = wire::consumer_for("ci-1");
        let older: consumer::PullConsumer = stream
            .create_consumer(consumer::pull::Config {
                durable_name: Some(name.clone()),
                filter_subject: wire::filter_for("ci-1"),
                ack_policy: consumer::AckPolicy::Explicit,
                ack_wait: ACK_WAIT,
                ..Default::default()
            })
            .await
            .unwrap();
        assert_ne!(older.cached_info().config.max_ack_pending, MAX_ACK_PENDING);
        let mut opened = open_consumer(&stream, "ci-1").await.unwrap();
        assert_eq!(
            opened.info().await.unwrap().config.max_ack_pending,
            MAX_ACK_PENDING
        );
    }
}
