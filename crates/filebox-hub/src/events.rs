//! Live events: one thread follows the core's change feed (`filebox_core::Feed`) over every
//! folder of every configured mailbox, so deliveries, replies, moves and forks made by anyone
//! (CLI, MCP, this hub) become events; `GET /events` streams them as Server-Sent Events.
//!
//! Resuming: events are numbered `<run>-<n>` (the hub's start time, then a counter) and the
//! last ones are kept in memory (`ring.rs`). A client reconnecting with `Last-Event-ID` from this
//! run, still in the ring, gets what it missed; otherwise (a restarted hub, an id too old, a client
//! too slow to keep up) it first gets a `resync` event: re-list with `email.inbox`, the files
//! are the truth.
//!
//! The follower is kept running (`tasks.rs`): when it fails (a folder it cannot read, no file
//! descriptor left), it is started again with backoff, over the config as it is then, and
//! publishes a `resync` first, since changes made while it was down were not seen.

pub(crate) mod ring;

use std::collections::VecDeque;
use std::convert::Infallible;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::{Query, State};
use axum::http::{HeaderMap, header};
use axum::response::sse::{Event, KeepAlive, Sse};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use filebox_core::message::field;
use filebox_core::{AgentId, Change, ChangeKind, Config, Feed, Folder, Mailbox, receipt};
use serde::Deserialize;
use tokio::sync::broadcast;

use filebox_api::access::{Caller, Denied};

use crate::hub::Hub;
use crate::refusal::refused;
use crate::tasks::{self, keep_running};

use crate::limits::{Full, Slot};
use ring::EventLog;
pub(crate) use ring::HubEvent;

/// How often an idle stream sends a comment, so proxies and clients see it alive.
const KEEP_ALIVE: Duration = Duration::from_secs(15);

/// The change feed over every folder of every mailbox the config has when the hub starts.
pub(crate) struct Follower {
    feed: Feed,
    mailboxes: Vec<Mailbox>,
}

impl Follower {
    /// Watch now: whatever lands after this returns becomes an event.
    pub(crate) fn watch(config: &Config) -> filebox_core::Result<Follower> {
        let mut feed = Feed::new();
        let mut mailboxes = Vec::new();
        for agent in config.file.agents.keys() {
            let mailbox = Mailbox::open(agent.clone(), config.mailbox_path(agent)?)?;
            for folder in Folder::ALL {
                feed.watch(&mailbox, folder)?;
            }
            mailboxes.push(mailbox);
        }
        Ok(Follower { feed, mailboxes })
    }

    /// Publish every change until `stopped()`. Blocking: run it on its own thread.
    fn run(mut self, log: &EventLog, stopped: &dyn Fn() -> bool) -> filebox_core::Result<()> {
        while !stopped() {
            let mut changes = self.feed.next(None, stopped)?;
            // A receipt rewrites an inbox file in two steps (out to tmp/, back under its name):
            // the second half is taken in with the first, so the pair becomes one `read` event.
            if changes
                .iter()
                .any(|c| c.kind == ChangeKind::Left && c.folder == Folder::Inbox)
            {
                let window = std::time::Instant::now() + REWRITE_WINDOW;
                changes.extend(self.feed.next(Some(window), stopped)?);
            }
            // A folder listed because its journal did not explain a change: what left it is
            // not known, so every client lists again.
            if !self.feed.take_relisted().is_empty() {
                log.publish(HubEvent::resync());
            }
            for event in self.events_of(&changes) {
                log.publish(event);
            }
        }
        Ok(())
    }

    /// The events of a batch of changes, in order; a receipt's rewrite is one `read` event,
    /// without the `left` of the version it replaced.
    fn events_of(&self, changes: &[Change]) -> Vec<HubEvent> {
        let events: Vec<HubEvent> = changes
            .iter()
            .map(|change| {
                let mailbox = self.mailboxes.iter().find(|m| *m.owner() == change.agent);
                describe(mailbox, change)
            })
            .collect();
        let reread: Vec<(String, String)> = events
            .iter()
            .filter(|event| event.kind == READ)
            .map(|event| (event.agent.clone(), event.file.clone()))
            .collect();
        events
            .into_iter()
            .filter(|event| {
                let pair = (event.agent.clone(), event.file.clone());
                !(event.kind == "left" && reread.contains(&pair))
            })
            .collect()
    }
}

