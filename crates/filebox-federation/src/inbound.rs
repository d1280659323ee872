//! The receiver: this hub's durable pull consumer on `filebox.<me>.>`. Messages come in
//! batches (whatever the server has handed out, up to [`BATCH`]) and are applied in stream
//! order on a blocking thread, mail sharing one fsync per inbox ([`Unsynced`]); a batch is
//! acknowledged only once its files are durable and, for mail, once the delivery receipts to
//! the sending hubs are in the stream (published together, their acknowledgements awaited
//! together). A crash before the acknowledgements means a redelivery, which the core's
//! idempotent delivery absorbs (and the receipt's `Nats-Msg-Id` deduplicates); the [`Gate`]
//! keeps each sender's order across it. What can never be applied is set aside in
//! `federation/refused` beside the config, with the reason, and terminated; for mail, a
//! refusal goes back to the sending hub first, as a receipt does. What may work later (the
//! disk) goes back for a redelivery, and so does every message after it in the batch.

use std::io::Write;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use anyhow::Context;
use async_nats::jetstream::{self, AckKind, consumer, message::PublishMessage};
use filebox_core::{LiveConfig, Unsynced};
use futures_util::StreamExt;
use tokio_util::sync::CancellationToken;

use crate::connect;
use crate::gate::Gate;
use crate::outbound::{self, Outgoing};
use crate::published::{DIR, Published};
use crate::receive::{self, Failure};
use crate::wire::{self, Addressed, Event};

/// How long the stream waits for an acknowledgement before it redelivers (a hub killed with
/// messages in hand gets them again this long after it returns).
const ACK_WAIT: Duration = Duration::from_secs(10);
/// How many messages one batch holds at most, and one pull asks for.
const BATCH: usize = 128;
/// How many messages the server hands out before the first is acknowledged: two batches, so
/// the next is on its way while one is applied. The [`Gate`] keeps the order that one message
/// at a time would keep by itself.
const MAX_ACK_PENDING: i64 = 2 * BATCH as i64;
/// How long a message handed back for a retry waits before it comes again.
const RETRY_DELAY: Duration = Duration::from_secs(1);
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

/// A message of the stream, as the blocking thread applies it.
struct Arrival {
    subject: String,
    headers: Headers,
    payload: Vec<u8>,
}

impl Arrival {
    /// Whether this is a delivery receipt for hub `me`.
    fn is_receipt(&self, me: &str) -> bool {
        matches!(
            wire::addressed(&self.subject, me),
            Some(Addressed::Event { .. })
        ) && matches!(
            serde_json::from_slice(&self.payload),
            Ok(Event::Received { .. })
        )
    }

