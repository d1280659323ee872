//! Permission prompts nobody waits for leave the page at once: for each open prompt in a human
//! mailbox the hub keeps a thread waiting on the prompt's lease (`filebox_core::permission`),
//! which the kernel frees when the relaying `filebox mcp` ends, however it ends; the prompt is
//! then withdrawn if it is still open, and the page's card says so. The open prompts are looked
//! for at start, on each change of a human mailbox, and after missed events; the look itself
//! withdraws a prompt whose lease is already free.

use std::collections::HashSet;
use std::sync::{Arc, Mutex, PoisonError};

use filebox_core::message::PERMISSION;
use filebox_core::{AgentId, AgentKind, Mailroom};
use tokio::sync::broadcast::{self, error::RecvError};

use crate::events::HubEvent;
use crate::hub::Hub;
use crate::tasks;

/// The prompts (by Message ID) a thread waits on.
type Watched = Arc<Mutex<HashSet<String>>>;

/// Watch the prompts of every human mailbox until the hub stops. `events` is subscribed
/// before the follower starts, so no prompt goes unseen.
pub(crate) async fn keep_watch(hub: Hub, mut events: broadcast::Receiver<HubEvent>) {
    let stop = hub.sessions();
    let watched = Watched::default();
    look(&hub, &watched, None).await;
    loop {
        let next = tokio::select! {
            () = stop.cancelled() => return,
            next = events.recv() => next,
        };
        match next {
            Ok(event) if event.is_resync() => look(&hub, &watched, None).await,
            Ok(event) => look(&hub, &watched, Some(event.agent)).await,
            Err(RecvError::Lagged(_)) => look(&hub, &watched, None).await,
            Err(RecvError::Closed) => return,
        }
    }
}

/// Look at the open prompts of `agent` (`None`: of every human) and watch the new ones.
async fn look(hub: &Hub, watched: &Watched, agent: Option<String>) {
    let (hub, watched) = (hub.clone(), watched.clone());
    let looked = tasks::blocking(move || {
        let config = hub.config()?;
        let humans = config.file.agents.iter().filter(|(id, entry)| {
            entry.kind == Some(AgentKind::Human)
                && !entry.is_stand_in()
                && agent.as_ref().is_none_or(|a| a == id.as_str())
        });
        for (human, _) in humans {
            let mailroom = Mailroom::new(config.clone(), Some(human))?;
            for open in mailroom.open_questions()? {
                if open.header.kind == PERMISSION {
                    watch(&mailroom, &watched, open.header.id());
                }
            }
        }
        Ok(())
    })
    .await;
    if let Err(error) = looked {
        tracing::warn!("the open permission prompts were not looked at: {error}");
    }
}

/// Wait on prompt `id`'s lease on a thread of its own, unless one waits already. A plain
/// thread, not the runtime's: it may wait as long as the session lives, and the hub's stop
/// does not wait for it.
fn watch(mailroom: &Mailroom, watched: &Watched, id: &str) {
    let lock = || watched.lock().unwrap_or_else(PoisonError::into_inner);
    if !lock().insert(id.to_owned()) {
        return;
    }
    let (mailroom, watched_by_thread, prompt) = (mailroom.clone(), watched.clone(), id.to_owned());
    let human: AgentId = mailroom.me().clone();
    let spawned = std::thread::Builder::new()
        .name("filebox-prompt".into())
        .spawn(move || {
            if let Err(error) = mailroom.withdraw_prompt_when_abandoned(&prompt) {
                tracing::warn!("permission prompt {prompt} of {human}: {error}");
            }
            let mut watched = watched_by_thread
                .lock()
                .unwrap_or_else(PoisonError::into_inner);
            watched.remove(&prompt);
        });
    if let Err(error) = spawned {
        tracing::warn!("no thread to watch a permission prompt: {error}");
        lock().remove(id);
    }
}
