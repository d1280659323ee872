//! My inbox, watched for new mail by polling its file names: the one place that decides how
//! waiting works, so it can switch to the core's notify-based waiter when that lands.

use std::collections::BTreeSet;
use std::sync::Arc;
use std::time::Duration;

use filebox_core::message::FileName;
use filebox_core::{Envelope, Folder, Mailbox, Mailroom};
use tokio::sync::mpsc;
use tokio::time::Instant;
use tokio_util::sync::CancellationToken;

use crate::blocking::{self, Failure};

/// How often `wait_for_mail` looks.
const WAIT_POLL: Duration = Duration::from_millis(200);
/// How often the resource watcher looks.
const WATCH_POLL: Duration = Duration::from_millis(300);
/// How often a waiter reports that it is still waiting.
const TICK: Duration = Duration::from_secs(1);

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

    /// The headers of `files`, one per Message ID; files that vanished meanwhile are skipped.
    async fn envelopes(&self, files: Vec<FileName>) -> Result<Vec<Envelope>, Failure> {
        let mailbox = self.mailbox.clone();
        blocking::run(mailbox, move |m| {
            let mut seen = BTreeSet::new();
            let mut envelopes = Vec::new();
            for file in &files {
                if let Some(envelope) = m.envelope(Folder::Inbox, file)?
                    && seen.insert(envelope.header.id().to_owned())
                {
                    envelopes.push(envelope);
                }
            }
            Ok(envelopes)
        })
        .await
    }
}

/// Wait until mail arrives in my inbox, `timeout` passes, or `cancel` fires, sending the time
/// waited to `ticks` about once a second (dropping the sender when done). Returns the messages
/// that arrived (none on a timeout or cancellation).
pub(crate) async fn wait_for_mail(
    mailroom: &Arc<Mailroom>,
    timeout: Duration,
    cancel: &CancellationToken,
    ticks: mpsc::Sender<Duration>,
) -> Result<Vec<Envelope>, Failure> {
    let inbox = Inbox::open(mailroom).await?;
    let before = inbox.file_names().await?;
    let start = Instant::now();
    let deadline = start + timeout;
    let mut next_tick = start + TICK;
    loop {
        let now = Instant::now();
        if now >= deadline {
            return Ok(Vec::new());
        }
        if now >= next_tick {
            // A full channel means the listener is behind: skip this tick rather than wait.
            let _ = ticks.try_send(now - start);
            next_tick = now + TICK;
        }
        tokio::select! {
            () = cancel.cancelled() => return Ok(Vec::new()),
            () = tokio::time::sleep_until((now + WAIT_POLL).min(deadline)) => {}
        }
        let arrived: Vec<FileName> = inbox
            .file_names()
            .await?
            .difference(&before)
            .cloned()
            .collect();
        if !arrived.is_empty() {
            let envelopes = inbox.envelopes(arrived).await?;
            if !envelopes.is_empty() {
                return Ok(envelopes);
            }
        }
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