/// Follow the mailboxes until the hub stops: `first` (watching since the hub was bound), and
/// after a failure a new follower, announced by a `resync` event.
pub(crate) async fn follow(hub: Hub, first: Follower) {
    let mut first = Some(first);
    keep_running(hub.clone(), "events".into(), |run| {
        let hub = hub.clone();
        let first = first.take();
        tasks::blocking(move || {
            let follower = match first {
                Some(follower) => follower,
                None => {
                    let follower = Follower::watch(&hub.config()?)?;
                    hub.events().publish(HubEvent::resync());
                    follower
                }
            };
            run.up();
            follower.run(&hub.events(), &|| hub.stopping())?;
            Ok(())
        })
    })
    .await;
}

/// How long a file that left an inbox is given to come back under its name (a read receipt's
/// rewrite in place) before its `left` event goes out.
const REWRITE_WINDOW: Duration = Duration::from_millis(200);

/// The kind of the event of a read receipt written into an inbox copy (`from` is the reader).
const READ: &str = "read";

/// The kind of the event of a hook's offer written into an inbox copy (`from` is the reader):
/// handed to the reader's host, not read yet (`filebox_core::receipt`).
const OFFERED: &str = "offered";

/// The event of a change, from the file's header when it arrived (and, in an inbox, whether
/// the change was a read receipt).
fn describe(mailbox: Option<&Mailbox>, change: &Change) -> HubEvent {
    let (envelope, reader) = match (change.kind, mailbox) {
        (ChangeKind::Arrived, Some(mailbox)) if change.folder == Folder::Inbox => {
            let read = mailbox.envelope_and_message(change.folder, &change.file);
            match read.ok().flatten() {
                Some((envelope, message)) => {
                    let reader = message.and_then(|message| {
                        receipt::latest_receipt(&message, mailbox.owner().as_str())
                            .map(|r| (r.by.clone(), r.action == receipt::OFFERED))
                    });
                    (Some(envelope), reader)
                }
                None => (None, None),
            }
        }
        (ChangeKind::Arrived, Some(mailbox)) => (
            mailbox.envelope(change.folder, &change.file).ok().flatten(),
            None,
        ),
        _ => (None, None),
    };
    let header = envelope.map(|envelope| envelope.header);
    let get = |key| header.as_ref().and_then(|h| h.get(key)).map(str::to_owned);
    let kind = match (change.kind, change.folder) {
        (ChangeKind::Left, _) => "left",
        // A rewrite whose latest change is the owner's receipt; a new file is delivered even if
        // its reader was quicker than this look.
        (ChangeKind::Arrived, Folder::Inbox)
            if change.may_be_rewrite() && matches!(reader, Some((_, true))) =>
        {
            OFFERED
        }
        (ChangeKind::Arrived, Folder::Inbox) if change.may_be_rewrite() && reader.is_some() => READ,
        (ChangeKind::Arrived, Folder::Inbox)
            if get(field::SENDER) != get(field::ORIGINAL_SENDER) =>
        {
            "reply"
        }
        (ChangeKind::Arrived, Folder::Inbox) if get(field::FORKED_FROM).is_some() => "fork",
        (ChangeKind::Arrived, Folder::Inbox) => "delivered",
        (ChangeKind::Arrived, Folder::Outbox) => "sent",
        (ChangeKind::Arrived, Folder::Hold) => "processing",
        (ChangeKind::Arrived, Folder::Done) => "replied",
        (ChangeKind::Arrived, Folder::Cancel) => "failed",
    };
    HubEvent {
        seq: 0,
        kind,
        agent: change.agent.to_string(),
        folder: change.folder,
        file: change.file.to_string(),
        message_id: header.as_ref().map(|h| h.id().to_owned()),
        subject: header.as_ref().map(|h| h.title.clone()),
        from: reader.map(|(by, _)| by).or_else(|| get(field::SENDER)),
        has_callback: get(field::CALLBACK).is_some(),
    }
}

