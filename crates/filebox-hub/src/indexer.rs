//! The hub keeps every mailbox's index current. It builds each one once it listens; after that,
//! each mailbox whose mail came or went (the hub's events) is caught up as soon as it has had
//! no change for [`QUIET`], on a thread of its own. So a look-up by id, a page or a search
//! after a burst of mail finds its index current, where it would otherwise catch up the whole
//! burst itself (about a second per 10,000 messages). While a mailbox's changes keep coming,
//! its uses catch up as before (`filebox_core::index`): the hub does not index a mailbox in
//! competition with the writes into it. A mailbox that cannot be indexed is said on stderr;
//! its look-ups read the folder instead.

use std::collections::{BTreeSet, HashMap};
use std::time::{Duration, Instant};

use filebox_core::Mailbox;
use tokio::sync::broadcast::{self, error::RecvError};

use crate::events::HubEvent;
use crate::hub::Hub;
use crate::tasks;

/// How long a mailbox has no change before its index is caught up.
const QUIET: Duration = Duration::from_millis(500);

/// Build every mailbox's index, then keep the ones that change current, until the hub stops.
/// `events` is subscribed before the follower starts, so no change goes unseen.
pub(crate) async fn keep_indexes(hub: Hub, mut events: broadcast::Receiver<HubEvent>) {
    let stop = hub.sessions();
    catch_up(&hub, None).await;
    // The last change of each mailbox not caught up yet; `all`: events were missed since.
    let mut changed: HashMap<String, Instant> = HashMap::new();
    let mut all: Option<Instant> = None;
    loop {
        let first_quiet = changed.values().chain(&all).min().map(|last| *last + QUIET);
        let next = tokio::select! {
            () = stop.cancelled() => return,
            next = recv_until(&mut events, first_quiet) => next,
        };
        let now = Instant::now();
        match next {
            None => {
                let agents = if all.is_some_and(|last| last + QUIET <= now) {
                    (all, changed) = (None, HashMap::new());
                    None
                } else {
                    let quiet: BTreeSet<String> = changed
                        .iter()
                        .filter(|(_, last)| **last + QUIET <= now)
                        .map(|(agent, _)| agent.clone())
                        .collect();
                    changed.retain(|agent, _| !quiet.contains(agent));
                    Some(quiet)
                };
                catch_up(&hub, agents).await;
            }
            Some(Ok(event)) if event.is_resync() => all = Some(now),
            Some(Ok(event)) => {
                changed.insert(event.agent, now);
            }
            // Events were missed: which mailboxes changed is not known.
            Some(Err(RecvError::Lagged(_))) => all = Some(now),
            Some(Err(RecvError::Closed)) => return,
        }
    }
}

/// The next event, or `None` once `deadline` passed first.
async fn recv_until(
    events: &mut broadcast::Receiver<HubEvent>,
    deadline: Option<Instant>,
) -> Option<Result<HubEvent, RecvError>> {
    match deadline {
        Some(deadline) => tokio::time::timeout_at(deadline.into(), events.recv())
            .await
            .ok(),
        None => Some(events.recv().await),
    }
}

/// Catch up the indexes of `agents` (`None`: every mailbox of the config), building any that
/// is missing.
async fn catch_up(hub: &Hub, agents: Option<BTreeSet<String>>) {
    let hub = hub.clone();
    let done = tasks::blocking(move || {
        let config = hub.config()?;
        for agent in config.file.agents.keys() {
            if hub.stopping() {
                break;
            }
            if agents.as_ref().is_some_and(|a| !a.contains(agent.as_str())) {
                continue;
            }
            let current = config
                .mailbox_path(agent)
                .and_then(|path| Mailbox::open(agent.clone(), path))
                .and_then(|mailbox| filebox_core::index::with_index(&mailbox, |_| Ok(())));
            if let Err(error) = current {
                tracing::warn!("the index of {agent} was not brought up to date: {error}");
            }
        }
        Ok(())
    })
    .await;
    if let Err(error) = done {
        tracing::warn!("the mailboxes' indexes were not brought up to date: {error}");
    }
}