    fn of(message: &jetstream::Message) -> Arrival {
        let header = |name: &str| {
            message
                .headers
                .as_ref()
                .and_then(|h| h.get(name))
                .map(|v| v.to_string())
        };
        Arrival {
            subject: message.subject.to_string(),
            headers: Headers {
                file: header(wire::FILE_HEADER),
                message_id: header(wire::MESSAGE_ID_HEADER),
            },
            payload: message.payload.to_vec(),
        }
    }
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
        let info = consumer.cached_info();
        let mut gate = Gate::new(
            info.delivered.stream_sequence,
            info.num_ack_pending,
            ACK_WAIT,
            Instant::now(),
        );
        let mut batches = consumer
            .stream()
            .max_messages_per_batch(BATCH)
            .expires(PULL_EXPIRES)
            .heartbeat(HEARTBEAT)
            .messages()
            .await
            .context("pulling from the consumer")?
            .ready_chunks(BATCH);
        loop {
            let next = tokio::select! {
                _ = stop.cancelled() => return Ok(()),
                next = batches.next() => next,
            };
            let Some(pulled) = next else {
                anyhow::bail!("the consumer's message stream ended");
            };
            // A pull that failed ends this consumer; what is in hand comes again.
            let batch = pulled
                .into_iter()
                .collect::<Result<Vec<_>, _>>()
                .context("pulling a message")?;
            self.handle(&mut gate, batch).await?;
        }
    }

    /// Apply a batch in order and acknowledge it (or set some aside, or hand some back).
    async fn handle(&self, gate: &mut Gate, batch: Vec<jetstream::Message>) -> anyhow::Result<()> {
        let now = Instant::now();
        let mut admitted = Vec::with_capacity(batch.len());
        for message in batch {
            let seq = sequence(&message)?;
            if gate.admits(seq, now) {
                admitted.push((seq, message));
            } else {
                gate.returned(seq);
                hand_back(&message).await?;
            }
        }
        let arrivals: Vec<Arrival> = admitted.iter().map(|(_, m)| Arrival::of(m)).collect();
        let config = self.config.clone();
        let me = self.me.clone();
        let published = self.published.clone();
        let applied =
            tokio::task::spawn_blocking(move || apply_all(&config, &me, &arrivals, &published))
                .await
                .context("the delivery thread panicked")??;
        // Receipts, and refusals of mail, reach the stream before anything is acknowledged: a
        // failure here means the mail comes again, and so does its answer.
        let mut answers = Vec::new();
        for ((_, message), outcome) in admitted.iter().zip(&applied) {
            match outcome {
                Ok(Some(receipt)) => answers.push(receipt.clone()),
                Ok(None) | Err(Failure::Retry(_)) => {}
                Err(Failure::Refused(e)) => {
                    eprintln!(
                        "filebox serve: federation (hub {}): refused {}: {e:#}",
                        self.me, message.subject
                    );
                    if let Some(Addressed::Mail { from, agent }) =
                        wire::addressed(&message.subject, &self.me)
                        && let Some(refusal) =
                            receive::refusal(&self.me, &agent, &message.payload, e)
                    {
                        answers.push(outbound::event(&from, &self.me, refusal)?);
                    }
                }
            }
        }
        self.send_events(&answers).await?;
        // The last acknowledgement is confirmed: one round trip for the batch, the server
        // having every acknowledgement sent before it.
        let confirmed = applied
            .iter()
            .rposition(|outcome| !matches!(outcome, Err(Failure::Retry(_))));
        let mut applied = applied.into_iter();
        for (n, (seq, message)) in admitted.iter().enumerate() {
            let kind = match applied.next() {
                Some(Ok(_)) => AckKind::Ack,
                Some(Err(Failure::Refused(e))) => {
                    set_aside(self.config.path(), &message.subject, &e, &message.payload)?;
                    AckKind::Term
                }
                Some(Err(Failure::Retry(e))) => {
                    eprintln!(
                        "filebox serve: federation (hub {}): {} (will be redelivered): {e:#}",
                        self.me, message.subject
                    );
                    gate.returned(*seq);
                    hand_back(message).await?;
                    continue;
                }
                // Not tried: after one that is retried, in order.
                None => {
                    gate.returned(*seq);
                    hand_back(message).await?;
                    continue;
                }
            };
            let acked = if Some(n) == confirmed {
                message.double_ack_with(kind).await
            } else {
                message.ack_with(kind).await
            };
            acked.map_err(|e| anyhow::anyhow!("acknowledging: {e}"))?;
            gate.done(*seq);
        }
        Ok(())
    }
}

/// A message's sequence in the stream.
fn sequence(message: &jetstream::Message) -> anyhow::Result<u64> {
    message
        .info()
        .map(|info| info.stream_sequence)
        .map_err(|e| anyhow::anyhow!("a message without its stream sequence: {e}"))
}

