//! The receiver: this hub's durable pull consumer on `filebox.<me>.>`. Messages come in
//! batches (whatever the server has handed out, up to [`BATCH`]) and are applied in stream
//! order on blocking threads (a run of mail for several agents side by side, each agent's in
//! order), mail sharing one fsync per inbox ([`Unsynced`]); a batch is
//! acknowledged only once its files are durable and, for mail, once the delivery receipts to
//! the sending hubs are in the stream (published together, their acknowledgements awaited
//! together). A crash before the acknowledgements means a redelivery, which the core's
//! idempotent delivery absorbs (and the receipt's `Nats-Msg-Id` deduplicates); the [`Gate`]
//! keeps each sender's order across it. What can never be applied is set aside in
//! `federation/refused` beside the config, with the reason, and terminated; for mail, a
//! refusal goes back to the sending hub first, as a receipt does. What may work later (the
//! disk) goes back for a redelivery, and so does every message after it in the batch.

use std::collections::HashMap;
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

/// How a message file starts each conversation entry (`### <time> - <from> to <to> (<type>)`),
/// and names what it obsoletes (`message::render`).
const CONVERSATION_ENTRY: &[u8] = b"\n### ";
const OBSOLETES_FIELD: &[u8] = b"**Obsoletes:**";

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

    /// Whether this mail, delivered, writes nothing but its recipient's inbox: no conversation
    /// (a reply is mirrored into its sender's stand-in) and no `Obsoletes` (a fork marks copies
    /// in other mailboxes). Judged from the bytes, erring towards "no": a body line never reads
    /// as a conversation entry's heading (the renderer escapes it).
    fn writes_only_its_inbox(&self) -> bool {
        let contains = |needle: &[u8]| self.payload.windows(needle.len()).any(|w| w == needle);
        !contains(CONVERSATION_ENTRY) && !contains(OBSOLETES_FIELD)
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
        let mut gate = Gate::new(ACK_WAIT);
        while !stop.is_cancelled() {
            match self.consume(&mut gate, &stop).await {
                Ok(()) => return,
                Err(e) => tracing::warn!("receiving stopped (starting again): {e:#}"),
            }
            tokio::select! {
                _ = stop.cancelled() => return,
                _ = tokio::time::sleep(delay) => {}
            }
            delay = (delay * 2).min(MAX_RETRY_DELAY);
        }
    }

    async fn consume(&self, gate: &mut Gate, stop: &CancellationToken) -> anyhow::Result<()> {
        let stream = connect::stream(&self.js, self.replicas).await?;
        let consumer = open_consumer(&stream, &self.me).await?;
        let unacknowledged = unacknowledged(&stream, &self.me, consumer.cached_info()).await?;
        gate.opened(unacknowledged, Instant::now());
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
            // A pull that failed ends this consumer, once the messages pulled with it are
            // applied (dropped, they would come again only after the wait for an
            // acknowledgement, behind later ones); what is in hand then comes again.
            let mut batch = Vec::with_capacity(pulled.len());
            let mut failed = None;
            for message in pulled {
                match message {
                    Ok(message) => batch.push(message),
                    Err(e) => {
                        failed.get_or_insert(e);
                    }
                }
            }
            let handled = self.handle(gate, batch).await;
            if let Some(e) = failed {
                let e = anyhow::Error::new(e).context("pulling a message");
                return Err(match handled {
                    Ok(()) => e,
                    Err(also) => e.context(format!("then applying what came with it: {also:#}")),
                });
            }
            handled?;
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
                gate.returned(seq, now);
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
                    tracing::warn!("refused {}: {e:#}", message.subject);
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
                    tracing::warn!("{} (will be redelivered): {e:#}", message.subject);
                    gate.returned(*seq, Instant::now());
                    hand_back(message).await?;
                    continue;
                }
                // Not tried: after one that is retried, in order.
                None => {
                    gate.returned(*seq, Instant::now());
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

/// The messages for hub `me` that its consumer (`info`) handed out and has not seen
/// acknowledged, in stream order: with work-queue retention the stream keeps a message until
/// it is acknowledged, so they are the stream's messages for `me` after the consumer's
/// acknowledgement floor, up to the last it delivered. The walk goes to that last one rather
/// than stopping at the consumer's count of pending ones: a message acknowledged but not yet
/// removed would use up the count. It costs one lookup per message handed out and not
/// acknowledged (at most [`MAX_ACK_PENDING`], 1,000 on a consumer an older hub made), each a
/// round trip to the server, at every opening of the consumer.
async fn unacknowledged(
    stream: &jetstream::stream::Stream,
    me: &str,
    info: &consumer::Info,
) -> anyhow::Result<Vec<u64>> {
    let filter = wire::filter_for(me);
    let last = info.delivered.stream_sequence;
    let mut found = Vec::with_capacity(info.num_ack_pending);
    let mut next = info.ack_floor.stream_sequence + 1;
    while next <= last {
        let message = match stream
            .raw_message_builder()
            .sequence(next)
            .next_by_subject(filter.clone())
            .send()
            .await
        {
            Ok(message) => message,
            Err(e) if e.kind() == jetstream::stream::RawMessageErrorKind::NoMessageFound => {
                break;
            }
            Err(e) => return Err(e).context("looking up the messages handed out before"),
        };
        if message.sequence > last {
            break;
        }
        found.push(message.sequence);
        next = message.sequence + 1;
    }
    Ok(found)
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

fn may_work_later(outcome: &Outcome) -> bool {
    matches!(outcome, Err(Failure::Retry(_)))
}

/// Apply a batch in order, up to and including the first that may work later (the rest are
/// not tried: they come again after it); then make the mail delivered durable. A run of
/// mail, or of delivery receipts, is applied on up to [`LANES`] threads at once ([`lanes`]),
/// so the file fsyncs of one message wait beside the others' instead of after them.
fn apply_all(
    live: &LiveConfig,
    me: &str,
    arrivals: &[Arrival],
    published: &Mutex<Published>,
) -> anyhow::Result<Vec<Outcome>> {
    let mut unsynced = Unsynced::default();
    let mut outcomes = Vec::with_capacity(arrivals.len());
    let apply =
        |arrival: &Arrival, unsynced: &mut Unsynced| apply(live, me, arrival, published, unsynced);
    let mut rest = arrivals;
    while !rest.is_empty() {
        let lanes = lanes(rest, me);
        let (now, later) = rest.split_at(lanes.len().max(1));
        let applied = if lanes.len() > 1 {
            in_lanes(now, &lanes, &mut unsynced, apply)
        } else {
            vec![apply(&now[0], &mut unsynced)]
        };
        let whole = applied.len() == now.len() && !applied.iter().any(may_work_later);
        outcomes.extend(applied);
        if !whole {
            break;
        }
        rest = later;
    }
    unsynced
        .sync()
        .context("making the delivered mail durable")?;
    Ok(outcomes)
}

/// How many threads apply a run of mail or of delivery receipts.
const LANES: usize = 8;

/// The run of arrivals at the start of `rest` that may be applied side by side, as the lane
/// of each: delivery receipts (each a rewrite of its own spool copy, in turn with the others)
/// in any lane; new mail in its recipient's lane, so mail for one agent is delivered in stream
/// order. Anything else is a run of its own, returned empty: an attachment (on disk before the
/// mail after it), an event, one receipt or mail alone, and mail that writes beyond its
/// recipient's inbox (a reply, mirrored into its sender's stand-in; a fork's obsolete marks),
/// which must see the mail before it applied.
fn lanes(rest: &[Arrival], me: &str) -> Vec<usize> {
    let receipts = rest.iter().take_while(|a| a.is_receipt(me)).count();
    if receipts > 1 {
        return (0..receipts).map(|n| n % LANES).collect();
    }
    let mut recipients: HashMap<String, usize> = HashMap::new();
    let lanes: Vec<usize> = rest
        .iter()
        .map_while(|arrival| match wire::addressed(&arrival.subject, me) {
            Some(Addressed::Mail { agent, .. }) if arrival.writes_only_its_inbox() => {
                let next = recipients.len() % LANES;
                Some(*recipients.entry(agent).or_insert(next))
            }
            _ => None,
        })
        .collect();
    if lanes.len() > 1 { lanes } else { Vec::new() }
}

/// `apply` to each arrival of `run`, one thread per lane, each lane in order and up to its
/// first that may work later; each thread's unsynced folders join `unsynced`. The outcomes in
/// the run's order, up to and including the first that may work later, or up to the first
/// not tried (what follows is handed back and comes again: applied twice, it writes nothing
/// twice).
fn in_lanes(
    run: &[Arrival],
    lanes: &[usize],
    unsynced: &mut Unsynced,
    apply: impl Fn(&Arrival, &mut Unsynced) -> Outcome + Sync,
) -> Vec<Outcome> {
    let count = lanes.iter().max().map_or(0, |last| last + 1);
    let apply = &apply;
    let done: Vec<(Vec<(usize, Outcome)>, Unsynced)> = std::thread::scope(|scope| {
        let threads: Vec<_> = (0..count)
            .map(|lane| {
                scope.spawn(move || {
                    let mut unsynced = Unsynced::default();
                    let mut done = Vec::new();
                    for (n, arrival) in run.iter().enumerate().filter(|(n, _)| lanes[*n] == lane) {
                        let outcome = apply(arrival, &mut unsynced);
                        let stop = may_work_later(&outcome);
                        done.push((n, outcome));
                        if stop {
                            break;
                        }
                    }
                    (done, unsynced)
                })
            })
            .collect();
        threads
            .into_iter()
            .map(|thread| match thread.join() {
                Ok(done) => done,
                Err(panic) => std::panic::resume_unwind(panic),
            })
            .collect()
    });
    let mut slots: Vec<Option<Outcome>> = run.iter().map(|_| None).collect();
    for (outcomes, lane_unsynced) in done {
        unsynced.merge(lane_unsynced);
        for (n, outcome) in outcomes {
            slots[n] = Some(outcome);
        }
    }
    let mut outcomes = Vec::with_capacity(run.len());
    for outcome in slots.into_iter().map_while(|slot| slot) {
        let stop = may_work_later(&outcome);
        outcomes.push(outcome);
        if stop {
            break;
        }
    }
    outcomes
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
    use filebox_core::message::field;

    fn arrival(subject: &str, payload: &[u8]) -> Arrival {
        Arrival {
            subject: subject.to_owned(),
            headers: Headers {
                file: None,
                message_id: None,
            },
            payload: payload.to_vec(),
        }
    }

    fn receipt(n: usize) -> Arrival {
        let event = Event::Received {
            agent: "a@far".into(),
            id: format!("20260101-000000-{n:04x}"),
            conversation: 0,
            file: None,
        };
        arrival(
            "filebox.here.far.event",
            &serde_json::to_vec(&event).unwrap(),
        )
    }

    /// A message file as another hub publishes it: a reply when `answered`, a fork's
    /// successor when `obsoletes`.
    fn mail_file(answered: bool, obsoletes: bool) -> Vec<u8> {
        use filebox_core::message::{ConversationEntry, Header, Message, MessageType, render};
        let mut header = Header::new(&MessageType::new("ER").unwrap(), "t");
        header.set(field::MESSAGE_ID, "aaaaaaaa-1111-4111-8111-111111111111");
        header.set(field::SENDER, "qa@far");
        header.set(field::RECEIVER, "a");
        if obsoletes {
            header.set(field::OBSOLETES, "bbbbbbbb-2222-4222-8222-222222222222");
        }
        let conversation = if answered {
            vec![ConversationEntry {
                timestamp: "2030-01-01T00:00:00Z".into(),
                from: "a".into(),
                to: "qa@far".into(),
                kind: "ER".into(),
                body: "done".into(),
            }]
        } else {
            Vec::new()
        };
        let message = Message {
            header,
            // A body that quotes an entry's heading is still new mail.
            body: "### 2030-01-01T00:00:00Z - a to b (ER)\nObsoletes: nothing".into(),
            conversation,
            processing: Vec::new(),
        };
        render(&message).into_bytes()
    }

    #[test]
    fn a_run_of_mail_keeps_each_recipients_mail_in_one_lane_and_ends_at_anything_else() {
        let new = mail_file(false, false);
        let batch = [
            arrival("filebox.here.far.mail.a", &new),
            arrival("filebox.here.far.mail.b", &new),
            arrival("filebox.here.other.mail.a", &new),
            arrival("filebox.here.far.attachment.c", b""),
            arrival("filebox.here.far.mail.c", &new),
        ];
        assert_eq!(lanes(&batch, "here"), [0, 1, 0]);
        // An attachment is a run of its own (the mail after it needs it on disk), and so is
        // one mail alone.
        assert!(lanes(&batch[3..], "here").is_empty());
        assert!(lanes(&batch[4..], "here").is_empty());
        // Mail for another hub is not a run: it is refused on its own.
        let elsewhere = [
            arrival("filebox.there.far.mail.a", &new),
            arrival("filebox.there.far.mail.b", &new),
        ];
        assert!(lanes(&elsewhere, "here").is_empty());
        // A reply (mirrored into its sender's stand-in) or a fork's successor (marks in other
        // mailboxes) ends a run: it must see the mail before it applied.
        for writes_beyond in [mail_file(true, false), mail_file(false, true)] {
            let run = [
                arrival("filebox.here.far.mail.a", &new),
                arrival("filebox.here.far.mail.b", &new),
                arrival("filebox.here.far.mail.c", &writes_beyond),
            ];
            assert_eq!(lanes(&run, "here"), [0, 1]);
        }
        // Receipts take any lane; a receipt ends a run of mail.
        let receipts = [
            receipt(1),
            receipt(2),
            receipt(3),
            arrival("filebox.here.far.mail.a", &new),
        ];
        assert_eq!(lanes(&receipts, "here"), [0, 1, 2]);
        let mixed = [
            arrival("filebox.here.far.mail.a", &new),
            arrival("filebox.here.far.mail.b", &new),
            receipt(1),
        ];
        assert_eq!(lanes(&mixed, "here"), [0, 1]);
    }

    #[test]
    fn lanes_apply_in_order_and_the_outcomes_stop_at_the_first_that_may_work_later() {
        let run: Vec<Arrival> = (0..6u8)
            .map(|n| arrival("filebox.here.far.mail.a", &[n]))
            .collect();
        let lanes = [0, 1, 0, 1, 0, 1];
        let seen = Mutex::new(Vec::new());
        let outcomes = in_lanes(&run, &lanes, &mut Unsynced::default(), |arrival, _| {
            let n = arrival.payload[0];
            seen.lock().unwrap().push(n);
            if n == 2 {
                Err(Failure::Retry(anyhow::anyhow!("the disk is full")))
            } else {
                Ok(None)
            }
        });
        // 0 and 1 applied, 2 to retry: nothing after it counts (3 and 5 come again).
        assert_eq!(outcomes.len(), 3);
        assert!(matches!(outcomes[..2], [Ok(None), Ok(None)]));
        assert!(may_work_later(&outcomes[2]));
        let seen = seen.into_inner().unwrap();
        let lane = |lane: usize| -> Vec<u8> {
            seen.iter()
                .copied()
                .filter(|n| lanes[usize::from(*n)] == lane)
                .collect()
        };
        assert_eq!(lane(0), [0, 2], "a lane stops at its first to retry");
        assert_eq!(lane(1), [1, 3, 5], "each lane in order");
    }

    /// A loopback nats-server (kept running while its guards live) with FileBox's stream.
    async fn local_stream() -> (
        tempfile::TempDir,
        LocalNats,
        jetstream::Context,
        jetstream::stream::Stream,
    ) {
        let dir = tempfile::tempdir().unwrap();
        let server = LocalNats::start(&dir.path().join("jetstream")).unwrap();
        let client = async_nats::connect(server.url()).await.unwrap();
        let js = connect::jetstream(client);
        let stream = connect::stream(&js, 1).await.unwrap();
        (dir, server, js, stream)
    }

    #[tokio::test]
    async fn a_consumer_opened_again_finds_what_it_handed_out_unacknowledged_in_order() {
        let (_dir, _server, js, stream) = local_stream().await;
        // Two hubs' mail interleaved in the stream: ci-1's at 1, 3, 5, 6 and 8.
        for to in [
            "ci-1", "ci-2", "ci-1", "ci-2", "ci-1", "ci-1", "ci-2", "ci-1",
        ] {
            js.publish(format!("filebox.{to}.far.mail.a"), "x".into())
                .await
                .unwrap()
                .await
                .unwrap();
        }
        let consumer = open_consumer(&stream, "ci-1").await.unwrap();
        assert!(
            unacknowledged(&stream, "ci-1", consumer.cached_info())
                .await
                .unwrap()
                .is_empty(),
            "a fresh consumer handed nothing out"
        );
        // A run handed out four and acknowledged one, then died.
        let mut fetched = consumer.fetch().max_messages(4).messages().await.unwrap();
        let mut handed_out = Vec::new();
        while let Some(message) = fetched.next().await {
            handed_out.push(message.unwrap());
        }
        let sequences: Vec<u64> = handed_out.iter().map(|m| sequence(m).unwrap()).collect();
        assert_eq!(sequences, [1, 3, 5, 6]);
        handed_out[1].double_ack().await.unwrap();
        drop(handed_out);
        let reopened = open_consumer(&stream, "ci-1").await.unwrap();
        assert_eq!(
            unacknowledged(&stream, "ci-1", reopened.cached_info())
                .await
                .unwrap(),
            [1, 5, 6],
            "not the one acknowledged, not ci-2's, not 8 (never handed out)"
        );
    }

    #[tokio::test]
    async fn a_consumer_an_older_hub_made_takes_this_hubs_settings_at_a_start() {
        let (_dir, _server, _js, stream) = local_stream().await;
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
