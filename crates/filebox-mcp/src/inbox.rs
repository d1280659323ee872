//! My inbox watched for resource subscriptions, on the core's change feed (the same one
//! `wait_for_messages` sleeps on): a blocking thread follows the feed and hands each change of
//! the inbox's files (arrived or gone) to the async side. It never moves the wait cursor.

use std::sync::Arc;

use filebox_core::message::FileName;
use filebox_core::{Feed, Folder, Mailroom, Wake};
use tokio::sync::{mpsc, oneshot};
use tokio_util::sync::{CancellationToken, DropGuard};

/// A watch on my inbox: each [`InboxWatch::changed`] waits for the next change. Dropping it
/// stops its thread.
#[derive(Debug)]
pub(crate) struct InboxWatch {
    changes: mpsc::Receiver<Vec<FileName>>,
    _stop: DropGuard,
}

impl InboxWatch {
    /// Start watching: the inbox as it is when this returns is the baseline, so mail sent
    /// after it is a change. A mailbox that cannot be watched is reported on stderr, and the
    /// watch then reports nothing.
    pub(crate) async fn start(mailroom: &Arc<Mailroom>) -> InboxWatch {
        let (sender, changes) = mpsc::channel(16);
        let (ready, started) = oneshot::channel();
        let stop = CancellationToken::new();
        let mailroom = Arc::clone(mailroom);
        let stopped = stop.clone();
        tokio::task::spawn_blocking(move || {
            let mut feed = Feed::new();
            let watching = mailroom
                .my_mailbox()
                .and_then(|inbox| feed.watch(&inbox, Folder::Inbox));
            let _ = ready.send(());
            if let Err(e) = watching {
                tracing::warn!("cannot watch the inbox: {e}");
                return;
            }
            follow(&mut feed, &sender, &|| stopped.is_cancelled());
        });
        // The thread has its baseline (or gave up) once it says so.
        let _ = started.await;
        InboxWatch {
            changes,
            _stop: stop.drop_guard(),
        }
    }

    /// The files that came or went at the next change, or `None` once `cancel` fires (or the
    /// watch ended).
    pub(crate) async fn changed(&mut self, cancel: &CancellationToken) -> Option<Vec<FileName>> {
        tokio::select! {
            () = cancel.cancelled() => None,
            changed = self.changes.recv() => changed,
        }
    }
}

/// Hand every change to `sender` until `stopped()` or the receiver is gone. A failed look is
/// reported on stderr and tried again at the next wake: a mailbox on a briefly unavailable
/// disk should not end a subscription.
fn follow(feed: &mut Feed, sender: &mpsc::Sender<Vec<FileName>>, stopped: &dyn Fn() -> bool) {
    loop {
        match feed.next(None, &|| stopped() || sender.is_closed()) {
            Ok(changes) if changes.is_empty() => return,
            Ok(changes) => {
                let files = changes.into_iter().map(|change| change.file).collect();
                if sender.blocking_send(files).is_err() {
                    return;
                }
            }
            Err(e) => {
                tracing::warn!("watching the inbox: {e}");
                if feed.sleep(None, &|| stopped() || sender.is_closed()) != Wake::Look {
                    return;
                }
            }
        }
    }
}
