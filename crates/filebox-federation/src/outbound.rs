//! The publisher: what this hub must tell other hubs, found in the mailbox files (the truth)
//! and published to the stream, each item once (its `Nats-Msg-Id` is recorded in
//! [`Published`] after the stream acknowledged it).
//!
//! - Mail: a file in the inbox of a remote agent's stand-in mailbox (`remote/bob@ci-1/inbox/`),
//!   put there by any `send` or `reply`, by the CLI as well as the hub: the stand-in is the
//!   outgoing spool, so mail sent while no hub runs is published when one starts. The
//!   attachments its conversation links to go first, each a message of its own; the spool's
//!   delivery receipts stay here.
//! - State: a local agent's copy of a message from a remote agent moved to hold/, done/ or
//!   cancel/ (resolve, reject, hold): the copy goes to the sender's hub.
//! - Obsolete: any copy marked `Status: obsolete` (a fork) that names agents of other hubs.
//! - Withdrawn: a question to a remote person that its asker here withdrew (the stand-in's copy
//!   in cancel/ with a `Withdrawn` line): the person's hub takes it off their page.
//!
//! Candidates are published in the order their files changed (inode change time), so mail
//! from one sender reaches the stream in the order it was sent.
//!
//! Published is not delivered: the stream can lose what it acknowledged (a NATS store lost
//! with its disk). Mail stays owed until its delivery receipt; what is owed longer than
//! `resend_after_secs` while the stream no longer holds it is published again.

use std::collections::{BTreeMap, HashMap, HashSet, VecDeque};
use std::future::IntoFuture;
use std::io::ErrorKind;
use std::os::unix::fs::MetadataExt;
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

use anyhow::Context;
use async_nats::jetstream::context::PublishAckFuture;
use async_nats::jetstream::{self, message::PublishMessage};
use filebox_core::attachment::split_links;
use filebox_core::message::{FileName, field, render};
use filebox_core::question::WITHDRAWN;
use filebox_core::{
    AgentId, ChangeKind, Config, Envelope, Error, Feed, Folder, LiveConfig, Mailbox, Message,
    Status, travelled,
};

use crate::connect;
use crate::names;
use crate::published::Published;
use crate::settings::hub_of;
use crate::wire::{self, Event};

/// How often the config is read again for agents added since (a remote sender learnt).
const CONFIG_LOOK: Duration = Duration::from_secs(2);
/// How many published items may await the stream's acknowledgement at once.
const IN_FLIGHT: usize = 256;
/// The longest pause between two attempts to publish while NATS is away.
const MAX_RETRY_DELAY: Duration = Duration::from_secs(2);
/// The longest pause between two looks for mail the stream lost (a quarter of
/// `resend_after`, within 1 s and this).
const MAX_OWED_LOOK: Duration = Duration::from_secs(60);