/// The route group: `GET /events`.
pub(crate) fn routes(hub: &Hub) -> Router {
    Router::new()
        .route("/events", get(stream))
        .with_state(hub.clone())
}

#[derive(Debug, Deserialize)]
struct EventsQuery {
    /// Only this agent's mailbox.
    agent: Option<String>,
}

/// Whose events a caller may see: `wanted`'s if the access policy lets it look into that
/// mailbox, else every mailbox it may look into.
fn visible(config: &Config, caller: &Caller, wanted: Option<&str>) -> Result<Vec<String>, Denied> {
    match wanted {
        Some(wanted) => {
            let id = AgentId::new(wanted).map_err(Denied::Agent)?;
            caller.check(config, &id)?;
            Ok(vec![id.to_string()])
        }
        None => Ok(caller.visible(config).map(|id| id.to_string()).collect()),
    }
}

async fn stream(
    State(hub): State<Hub>,
    Query(query): Query<EventsQuery>,
    headers: HeaderMap,
) -> Response {
    let header_text = |name: &str| headers.get(name).and_then(|v| v.to_str().ok());
    let access = Access {
        hub: hub.clone(),
        authorization: header_text(header::AUTHORIZATION.as_str()).map(str::to_owned),
        wanted: query.agent,
    };
    if let Err(denied) = access.agents() {
        return refused(&denied).into_response();
    }
    let slot = match hub.streams().enter() {
        Ok(slot) => slot,
        Err(full) => return busy(&full),
    };
    let log = hub.events();
    let (missed, resumed, receiver) = log.subscribe(header_text("last-event-id"));
    let state = Stream {
        log: Arc::clone(&log),
        access,
        pending: missed.into(),
        resync: !resumed,
        receiver,
        stop: hub.sessions(),
        _slot: slot,
    };
    let events = futures_util::stream::unfold(state, |mut state| async move {
        let event = state.next().await?;
        Some((Ok::<_, Infallible>(event), state))
    });
    Sse::new(events)
        .keep_alive(KeepAlive::new().interval(KEEP_ALIVE))
        .into_response()
}

/// What a stream's client may see, asked again for every event: a token given to an agent
/// after the stream opened, or a token replaced, takes effect at the next event.
struct Access {
    hub: Hub,
    authorization: Option<String>,
    wanted: Option<String>,
}

impl Access {
    /// The agents whose events the client may see now.
    fn agents(&self) -> Result<Vec<String>, Denied> {
        let config = self.hub.config().map_err(Denied::Agent)?;
        let caller = self.hub.caller(&config, self.authorization.as_deref())?;
        visible(&config, &caller, self.wanted.as_deref())
    }
}

/// One client's stream: a resync notice if due, the missed events, then live ones; it ends
/// when the client may no longer see what it asked for.
struct Stream {
    log: Arc<EventLog>,
    access: Access,
    pending: VecDeque<HubEvent>,
    resync: bool,
    receiver: broadcast::Receiver<HubEvent>,
    stop: tokio_util::sync::CancellationToken,
    /// This stream's place among `hub.max_event_streams`, given back when it ends.
    _slot: Slot,
}

/// 503 with `Retry-After`: every event stream the hub allows is open.
fn busy(full: &Full) -> Response {
    (
        axum::http::StatusCode::SERVICE_UNAVAILABLE,
        [(header::RETRY_AFTER, "5")],
        format!("{full}\n"),
    )
        .into_response()
}

