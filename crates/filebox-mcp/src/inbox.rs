//! My inbox, watched by polling its file names for resource subscriptions. (`wait_for_messages`
//! uses the core's notify-woken `verbs::wait` instead: that one consumes the inbox cursor, which
//! a watcher that only reports changes must not.)

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use filebox_core::message::FileName;
use filebox_core::{Folder, Mailbox, Mailroom};
use tokio_util::sync::CancellationToken;

use crate::blocking::{self, Failure};

/// How often the resource watcher looks.
const WATCH_POLL: Duration = Duration::from_millis(300);

/// My inbox folder, opened once (opening creates folders and recovers `tmp/`; polling must not).
#[derive(Debug, Clone)]
struct Inbox {
    mailbox: Mailbox,
}

impl Inbox {
    async fn open(mailroom: &Arc<Mailroom>) -> Result<Inbox, Failure> {
        let mailbox = blocking::run(Arc::clone(mailroom), |m| m.my_mailbox()).await?;
        Ok(Inbox { mailbox })
    }

    /// The message files in the inbox now. Only names: cheap enough to poll a big inbox.
    async fn file_names(&self) -> Result<BTreeSet<FileName>, Failure> {
        let mailbox = self.mailbox.clone();
        blocking::run(mailbox, |m| {
            let (names, _problems) = m.file_names(Folder::Inbox)?;
            Ok(names.into_iter().collect())
        })
        .await
    }
}

/// A watch on my inbox: each [`InboxWatch::changed`] waits for the next change.
#[derive(Debug)]
pub(crate) struct InboxWatch {
    mailroom: Arc<Mailroom>,
    inbox: Option<Inbox>,
    before: Option<BTreeSet<FileName>>,
}

impl InboxWatch {
    /// Start watching: the inbox as it is now is the baseline.
    pub(crate) async fn start(mailroom: &Arc<Mailroom>) -> InboxWatch {
        let mut watch = InboxWatch {
            mailroom: Arc::clone(mailroom),
            inbox: None,
            before: None,
        };
        watch.before = watch.look().await.ok();
        watch
    }

    /// The files that came or went at the next change, or `None` once `cancel` fires.
    /// A failed look is reported on stderr and retried: a mailbox on a briefly unavailable
    /// disk should not end a subscription.
    pub(crate) async fn changed(&mut self, cancel: &CancellationToken) -> Option<Vec<FileName>> {
        loop {
            tokio::select! {
                () = cancel.cancelled() => return None,
                () = tokio::time::sleep(WATCH_POLL) => {}
            }
            let now = match self.look().await {
                Ok(now) => now,
                Err(failure) => {
                    eprintln!("filebox mcp: watching the inbox: {failure}");
                    continue;
                }
            };
            let changed: Vec<FileName> = match &self.before {
                Some(before) => before.symmetric_difference(&now).cloned().collect(),
                None => Vec::new(),
            };
            self.before = Some(now);
            if !changed.is_empty() {
                return Some(changed);
            }
        }
    }

    /// The inbox's file names, opening the inbox on first use.
    async fn look(&mut self) -> Result<BTreeSet<FileName>, Failure> {
        let inbox = match &mut self.inbox {
            Some(inbox) => inbox,
            None => self.inbox.insert(Inbox::open(&self.mailroom).await?),
        };
        inbox.file_names().await
    }
}