/// One thing to publish.
#[derive(Debug, Clone)]
pub(crate) struct Outgoing {
    /// The destination hub.
    pub(crate) hub: String,
    pub(crate) subject: String,
    /// The `Nats-Msg-Id`, also the key in [`Published`].
    pub(crate) key: String,
    /// A mail's file name, an attachment's name and message (see `wire`).
    pub(crate) headers: Vec<(&'static str, String)>,
    pub(crate) payload: Vec<u8>,
}

/// What a copy of a message in `agent`'s `folder` (of `mailbox`) obliges hub `me` to publish,
/// in the order it must reach the stream.
pub(crate) fn outgoing(
    config: &Config,
    me: &str,
    mailbox: &Mailbox,
    envelope: &Envelope,
    message: &Message,
) -> anyhow::Result<Vec<Outgoing>> {
    let mut out = Vec::new();
    let agent = mailbox.owner();
    let spool_hub = hub_of(config, agent);
    let id = message.header.id();
    if let (Some(hub), Folder::Inbox) = (&spool_hub, envelope.folder) {
        out.extend(spooled(me, hub, mailbox, envelope, message)?);
    }
    // A question to a person there, withdrawn here (its asker stopped waiting): the asker
    // moved the stand-in's copy to cancel/ with a `Withdrawn` line.
    if let (Some(hub), Folder::Cancel) = (&spool_hub, envelope.folder)
        && let Some(withdrawn) = message.processing.last().filter(|p| p.action == WITHDRAWN)
    {
        out.push(event(
            hub,
            me,
            Event::Withdrawn {
                asker: names::qualify(&withdrawn.by, me),
                agent: agent.to_string(),
                id: id.to_owned(),
                details: withdrawn.details.clone(),
            },
        )?);
    }
    if is_obsolete(message) {
        let mut hubs: Vec<String> = names::people(message)
            .iter()
            .filter_map(|name| AgentId::new(name).ok())
            .filter_map(|agent| hub_of(config, &agent))
            .chain(spool_hub.clone())
            .collect();
        hubs.sort();
        hubs.dedup();
        for hub in hubs.into_iter().filter(|h| h != me) {
            out.push(event(&hub, me, Event::Obsolete { id: id.to_owned() })?);
        }
    }
    if spool_hub.is_none()
        && matches!(
            envelope.folder,
            Folder::Hold | Folder::Done | Folder::Cancel
        )
    {
        let mut hubs: Vec<String> = [field::SENDER, field::ORIGINAL_SENDER]
            .iter()
            .filter_map(|f| message.header.get(f))
            .filter_map(|name| AgentId::new(name).ok())
            .filter_map(|agent| hub_of(config, &agent))
            .collect();
        hubs.sort();
        hubs.dedup();
        if !hubs.is_empty() {
            let mut wire_message = message.clone();
            names::to_wire(&mut wire_message, me);
            let state = Event::State {
                agent: names::qualify(agent.as_str(), me),
                folder: envelope.folder.as_str().to_owned(),
                file: envelope.file.to_string(),
                markdown: render(&wire_message),
            };
            for hub in hubs {
                out.push(event(&hub, me, state.clone())?);
            }
        }
    }
    Ok(out)
}

/// What a spool copy (the inbox of `mailbox`, the stand-in of an agent of hub `hub`) is to
/// publish: the attachments its conversation links to, then the mail itself (last).
fn spooled(
    me: &str,
    hub: &str,
    mailbox: &Mailbox,
    envelope: &Envelope,
    message: &Message,
) -> anyhow::Result<Vec<Outgoing>> {
    let mut out = Vec::new();
    let id = message.header.id();
    let local = names::localise(mailbox.owner().as_str(), hub);
    for name in linked_attachments(message) {
        let bytes = match mailbox.read_attachment(id, &name) {
            Ok(bytes) => bytes,
            // A link that dangles here dangles there too; the mail still goes.
            Err(Error::Io { source, .. }) if source.kind() == ErrorKind::NotFound => continue,
            Err(e) => return Err(e.into()),
        };
        out.push(Outgoing {
            hub: hub.to_owned(),
            subject: wire::attachment_subject(hub, me, &local),
            key: wire::attachment_id(hub, &local, id, &name, &bytes),
            headers: vec![
                (wire::MESSAGE_ID_HEADER, id.to_owned()),
                (wire::FILE_HEADER, name),
            ],
            payload: bytes,
        });
    }
    let mut wire_message = message.clone();
    wire_message
        .processing
        .retain(|p| !travelled::is_receipt(p));
    names::to_wire(&mut wire_message, me);
    let markdown = render(&wire_message);
    out.push(Outgoing {
        hub: hub.to_owned(),
        subject: wire::mail_subject(hub, me, &local),
        key: wire::mail_id(hub, &local, id, message.conversation.len(), &markdown),
        headers: vec![(wire::FILE_HEADER, envelope.file.to_string())],
        payload: markdown.into_bytes(),
    });
    Ok(out)
}

/// The event `event` for hub `hub`, from hub `me`.
pub(crate) fn event(hub: &str, me: &str, event: Event) -> anyhow::Result<Outgoing> {
    Ok(Outgoing {
        hub: hub.to_owned(),
        subject: wire::event_subject(hub, me),
        key: wire::event_id(hub, &event),
        headers: Vec::new(),
        payload: serde_json::to_vec(&event).context("encoding an event")?,
    })
}

/// The names of the attachments a message's body and conversation link to, once each.
fn linked_attachments(message: &Message) -> Vec<String> {
    let id = message.header.id();
    let mut names: Vec<String> = std::iter::once(message.body.as_str())
        .chain(message.conversation.iter().map(|c| c.body.as_str()))
        .flat_map(|body| split_links(body, id).1)
        .map(|attachment| attachment.name)
        .collect();
    names.sort();
    names.dedup();
    names
}

fn is_obsolete(message: &Message) -> bool {
    message
        .header
        .get(field::STATUS)
        .and_then(Status::parse)
        .is_some_and(|s| s == Status::Obsolete)
}

/// Whether a copy can oblige this hub to publish anything, judged from its header alone (so
/// the hub reads whole only the few files that matter).
fn may_matter(config: &Config, agent: &AgentId, envelope: &Envelope) -> bool {
    let header = &envelope.header;
    let obsolete = header
        .get(field::STATUS)
        .and_then(Status::parse)
        .is_some_and(|s| s == Status::Obsolete);
    let from_remote = [field::SENDER, field::ORIGINAL_SENDER]
        .iter()
        .filter_map(|f| header.get(f))
        .filter_map(|name| AgentId::new(name).ok())
        .any(|sender| hub_of(config, &sender).is_some());
    obsolete
        || match hub_of(config, agent) {
            // The spool, and what was withdrawn from it.
            Some(_) => matches!(envelope.folder, Folder::Inbox | Folder::Cancel),
            None => {
                from_remote
                    && matches!(
                        envelope.folder,
                        Folder::Hold | Folder::Done | Folder::Cancel
                    )
            }
        }
}

/// A file to consider, and when it last changed.
struct Candidate {
    agent: AgentId,
    mailbox: Mailbox,
    folder: Folder,
    file: FileName,
    changed: (i64, i64),
}

/// The publisher of one hub.
pub(crate) struct Outbound {
    pub(crate) config: Arc<LiveConfig>,
    pub(crate) me: String,
    pub(crate) js: jetstream::Context,
    /// The stream's replicas, when this hub creates it.
    pub(crate) replicas: usize,
    pub(crate) runtime: tokio::runtime::Handle,
    pub(crate) published: Arc<Mutex<Published>>,
    /// How long mail may go without its delivery receipt before it is published again (the
    /// config's `federation.resend_after_secs`).
    pub(crate) resend_after: Duration,
}

impl Outbound {
    /// Publish what the files call for, then follow them until `stop()`.
    pub(crate) fn run(&self, stop: &dyn Fn() -> bool) -> anyhow::Result<()> {
        // The stream first: a publish before it exists is refused ("no stream found"), and
        // whoever creates it meanwhile (this hub's receiver, another hub, `federation
        // status`) would let the mail after it in the same batch be stored ahead of it.
        let opened = retrying("open the stream", stop, || {
            self.runtime
                .block_on(connect::stream(&self.js, self.replicas))
                .map(drop)
        });
        if opened.is_err() {
            // Stopped while NATS was away: the only way `retrying` gives up.
            return Ok(());
        }
        let mut feed = Feed::new();
        let mut watched: HashSet<AgentId> = HashSet::new();
        // When this process last handed each owed mail to the stream (by its key).
        let mut sent: HashMap<String, Instant> = HashMap::new();
        let mut owing = Owing::default();
        let look_every = (self.resend_after / 4).clamp(Duration::from_secs(1), MAX_OWED_LOOK);
        let mut next_look = Instant::now() + look_every;
        while !stop() {
            let config = self.config.current()?;
            let mut candidates = Vec::new();
            for agent in config.file.agents.keys() {
                if watched.contains(agent) {
                    continue;
                }
                let mailbox = Mailbox::open(agent.clone(), config.mailbox_path(agent)?)?;
                for folder in Folder::ALL {
                    // Watched before listed: nothing arrives unseen in between.
                    feed.watch(&mailbox, folder)?;
                    let (files, _) = mailbox.file_names(folder)?;
                    candidates.extend(
                        files
                            .into_iter()
                            .filter_map(|file| candidate(&mailbox, agent, folder, file)),
                    );
                }
                watched.insert(agent.clone());
            }
            if candidates.is_empty() {
                let changes = feed.next(Some(Instant::now() + CONFIG_LOOK), stop)?;
                let mut mailboxes: HashMap<AgentId, Option<Mailbox>> = HashMap::new();
                for change in changes
                    .into_iter()
                    .filter(|c| c.kind == ChangeKind::Arrived)
                {
                    let mailbox = mailboxes
                        .entry(change.agent.clone())
                        .or_insert_with(|| config.mailbox_to_read(&change.agent).ok());
                    let Some(mailbox) = mailbox else {
                        continue;
                    };
                    candidates.extend(candidate(
                        mailbox,
                        &change.agent,
                        change.folder,
                        change.file,
                    ));
                }
            }
            candidates.sort_by_key(|c| c.changed);
            let mut due = Vec::new();
            let mut keys = HashSet::new();
            for c in candidates {
                if stop() {
                    break;
                }
                match self.unpublished(&config, &c, &mut owing) {
                    Ok(items) => {
                        due.extend(items.into_iter().filter(|i| keys.insert(i.key.clone())))
                    }
                    Err(e) => tracing::warn!(
                        agent = %c.agent,
                        "{}/{}: {e:#}",
                        c.folder,
                        c.file
                    ),
                }
            }
            self.publish_all(&due, stop)?;
            if Instant::now() >= next_look {
                if let Err(e) = self.resend_lost(&config, &mut sent, &mut owing, stop) {
                    tracing::warn!("looking for lost mail: {e:#}");
                }
                next_look = Instant::now() + look_every;
            }
        }
        Ok(())
    }

