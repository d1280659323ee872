//! Resource subscriptions, both ways the protocol has them: `resources/subscribe` (up to
//! 2025-11-25) and `subscriptions/listen` (2026-07-28). Either way a watch on the change feed
//! sends `notifications/resources/updated` for each subscribed URI a change concerns.

use std::collections::BTreeSet;
use std::sync::{Arc, Mutex, MutexGuard, PoisonError, Weak};

use filebox_core::Mailroom;
use filebox_core::message::FileName;
use rmcp::ErrorData;
use rmcp::model::{ResourceUpdatedNotificationParam, SubscriptionFilter};
use rmcp::service::{Peer, RoleServer, SubscriptionContext};
use tokio_util::sync::{CancellationToken, DropGuard};

use crate::inbox::InboxWatch;
use crate::resources::ResourceUri;

/// One session's `resources/subscribe` state. The watcher task runs while any URI is
/// subscribed and stops when the session (and with it this state) is dropped.
#[derive(Debug, Default, Clone)]
pub(crate) struct Subscriptions {
    state: Arc<Mutex<State>>,
}

#[derive(Debug, Default)]
struct State {
    uris: BTreeSet<String>,
    /// Cancels the watcher when dropped.
    watcher: Option<DropGuard>,
}

impl Subscriptions {
    pub(crate) async fn subscribe(
        &self,
        mailroom: &Arc<Mailroom>,
        uri: String,
        peer: Peer<RoleServer>,
    ) -> Result<(), ErrorData> {
        if ResourceUri::parse(&uri).is_none() {
            return Err(ErrorData::resource_not_found(
                format!("no resource {uri:?} to subscribe to"),
                None,
            ));
        }
        let watching = {
            let mut state = self.lock();
            state.uris.insert(uri);
            state.watcher.is_some()
        };
        if watching {
            return Ok(());
        }
        // The baseline is taken before the subscribe call returns, so mail sent right after it
        // is a change the client hears of.
        let watch = InboxWatch::start(mailroom).await;
        let mut state = self.lock();
        if state.watcher.is_none() && !state.uris.is_empty() {
            let cancel = CancellationToken::new();
            state.watcher = Some(cancel.clone().drop_guard());
            tokio::spawn(notify_peer(
                watch,
                Arc::downgrade(&self.state),
                peer,
                cancel,
            ));
        }
        Ok(())
    }

    pub(crate) fn unsubscribe(&self, uri: &str) {
        let mut state = self.lock();
        state.uris.remove(uri);
        if state.uris.is_empty() {
            state.watcher = None;
        }
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // The state is a set and a guard: still consistent after a panic elsewhere.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// The watcher behind `resources/subscribe`. It holds the state weakly, so dropping the
/// session's `Subscriptions` ends it.
async fn notify_peer(
    mut watch: InboxWatch,
    state: Weak<Mutex<State>>,
    peer: Peer<RoleServer>,
    cancel: CancellationToken,
) {
    while let Some(changed) = watch.changed(&cancel).await {
        let Some(state) = state.upgrade() else {
            return;
        };
        let uris = {
            let state = state.lock().unwrap_or_else(PoisonError::into_inner);
            updated(state.uris.iter(), &changed)
        };
        for uri in uris {
            let note = ResourceUpdatedNotificationParam::new(uri);
            if peer.notify_resource_updated(note).await.is_err() {
                return;
            }
        }
    }
}

/// The part of a `subscriptions/listen` filter this server honours: resource URIs it serves.
pub(crate) fn accepted_filter(requested: &SubscriptionFilter) -> SubscriptionFilter {
    let mut accepted = SubscriptionFilter::new();
    accepted.resource_subscriptions = requested.resource_subscriptions.as_ref().map(|uris| {
        uris.iter()
            .filter(|uri| ResourceUri::parse(uri).is_some())
            .cloned()
            .collect()
    });
    accepted
}

/// Serve one `subscriptions/listen` stream until the client cancels it.
pub(crate) async fn listen(mailroom: &Arc<Mailroom>, context: &SubscriptionContext) {
    let uris = context
        .accepted()
        .resource_subscriptions
        .clone()
        .unwrap_or_default();
    let cancel = context.request_context().ct.clone();
    let mut watch = InboxWatch::start(mailroom).await;
    while let Some(changed) = watch.changed(&cancel).await {
        for uri in updated(uris.iter(), &changed) {
            if context.sink().notify_resource_updated(uri).await.is_err() {
                return;
            }
        }
    }
}

/// The subscribed URIs that a change of these inbox files updates.
fn updated<'a>(uris: impl Iterator<Item = &'a String>, changed: &[FileName]) -> Vec<String> {
    uris.filter(|uri| ResourceUri::parse(uri).is_some_and(|r| r.is_updated_by(changed)))
        .cloned()
        .collect()
}
