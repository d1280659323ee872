//! The hub keeps every mailbox's index current. It builds each one once it listens; after that,
//! the mailboxes whose mail came or went (the hub's events) are caught up as soon as they have
//! been quiet for [`QUIET`], on a thread of their own. So a look-up by id, a page or a search
//! after a burst of mail finds its index current, where it would otherwise catch up the whole
//! burst itself (about a second per 10,000 messages). While changes keep coming, the uses catch
//! up as before (`filebox_core::index`): the hub never spends CPU on indexing in competition
//! with the writes it follows. A mailbox that cannot be indexed is said on stderr; its look-ups
//! read the folder instead.

use std::collections::BTreeSet;
use std::time::Duration;

use filebox_core::{AgentId, Mailbox};
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
    let mut changed: BTreeSet<String> = BTreeSet::new();
    let mut everything = false;
    loop {
        let wait = if changed.is_empty() && !everything {
            Duration::MAX
        } else {
            QUIET
        };
        let next = tokio::select! {
            () = stop.cancelled() => return,
            next = tokio::time::timeout(wait, events.recv()) => next,
        };
        match next {
            Err(_quiet) => {
                let agents = if everything {
                    None
                } else {
                    Some(std::mem::take(&mut changed))
                };
                (everything, changed) = (false, BTreeSet::new());
                catch_up(&hub, agents).await;
            }
            Ok(Ok(event)) if event.is_resync() => everything = true,
            Ok(Ok(event)) => {
                changed.insert(event.agent);
            }
            // Events were missed: which mailboxes changed is not known.
            Ok(Err(RecvError::Lagged(_))) => everything = true,
            Ok(Err(RecvError::Closed)) => return,
        }
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
                .and_then(|path| Mailbox::open(AgentId::clone(agent), path))
                .and_then(|mailbox| filebox_core::index::with_index(&mailbox, |_| Ok(())));
            if let Err(error) = current {
                eprintln!(
                    "filebox serve: the index of {agent} was not brought up to date: {error}"
                );
            }
        }
        Ok(())
    })
    .await;
    if let Err(error) = done {
        eprintln!("filebox serve: the mailboxes' indexes were not brought up to date: {error}");
    }
}