    /// Publish again the mail the stream lost: mail without its delivery receipt for longer
    /// than `resend_after` (since this process last published it, else since it entered the
    /// spool), when the stream holds fewer messages on its subject than this hub published
    /// and still owes there (so mail that only waits for a hub that is away is not published
    /// twice). The receiving hub delivers by Message ID and conversation, so a copy that was
    /// not lost after all is absorbed.
    fn resend_lost(
        &self,
        config: &Config,
        sent: &mut HashMap<String, Instant>,
        owing: &mut Owing,
        stop: &dyn Fn() -> bool,
    ) -> anyhow::Result<()> {
        let now = Instant::now();
        let mut owed = owing.still_owed(config, &self.me)?;
        // Only what was handed to the stream can have been lost by it.
        {
            let published = self.published.lock().expect("published keys");
            owed.retain(|o| published.contains(&o.mail().key));
        }
        let overdue = |o: &Owed| match sent.get(&o.mail().key) {
            Some(at) => now.duration_since(*at) >= self.resend_after,
            None => o.age() >= self.resend_after,
        };
        // Per mail subject: how many this hub owes there, and which of them are overdue.
        let mut by_subject: BTreeMap<&str, (u64, Vec<&Owed>)> = BTreeMap::new();
        for o in &owed {
            let (count, late) = by_subject.entry(&o.mail().subject).or_default();
            *count += 1;
            if overdue(o) {
                late.push(o);
            }
        }
        for (subject, (count, late)) in by_subject {
            if late.is_empty() {
                continue;
            }
            let held = self.runtime.block_on(async {
                let stream = connect::stream(&self.js, self.replicas).await?;
                connect::messages_on(&stream, subject).await
            })?;
            let lost = held < count;
            for o in late {
                if lost {
                    tracing::warn!(
                        "{} had no receipt for {}s and the stream lost it: publishing it again",
                        o.mail().key,
                        o.age().as_secs()
                    );
                    for item in &o.items {
                        self.publish(item, stop)?;
                    }
                }
                sent.insert(o.mail().key.clone(), now);
            }
        }
        Ok(())
    }