impl Stream {
    async fn next(&mut self) -> Option<Event> {
        loop {
            if std::mem::take(&mut self.resync) {
                return Some(Event::default().event("resync").data("{}"));
            }
            let event = match self.pending.pop_front() {
                Some(event) => event,
                None => tokio::select! {
                    _ = self.stop.cancelled() => return None,
                    received = self.receiver.recv() => match received {
                        Ok(event) => event,
                        Err(broadcast::error::RecvError::Lagged(_)) => {
                            self.resync = true;
                            continue;
                        }
                        Err(broadcast::error::RecvError::Closed) => return None,
                    },
                },
            };
            if event.is_resync() {
                self.resync = true;
                continue;
            }
            match self.access.agents() {
                Ok(agents) if agents.contains(&event.agent) => {}
                Ok(_) => continue,
                Err(_) => return None,
            }
            let data = serde_json::to_string(&event).unwrap_or_default();
            return Some(
                Event::default()
                    .id(self.log.id(&event))
                    .event(event.kind)
                    .data(data),
            );
        }
    }
}

#[cfg(test)]
mod tests {
    use filebox_core::{AgentEntry, MessageRef, MessageType, SendRequest};

    use super::*;

    /// The config of a hub with the agents `dev` and `qa`, their mailboxes made.
    fn config(dir: &std::path::Path) -> Config {
        let config = Config::update(&dir.join("config.json"), |file| {
            for id in ["dev", "qa"] {
                let entry = AgentEntry {
                    mailbox_path: dir.join(id),
                    kind: None,
                    extra: Default::default(),
                };
                file.agents.insert(AgentId::new(id)?, entry);
            }
            Ok(())
        })
        .unwrap();
        for id in config.file.agents.keys() {
            Mailbox::open(id.clone(), config.mailbox_path(id).unwrap()).unwrap();
        }
        config
    }

    /// Mail its reader read (a wait beside the hub) before the follower looked: one look finds
    /// the delivery and the receipt's rewrite, which are `delivered`, then `read`.
    #[test]
    fn mail_read_before_the_look_is_delivered_then_read() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path());
        let mut follower = Follower::watch(&config).unwrap();
        let (dev, qa) = (AgentId::new("dev").unwrap(), AgentId::new("qa").unwrap());
        let sender = filebox_core::Mailroom::new(config.clone(), Some(&dev)).unwrap();
        let request = SendRequest::new("qa", MessageType::new("DIS").unwrap(), "read at once");
        let id = sender.send(&request).unwrap().id;
        let reader = filebox_core::Mailroom::new(config, Some(&qa)).unwrap();
        let reference = MessageRef::parse(id.as_str()).unwrap();
        reader.mark_read(&qa, &[reference], "qa", "wait").unwrap();

        let changes = follower.feed.look().unwrap();
        let events: Vec<(&str, String, Option<String>)> = follower
            .events_of(&changes)
            .into_iter()
            .map(|e| (e.kind, e.agent, e.message_id))
            .collect();
        let event = |kind, agent: &str| (kind, agent.to_owned(), Some(id.as_str().to_owned()));
        assert_eq!(
            events,
            [
                event("sent", "dev"),
                event("delivered", "qa"),
                event("read", "qa")
            ]
        );
    }

    /// A hook's offer rewrites the inbox copy too: `offered`, not `read` (no model saw it yet).
    #[test]
    fn a_hooks_offer_is_an_offered_event() {
        let dir = tempfile::tempdir().unwrap();
        let config = config(dir.path());
        let (dev, qa) = (AgentId::new("dev").unwrap(), AgentId::new("qa").unwrap());
        let sender = filebox_core::Mailroom::new(config.clone(), Some(&dev)).unwrap();
        let request = SendRequest::new("qa", MessageType::new("DIS").unwrap(), "offered");
        sender.send(&request).unwrap();
        let mailbox = filebox_core::Mailroom::new(config.clone(), Some(&qa))
            .unwrap()
            .my_mailbox()
            .unwrap();
        let mut follower = Follower::watch(&config).unwrap();
        let (unread, mut claim) = mailbox.claim_unread().unwrap();
        claim
            .mark_offered(&unread, "qa", "hook in session s")
            .unwrap();
        claim.commit().unwrap();

        let changes = follower.feed.look().unwrap();
        let kinds: Vec<(&str, Option<String>)> = follower
            .events_of(&changes)
            .into_iter()
            .map(|e| (e.kind, e.from))
            .collect();
        assert_eq!(kinds, [("offered", Some("qa".to_owned()))]);
    }
}