/// Hand a message back for a redelivery after [`RETRY_DELAY`].
async fn hand_back(message: &jetstream::Message) -> anyhow::Result<()> {
    message
        .ack_with(AckKind::Nak(Some(RETRY_DELAY)))
        .await
        .map_err(|e| anyhow::anyhow!("asking for a redelivery: {e}"))
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
    /// Hand delivery receipts and refusals to the stream, all published before any
    /// acknowledgement is awaited.
    async fn send_events(&self, events: &[Outgoing]) -> anyhow::Result<()> {
        let mut acks = Vec::with_capacity(events.len());
        for event in events {
            let publish = PublishMessage::build()
                .payload(event.payload.clone().into())
                .message_id(&event.key);
            let ack = self
                .js
                .send_publish(event.subject.clone(), publish)
                .await
                .with_context(|| format!("publishing {}", event.key))?;
            acks.push((ack, &event.key));
        }
        for (ack, key) in acks {
            ack.await
                .with_context(|| format!("the stream's acknowledgement of {key}"))?;
        }
        Ok(())
    }
}

/// The outcome of applying one message: for mail, the delivery receipt to publish.
type Outcome = Result<Option<Outgoing>, Failure>;

/// Apply a batch in order, up to and including the first that may work later (the rest are
/// not tried: they come again after it); then make the mail delivered durable. A run of
/// delivery receipts is recorded by [`RECEIPT_THREADS`] threads at once (receipts are
/// independent of each other, and each is a two-phase move of a spool copy whose fsyncs
/// concurrent threads share); what follows a receipt to retry in the run is tried again
/// after it, which records nothing twice.
fn apply_all(
    live: &LiveConfig,
    me: &str,
    arrivals: &[Arrival],
    published: &Mutex<Published>,
) -> anyhow::Result<Vec<Outcome>> {
    let mut unsynced = Unsynced::default();
    let mut outcomes = Vec::with_capacity(arrivals.len());
    let mut rest = arrivals;
    'batch: while !rest.is_empty() {
        let receipts = rest.iter().take_while(|a| a.is_receipt(me)).count();
        let (now, later) = rest.split_at(receipts.max(1));
        let applied = if receipts > 1 {
            in_parallel(now, |arrival| {
                apply(live, me, arrival, published, &mut Unsynced::default())
            })
        } else {
            vec![apply(live, me, &now[0], published, &mut unsynced)]
        };
        for outcome in applied {
            let retry = matches!(outcome, Err(Failure::Retry(_)));
            outcomes.push(outcome);
            if retry {
                break 'batch;
            }
        }
        rest = later;
    }
    unsynced
        .sync()
        .context("making the delivered mail durable")?;
    Ok(outcomes)
}

/// How many threads record a run of delivery receipts.
const RECEIPT_THREADS: usize = 8;

/// `apply` to each arrival, [`RECEIPT_THREADS`] at a time; the outcomes in order.
fn in_parallel(arrivals: &[Arrival], apply: impl Fn(&Arrival) -> Outcome + Sync) -> Vec<Outcome> {
    let chunk = arrivals.len().div_ceil(RECEIPT_THREADS);
    std::thread::scope(|scope| {
        let threads: Vec<_> = arrivals
            .chunks(chunk)
            .map(|part| scope.spawn(|| part.iter().map(&apply).collect::<Vec<_>>()))
            .collect();
        threads
            .into_iter()
            .flat_map(|thread| match thread.join() {
                Ok(outcomes) => outcomes,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    })
}

/// Apply one message of the stream; for mail, the delivery receipt to publish once
/// `unsynced` is synced.
fn apply(
    live: &LiveConfig,
    me: &str,
    arrival: &Arrival,
    published: &Mutex<Published>,
    unsynced: &mut Unsynced,
) -> Result<Option<Outgoing>, Failure> {
    let Arrival {
        subject,
        headers,
        payload,
    } = arrival;
    match wire::addressed(subject, me) {
        Some(Addressed::Mail { from, agent }) => {
            let receipt = receive::mail(
                live,
                me,
                &from,
                &agent,
                headers.file.as_deref(),
                payload,
                unsynced,
            )?;
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
    async fn a_consumer_an_older_hub_made_takes_this_hubs_settings_at_a_start() {
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