    /// What one copy calls for and was not published yet, in order; a spool copy is noted in
    /// `owing` until it has its delivery receipt.
    fn unpublished(
        &self,
        config: &Config,
        c: &Candidate,
        owing: &mut Owing,
    ) -> anyhow::Result<Vec<Outgoing>> {
        let mailbox = &c.mailbox;
        let spool = c.folder == Folder::Inbox && hub_of(config, &c.agent).is_some();
        let key = (c.agent.clone(), c.file.clone());
        // Gone since (moved on by its owner): whatever it became is a candidate of its own.
        // Unreadable for now: still owed if it was.
        let envelope = match mailbox.envelope(c.folder, &c.file) {
            Ok(Some(envelope)) => envelope,
            Ok(None) => {
                owing.0.remove(&key);
                return Ok(Vec::new());
            }
            Err(_) => return Ok(Vec::new()),
        };
        if !may_matter(config, &c.agent, &envelope) {
            return Ok(Vec::new());
        }
        let Ok(message) = mailbox.read(&envelope) else {
            return Ok(Vec::new());
        };
        if spool && !travelled::received(&message) {
            owing.0.insert(key, mailbox.clone());
        } else {
            owing.0.remove(&key);
        }
        let mut items = outgoing(config, &self.me, mailbox, &envelope, &message)?;
        let published = self.published.lock().expect("published keys");
        items.retain(|item| !published.contains(&item.key));
        Ok(items)
    }

    /// Publish `items` in order, with up to [`IN_FLIGHT`] of them awaiting the stream's
    /// acknowledgement at once (one connection keeps their order), recording each key once
    /// acknowledged. One that fails is published again on its own ([`Outbound::publish`],
    /// trying while NATS is away), once those before it are settled. One the server could
    /// never carry is reported and stays in the spool.
    fn publish_all(&self, items: &[Outgoing], stop: &dyn Fn() -> bool) -> anyhow::Result<()> {
        let mut in_flight = VecDeque::with_capacity(IN_FLIGHT);
        for item in items {
            if stop() {
                break;
            }
            if let Err(e) = self.fits(item) {
                tracing::warn!("{}: {e:#}", item.key);
                continue;
            }
            match self.runtime.block_on(self.send(item)) {
                Ok(ack) => in_flight.push_back((item, ack)),
                Err(_) => {
                    self.settle(&mut in_flight, 0, stop)?;
                    self.publish(item, stop)?;
                    self.record(item)?;
                }
            }
            self.settle(&mut in_flight, IN_FLIGHT - 1, stop)?;
        }
        self.settle(&mut in_flight, 0, stop)
    }

    /// Await the oldest acknowledgements until at most `keep` are in flight. One that failed
    /// is published again after those sent behind it, so order holds only if they were lost
    /// with it or it was stored after all (an acknowledgement that timed out; the stream drops
    /// the copy by its `Nats-Msg-Id`): never a stream that did not exist yet ([`Outbound::run`]
    /// opens it first).
    fn settle(
        &self,
        in_flight: &mut VecDeque<(&Outgoing, PublishAckFuture)>,
        keep: usize,
        stop: &dyn Fn() -> bool,
    ) -> anyhow::Result<()> {
        while in_flight.len() > keep {
            let (item, ack) = in_flight.pop_front().expect("more than `keep` in flight");
            if self.runtime.block_on(ack.into_future()).is_err() {
                self.publish(item, stop)?;
            }
            self.record(item)?;
        }
        Ok(())
    }

    fn record(&self, item: &Outgoing) -> anyhow::Result<()> {
        self.published
            .lock()
            .expect("published keys")
            .record(&item.key)
    }

    /// Whether this NATS server carries `item` in one message.
    fn fits(&self, item: &Outgoing) -> anyhow::Result<()> {
        let max_payload = self.js.client().server_info().max_payload;
        if max_payload > 0 && item.payload.len() > max_payload {
            anyhow::bail!(
                "{} bytes is more than this NATS server carries in one message ({max_payload}); \
                 it stays in the spool",
                item.payload.len()
            );
        }
        Ok(())
    }

    /// Hand one item to NATS; the stream's acknowledgement is still to come.
    async fn send(&self, item: &Outgoing) -> anyhow::Result<PublishAckFuture> {
        let mut publish = PublishMessage::build()
            .payload(item.payload.clone().into())
            .message_id(&item.key);
        for (name, value) in &item.headers {
            publish = publish.header(*name, value.as_str());
        }
        Ok(self.js.send_publish(item.subject.clone(), publish).await?)
    }

    /// Publish one item and wait for the stream's acknowledgement, trying again while NATS is
    /// away, until `stop()`.
    fn publish(&self, item: &Outgoing, stop: &dyn Fn() -> bool) -> anyhow::Result<()> {
        self.fits(item)?;
        let what = format!("publish {} to the peer {}", item.key, item.hub);
        retrying(&what, stop, || {
            self.runtime
                .block_on(async { self.send(item).await?.await.map_err(anyhow::Error::from) })
                .map(drop)
        })
    }
}

/// Run `attempt` until it succeeds, pausing longer after each failure (NATS is away, or
/// the stream is), until `stop()`; `what` it does is named once in a warning when it
/// fails and once when it works again.
fn retrying(
    what: &str,
    stop: &dyn Fn() -> bool,
    mut attempt: impl FnMut() -> anyhow::Result<()>,
) -> anyhow::Result<()> {
    let mut delay = Duration::from_millis(50);
    let mut reported = false;
    loop {
        match attempt() {
            Ok(()) => {
                if reported {
                    tracing::info!("{what}: done after trying again");
                }
                return Ok(());
            }
            Err(e) => {
                if !reported {
                    tracing::warn!("cannot {what} yet (trying again): {e:#}");
                    reported = true;
                }
                if stop() {
                    anyhow::bail!("stopped before being able to {what}");
                }
                std::thread::sleep(delay);
                delay = (delay * 2).min(MAX_RETRY_DELAY);
            }
        }
    }
}

fn candidate(
    mailbox: &Mailbox,
    agent: &AgentId,
    folder: Folder,
    file: FileName,
) -> Option<Candidate> {
    let meta = std::fs::symlink_metadata(mailbox.folder_path(folder).join(file.as_str())).ok()?;
    Some(Candidate {
        agent: agent.clone(),
        mailbox: mailbox.clone(),
        folder,
        changed: (meta.ctime(), meta.ctime_nsec()),
        file,
    })
}

/// Mail in a spool that has no delivery receipt yet: what this hub owes.
pub(crate) struct Owed {
    /// Its attachments, then the mail itself ([`spooled`]).
    pub(crate) items: Vec<Outgoing>,
    /// When the spool copy was last written (it entered the spool).
    pub(crate) since: SystemTime,
}

impl Owed {
    /// The mail itself.
    pub(crate) fn mail(&self) -> &Outgoing {
        self.items
            .last()
            .expect("a spool copy's items end with its mail")
    }

    /// How long it has been owed.
    pub(crate) fn age(&self) -> Duration {
        SystemTime::now()
            .duration_since(self.since)
            .unwrap_or_default()
    }
}

/// The spool copies the publisher found without a delivery receipt (by stand-in and file
/// name), kept from the changes it follows: a look for mail the stream lost reads only these,
/// never a spool's history of mail long received.
#[derive(Default)]
struct Owing(HashMap<(AgentId, FileName), Mailbox>);

impl Owing {
    /// The mail these copies stand for that is still owed, oldest first; the others (received
    /// or gone since) are forgotten.
    fn still_owed(&mut self, config: &Config, me: &str) -> anyhow::Result<Vec<Owed>> {
        let mut out = Vec::new();
        let mut settled = Vec::new();
        for ((agent, file), mailbox) in &self.0 {
            match owed_copy(config, me, mailbox, file)? {
                Some(owed) => out.push(owed),
                None => settled.push((agent.clone(), file.clone())),
            }
        }
        for key in settled {
            self.0.remove(&key);
        }
        out.sort_by_key(|o| o.since);
        Ok(out)
    }
}

/// The mail every spool (the inbox of each remote agent's stand-in) holds without a delivery
/// receipt, oldest first: every spool copy read (for `federation status`).
pub(crate) fn owed(config: &Config, me: &str) -> anyhow::Result<Vec<Owed>> {
    let mut out = Vec::new();
    for (agent, mailbox) in config.readable_mailboxes() {
        if hub_of(config, agent).is_none() {
            continue;
        }
        let (files, _) = mailbox.file_names(Folder::Inbox)?;
        for file in files {
            out.extend(owed_copy(config, me, &mailbox, &file)?);
        }
    }
    out.sort_by_key(|o| o.since);
    Ok(out)
}

/// The mail the spool copy `file` (in the inbox of `mailbox`, a stand-in) stands for, while it
/// has no delivery receipt.
fn owed_copy(
    config: &Config,
    me: &str,
    mailbox: &Mailbox,
    file: &FileName,
) -> anyhow::Result<Option<Owed>> {
    let Some(hub) = hub_of(config, mailbox.owner()) else {
        return Ok(None);
    };
    let path = mailbox.folder_path(Folder::Inbox).join(file.as_str());
    // Gone, or unreadable: moved on, nothing owed.
    let Ok(meta) = std::fs::symlink_metadata(&path) else {
        return Ok(None);
    };
    let Some(envelope) = mailbox.envelope(Folder::Inbox, file).ok().flatten() else {
        return Ok(None);
    };
    let Ok(message) = mailbox.read(&envelope) else {
        return Ok(None);
    };
    if travelled::received(&message) {
        return Ok(None);
    }
    let changed = Duration::new(
        u64::try_from(meta.ctime()).unwrap_or_default(),
        u32::try_from(meta.ctime_nsec()).unwrap_or_default(),
    );
    Ok(Some(Owed {
        items: spooled(me, &hub, mailbox, &envelope, &message)?,
        since: UNIX_EPOCH + changed,
    }))
}

/// Everything the files call for now, published or not (for `federation status`).
pub(crate) fn pending(config: &Config, me: &str) -> anyhow::Result<Vec<Outgoing>> {
    let mut out = Vec::new();
    for (agent, mailbox) in config.readable_mailboxes() {
        for folder in Folder::ALL {
            let (files, _) = mailbox.file_names(folder)?;
            for file in files {
                let Some(envelope) = mailbox.envelope(folder, &file).ok().flatten() else {
                    continue;
                };
                if !may_matter(config, agent, &envelope) {
                    continue;
                }
                if let Ok(message) = mailbox.read(&envelope) {
                    out.extend(outgoing(config, me, &mailbox, &envelope, &message)?);
                }
            }
        }
    }
    Ok(out)
}

#[cfg(test)]
mod tests {
    use std::sync::atomic::{AtomicBool, Ordering};

    use super::*;
    use crate::local_nats::LocalNats;
    use filebox_core::{AgentEntry, Mailroom, MessageRef, MessageType, SendRequest};

    /// Only for a failing test: how long the spool may take to reach the stream.
    const DEADLINE: Duration = Duration::from_secs(30);

    /// The stream's mail in stream order: each message's file name (its `FILE_HEADER`), none
    /// while there is no stream.
    async fn files_in_stream(js: &jetstream::Context) -> Vec<String> {
        let Ok(mut stream) = js.get_stream(wire::STREAM).await else {
            return Vec::new();
        };
        let last = stream.info().await.unwrap().state.last_sequence;
        let mut files = Vec::new();
        for sequence in 1..=last {
            let message = stream.get_raw_message(sequence).await.unwrap();
            files.extend(
                message
                    .headers
                    .get(wire::FILE_HEADER)
                    .map(|file| file.to_string()),
            );
        }
        files
    }

    /// A config at `path` with a local agent `a` (beside it) and `b` on the hub `far`.
    fn a_and_b_far(path: &std::path::Path) -> Config {
        let home = path.parent().unwrap().to_owned();
        Config::update(path, |file| {
            file.agents
                .insert(AgentId::new("a")?, AgentEntry::new(home.join("a")));
            file.agents
                .insert(AgentId::new("b@far")?, AgentEntry::on_hub("far"));
            Ok(())
        })
        .unwrap()
    }

    #[test]
    fn mail_spooled_before_the_stream_exists_reaches_it_in_order_with_the_publisher_alone() {
        // The race this rules out: the publisher's first batch went out before any stream
        // existed (refused: "no stream found"); the receiver of this hub, another hub or
        // `federation status` created the stream while the rest of the batch was in flight;
        // the rest was stored, and the refused first mail, published again, came last. The
        // publisher now opens the stream itself before it publishes: alone, it gets the
        // spool there, in order.
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        let config = a_and_b_far(&path);
        let mailroom = Mailroom::new(config.clone(), Some(&AgentId::new("a").unwrap())).unwrap();
        let spool = mailroom.mailbox(&AgentId::new("b@far").unwrap()).unwrap();
        let spooled: Vec<String> = (0..5)
            .map(|n| {
                let kind = MessageType::new("DIS").unwrap();
                let request = SendRequest::new("b@far", kind, format!("mail {n}"));
                let id = mailroom.send(&request).unwrap().id;
                let copy = spool.find(&MessageRef::Id(id), &[Folder::Inbox]).unwrap();
                copy.file.to_string()
            })
            .collect();
        let server = LocalNats::start(&dir.path().join("jetstream")).unwrap();
        let runtime = tokio::runtime::Runtime::new().unwrap();
        let client = runtime.block_on(async_nats::connect(server.url())).unwrap();
        let js = runtime.block_on(async { connect::jetstream(client) });
        let outbound = Outbound {
            config: Arc::new(LiveConfig::load(&path).unwrap()),
            me: "here".to_owned(),
            js: js.clone(),
            replicas: 1,
            runtime: runtime.handle().clone(),
            published: Arc::new(Mutex::new(Published::load(&config).unwrap())),
            resend_after: Duration::from_secs(3600),
        };
        let stop = AtomicBool::new(false);
        let in_stream = std::thread::scope(|scope| {
            let publisher = scope.spawn(|| outbound.run(&|| stop.load(Ordering::SeqCst)));
            let start = Instant::now();
            let mut in_stream = Vec::new();
            while in_stream.len() < spooled.len() && start.elapsed() < DEADLINE {
                std::thread::sleep(Duration::from_millis(50));
                in_stream = runtime.block_on(files_in_stream(&js));
            }
            stop.store(true, Ordering::SeqCst);
            // Stopped while still trying to publish is an error too; the stream tells.
            let _ = publisher.join().unwrap();
            in_stream
        });
        assert_eq!(
            in_stream, spooled,
            "the spool in the stream, in the order it was sent, with no one else to open it"
        );
    }

    #[test]
    fn the_look_for_lost_mail_reads_what_is_owed_and_forgets_what_was_received() {
        let dir = tempfile::tempdir().unwrap();
        let config = a_and_b_far(&dir.path().join("config.json"));
        let mailroom = Mailroom::new(config.clone(), Some(&AgentId::new("a").unwrap())).unwrap();
        let far = AgentId::new("b@far").unwrap();
        let spool = mailroom.mailbox(&far).unwrap();
        let send = |body: &str| {
            let kind = MessageType::new("DIS").unwrap();
            let id = mailroom
                .send(&SendRequest::new("b@far", kind, body))
                .unwrap()
                .id;
            let file = spool
                .find(&MessageRef::Id(id.clone()), &[Folder::Inbox])
                .unwrap()
                .file
                .clone();
            (id, file)
        };
        let (_, owed_file) = send("still in flight");
        let (received_id, received_file) = send("delivered");
        // Owed too, but the publisher never saw it: the look does not read the spool.
        send("not seen yet");
        assert!(
            mailroom
                .record_receipt(&far, &received_id, 0, Some(&received_file))
                .unwrap()
        );
        let mut owing = Owing::default();
        for file in [&owed_file, &received_file] {
            owing.0.insert((far.clone(), file.clone()), spool.clone());
        }
        let still = owing.still_owed(&config, "here").unwrap();
        let files: Vec<&str> = still
            .iter()
            .map(|o| o.mail().headers[0].1.as_str())
            .collect();
        assert_eq!(files, [owed_file.as_str()]);
        assert_eq!(owing.0.len(), 1, "the received copy is forgotten");
        // `federation status` reads every spool copy.
        assert_eq!(owed(&config, "here").unwrap().len(), 2);
    }
}
