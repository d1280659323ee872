//! `send`: a new message to every recipient's inbox with a copy in my outbox, or, with
//! `reply_to`, a reply: the conversation grows in the same file, which moves on.

use crate::agent::AgentId;
use crate::choice::choice;
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::fs::beneath::Place;
use crate::mail::idempotency::{self, Fingerprint, IdempotencyKey};
use crate::mail::key_record::KeyedWrite;
use crate::mail::reply::{REPLIER_COPY_FOLDERS, SourceType, replier_copy_folder};
use crate::mailbox::Status;
use crate::mailbox::attachment::{self, Attachment};
use crate::mailbox::copy;
use crate::mailbox::{Envelope, Mailbox, MessageRef, parse_bytes};
use crate::mailroom::Mailroom;
use crate::message::{
    ConversationEntry, FileName, Header, Message, MessageType, field, file_name_for, is_question,
    limits, render,
};
use crate::store::{self, Destination, Moved};
use crate::time;

/// The longest title derived from a body's first line, in characters.
const DERIVED_TITLE_CHARS: usize = 80;

/// How many fresh Message IDs a new message tries when its file name is taken.
const NAME_TRIES: usize = 4;

choice! {
    /// A message's priority.
    pub enum Priority("priority") {
        Normal => "normal",
        Urgent => "urgent",
    }
}

/// What to send.
#[derive(Debug, Clone)]
pub struct SendRequest {
    /// Agent ids, comma lists, `@all` or `@group`.
    pub to: Vec<String>,
    pub cc: Vec<String>,
    pub kind: MessageType,
    /// Defaults to the body's first line.
    pub title: Option<String>,
    /// Markdown; kept byte for byte.
    pub body: String,
    /// The message being answered.
    pub reply_to: Option<MessageRef>,
    pub priority: Option<Priority>,
    /// Who is sending; `None`: `human` from a person's mailbox (`kind: human`), else nothing
    /// is written, which reads as `agent`.
    pub source_type: Option<SourceType>,
    /// Where replies to this message should go instead of me (`Reply To`).
    pub reply_to_agent: Option<AgentId>,
    /// Files stored in `attachments/<message-id>/` of every mailbox that gets a copy, and
    /// linked from the end of the body.
    pub attachments: Vec<Attachment>,
    /// A repeat of this send with the same key within [`idempotency::WINDOW`] returns the
    /// first send's receipt and writes nothing; with other content it is refused.
    pub idempotency_key: Option<IdempotencyKey>,
}

impl SendRequest {
    /// A plain message to `to`.
    pub fn new(to: impl Into<String>, kind: MessageType, body: impl Into<String>) -> Self {
        SendRequest {
            to: vec![to.into()],
            cc: Vec::new(),
            kind,
            title: None,
            body: body.into(),
            reply_to: None,
            priority: None,
            source_type: None,
            reply_to_agent: None,
            attachments: Vec::new(),
            idempotency_key: None,
        }
    }
}

/// What a send did.
#[derive(Debug, Clone)]
pub struct SendReceipt {
    pub id: String,
    pub file: String,
    /// Recipients of this machine: the file is in their mailbox.
    pub delivered_to: Vec<AgentId>,
    /// Recipients on another machine (`name@hub`): the file is in this machine's outgoing
    /// spool, pending (in flight) until their hub sends its delivery receipt, as `status` says.
    pub queued_for: Vec<AgentId>,
    /// My copy as this call wrote it: a new message's outbox record, a reply's copy of the
    /// message it answered (in outbox/, or done/ for a question); `None` for a repeat of a
    /// keyed send that an earlier send answered.
    pub written: Option<(Envelope, Message)>,
}

/// Two receipts are equal when they tell of the same send, whether or not the call wrote it
/// (a keyed repeat answers with its first send's receipt).
impl PartialEq for SendReceipt {
    fn eq(&self, other: &Self) -> bool {
        (&self.id, &self.file, &self.delivered_to, &self.queued_for)
            == (
                &other.id,
                &other.file,
                &other.delivered_to,
                &other.queued_for,
            )
    }
}

impl SendReceipt {
    /// Everyone who got a copy, here or in the spool.
    pub fn recipients(&self) -> impl Iterator<Item = &AgentId> {
        self.delivered_to.iter().chain(&self.queued_for)
    }

    /// How far a message this call [`written`](Self::written) got, as `status` says of it at
    /// that moment: pending while a recipient on another machine has not received it, else
    /// delivered (the recipients' copies are in their inboxes, untouched yet).
    pub fn status(&self) -> Status {
        if self.queued_for.is_empty() {
            Status::Delivered
        } else {
            Status::Pending
        }
    }
}

impl Mailroom {
    /// Send a new message, or a reply when `request.reply_to` is set. Not of type `PRM`, which
    /// only the permission relay writes (`crate::human::permission`).
    pub fn send(&self, request: &SendRequest) -> Result<SendReceipt> {
        request.kind.refuse_reserved()?;
        let (to, cc, recipients) = self.recipients(request)?;
        let reply_to = request.reply_to.as_ref();
        self.once(
            request,
            reply_to,
            (&to, &cc, &recipients),
            &[],
            |keyed| match reply_to {
                None => self.send_new(request, (&to, &cc, &recipients), &[], keyed),
                Some(reference) => self.send_reply(request, reference, &to, &recipients, keyed),
            },
        )
    }

    /// Send a new message with extra header fields (a fork's links; the hub's Thread ID,
    /// Callback and Metadata). `request.reply_to` is ignored: this always starts a message.
    /// Not of type `PRM`, as [`Mailroom::send`].
    pub fn send_new_with(
        &self,
        request: &SendRequest,
        extra: &[(&str, &str)],
    ) -> Result<SendReceipt> {
        request.kind.refuse_reserved()?;
        self.send_new_from(request, extra, || uuid::Uuid::new_v4().to_string())
    }

    /// [`Mailroom::send_new_with`] of any type, its Message IDs drawn from `new_id`: for the
    /// human channel, whose permission relay leases the id before the prompt is written.
    pub(crate) fn send_new_from(
        &self,
        request: &SendRequest,
        extra: &[(&str, &str)],
        new_id: impl FnMut() -> String,
    ) -> Result<SendReceipt> {
        let (to, cc, recipients) = self.recipients(request)?;
        self.once(request, None, (&to, &cc, &recipients), extra, |keyed| {
            self.send_new_with_ids(request, (&to, &cc, &recipients), extra, keyed, new_id)
        })
    }

    /// Run `write` once per idempotency key: without a key it just runs; with one, under the
    /// key's lock, an earlier write of mine with that key within the window answers instead
    /// (the same request: its receipt, nothing written; another: `KeyReused`), else `write`
    /// runs with the stamp its copies must carry, and records its file name before it
    /// publishes (`idempotency.rs`, `key_record.rs`).
    fn once(
        &self,
        request: &SendRequest,
        reply_to: Option<&MessageRef>,
        (to, cc, recipients): (&[AgentId], &[AgentId], &[AgentId]),
        extra: &[(&str, &str)],
        write: impl FnOnce(Option<&KeyedWrite>) -> Result<SendReceipt>,
    ) -> Result<SendReceipt> {
        let Some(key) = &request.idempotency_key else {
            return write(None);
        };
        let mut fingerprint = Fingerprint::new();
        fingerprint
            .add(request.kind.as_str())
            .add_option(request.title.as_deref())
            .add(&request.body)
            .add(join(to))
            .add(join(cc))
            .add_option(reply_to.map(MessageRef::text))
            .add_option(request.priority.map(|p| p.as_str()))
            .add_option(request.source_type.map(|s| s.as_str()))
            .add_option(request.reply_to_agent.as_ref().map(AgentId::as_str))
            .add_attachments(&request.attachments);
        for (name, value) in extra {
            fingerprint.add(name).add(value);
        }
        let mine = self.my_mailbox()?;
        let keyed = KeyedWrite::take(&mine, key, fingerprint.stamp(key), || {
            self.keyed_writes(&mine)
        })?;
        // A reply is one two-phase move that opening my mailbox finished or undid; a new
        // message may have reached recipients before a killed writer made my copy.
        let new_message = reply_to.is_none();
        let earlier = match keyed.recorded()? {
            Some(name) => self.earlier(&mine, &name, key, new_message.then_some(recipients))?,
            None => None,
        };
        let Some(earlier) = earlier else {
            return write(Some(&keyed));
        };
        if earlier.header.get(field::IDEMPOTENCY_KEY) != Some(keyed.stamp()) {
            return Err(Error::KeyReused {
                key: key.as_str().to_owned(),
                id: earlier.header.id().to_owned(),
            });
        }
        if earlier.folder == Folder::Inbox {
            self.finish_interrupted(&earlier, recipients)?;
        }
        Ok(self.receipt(
            earlier.header.id().to_owned(),
            earlier.file.to_string(),
            recipients.to_vec(),
        ))
    }

    /// The earlier write of mine with `key`, in the file `name` its record names, when that
    /// still carries the key: in my outbox or done/, then, for a new message (`recipients`
    /// given), in a recipient's inbox (a writer killed before my copy).
    fn earlier(
        &self,
        mine: &Mailbox,
        name: &FileName,
        key: &IdempotencyKey,
        recipients: Option<&[AgentId]>,
    ) -> Result<Option<Envelope>> {
        let found = idempotency::find_earlier(mine, &REPLIER_COPY_FOLDERS, self.me(), key, name)?;
        if found.is_some() {
            return Ok(found);
        }
        for recipient in recipients.unwrap_or_default() {
            let Ok(mailbox) = self.mailbox(recipient) else {
                continue;
            };
            let found =
                idempotency::find_earlier(&mailbox, &[Folder::Inbox], self.me(), key, name)?;
            if found.is_some() {
                return Ok(found);
            }
        }
        Ok(None)
    }

    /// Every keyed write of mine of the window, from the files: my outbox and done/, then
    /// the inboxes of every agent whose mailbox opens here (a new message whose writer was
    /// killed before my copy), so that my own copies' records come last and stand.
    fn keyed_writes(&self, mine: &Mailbox) -> Result<Vec<(String, FileName)>> {
        let mut found = Vec::new();
        for agent in self.agents() {
            if let Ok(mailbox) = self.mailbox(agent) {
                found.extend(idempotency::keyed_writes(
                    &mailbox,
                    &[Folder::Inbox],
                    self.me(),
                )?);
            }
        }
        found.extend(idempotency::keyed_writes(
            mine,
            &REPLIER_COPY_FOLDERS,
            self.me(),
        )?);
        Ok(found)
    }

    /// The Source Type a new message carries: the one asked for, else `human` when I am a
    /// person (so the answer to my request is marked done for me to read, not left as a task
    /// in my inbox); only a person sends as `human`. Decided here, once, for every surface that
    /// sends.
    fn source_type(&self, request: &SendRequest) -> Result<Option<SourceType>> {
        let person = self
            .config()
            .agent(self.me())
            .is_ok_and(|entry| entry.kind == Some(crate::AgentKind::Human));
        if request.source_type == Some(SourceType::Human) && !person {
            return Err(Error::invalid(
                "source type",
                SourceType::Human.as_str(),
                format!(
                    "only a mailbox of kind human sends as human; {} is not one",
                    self.me()
                ),
            ));
        }
        Ok(request.source_type.or(person.then_some(SourceType::Human)))
    }

    /// Check the body (not blank, not over the limit) and resolve To, CC, and everyone they
    /// add up to.
    fn recipients(
        &self,
        request: &SendRequest,
    ) -> Result<(Vec<AgentId>, Vec<AgentId>, Vec<AgentId>)> {
        if request.body.trim().is_empty() {
            return Err(Error::invalid(
                "message body",
                request.body.as_str(),
                "it is empty: write what the message says",
            ));
        }
        let limit = self.config().max_body_bytes();
        if request.body.len() > limit {
            return Err(Error::TooLarge {
                size: request.body.len(),
                limit,
            });
        }
        let to = self.resolve_targets(&request.to)?;
        let cc = self.resolve_targets(&request.cc)?;
        let recipients: Vec<AgentId> = to
            .iter()
            .chain(cc.iter().filter(|c| !to.contains(c)))
            .cloned()
            .collect();
        if recipients.is_empty() {
            return Err(Error::invalid(
                "recipients",
                request.to.join(","),
                "no agent to send to",
            ));
        }
        Ok((to, cc, recipients))
    }

    fn send_new(
        &self,
        request: &SendRequest,
        targets: (&[AgentId], &[AgentId], &[AgentId]),
        extra: &[(&str, &str)],
        keyed: Option<&KeyedWrite>,
    ) -> Result<SendReceipt> {
        self.send_new_with_ids(request, targets, extra, keyed, || {
            uuid::Uuid::new_v4().to_string()
        })
    }

    /// [`Self::send_new`] with the Message IDs drawn from `new_id`. A file name keeps only
    /// eight hex digits of the id, so two sends of one subject in one second can meet on a
    /// name (one pair in 4.3 billion): when my outbox or the first inbox already holds the
    /// name, nothing is written yet, and the send starts again under a fresh id. Not with
    /// attachments, which are stored under the id before the first link.
    fn send_new_with_ids(
        &self,
        request: &SendRequest,
        (to, cc, recipients): (&[AgentId], &[AgentId], &[AgentId]),
        extra: &[(&str, &str)],
        keyed: Option<&KeyedWrite>,
        mut new_id: impl FnMut() -> String,
    ) -> Result<SendReceipt> {
        let extra = with_stamp(extra, keyed.map(KeyedWrite::stamp));
        let mut tries = 1;
        loop {
            let result = self.send_new_as(new_id(), request, to, cc, recipients, (&extra, keyed));
            match result {
                Err(e)
                    if store::already_exists(&e)
                        && request.attachments.is_empty()
                        && tries < NAME_TRIES =>
                {
                    tries += 1
                }
                result => return result,
            }
        }
    }

    /// Send a new message whose Message ID is `id`. Fails with the name taken, having written
    /// nothing but its attachments, when my outbox or (without attachments) the first
    /// recipient's inbox already holds a file of the message's name.
    fn send_new_as(
        &self,
        id: String,
        request: &SendRequest,
        to: &[AgentId],
        cc: &[AgentId],
        recipients: &[AgentId],
        (extra, keyed): (&[(&str, &str)], Option<&KeyedWrite>),
    ) -> Result<SendReceipt> {
        let now = time::now();
        let title = request
            .title
            .clone()
            .unwrap_or_else(|| derive_title(&request.body));
        let mut header = Header::new(&request.kind, &title);
        let me = self.me().as_str();
        for (key, value) in [
            (field::FORMAT_VERSION, "1.0"),
            (field::MESSAGE_ID, &id),
            (field::SENDER, me),
            (field::RECEIVER, &join(to)),
            (field::TIMESTAMP, &time::iso(now)),
            (field::ORIGINAL_SENDER, me),
            (field::CURRENT_OWNER, me),
        ] {
            header.set(key, value);
        }
        if !cc.is_empty() {
            header.set(field::CC, &join(cc));
        }
        if let Some(priority) = request.priority {
            header.set(field::PRIORITY, priority.as_str());
        }
        if let Some(source) = self.source_type(request)? {
            header.set(field::SOURCE_TYPE, source.as_str());
        }
        if let Some(agent) = &request.reply_to_agent {
            self.config().agent(agent)?;
            header.set(field::REPLY_TO, agent.as_str());
        }
        for (key, value) in extra {
            header.set(key, value);
        }
        // Before anything is written, attachments included.
        limits::check(&header)?;
        let body = self.attach(&id, &request.body, recipients, &request.attachments)?;
        let message = Message {
            header,
            body,
            conversation: Vec::new(),
            processing: Vec::new(),
        };
        let bytes = render(&message);
        let name = file_name_for(now, &request.kind, &message.header.title, &id);
        // My outbox holds the name already (a send of mine with this title in this second):
        // nothing is written yet, as for a name taken in the first inbox.
        let mine = self.my_mailbox()?;
        let record = mine.folder_path(Folder::Outbox).join(name.as_str());
        if store::modified(&record).is_some() {
            let taken = std::io::Error::new(
                std::io::ErrorKind::AlreadyExists,
                "a file of this name is already there",
            );
            return Err(Error::io(record, taken));
        }
        if let Some(keyed) = keyed {
            keyed.record(&name)?;
        }

        // Every recipient is tried, and the outbox copy always written, so that a failure for
        // one recipient neither hides what reached the others nor invites a duplicating retry.
        // The inboxes are linked before the outbox: my record never stands for a message no
        // recipient got.
        let mut copies = store::Copies::new(name.as_str(), bytes.as_bytes());
        let mut delivered = Vec::with_capacity(recipients.len());
        let mut failed = Vec::new();
        for recipient in recipients {
            let result = self
                .mailbox(recipient)
                .and_then(|m| copies.publish(&m.tmp(), &m.folder_path(Folder::Inbox)));
            match result {
                Ok(_) => delivered.push(recipient.clone()),
                // Nothing delivered yet and this is the only recipient, or the name is taken
                // in the first inbox (nothing written: the caller may retry): plainly an error.
                Err(e) if recipients.len() == 1 => return Err(e),
                Err(e)
                    if failed.is_empty()
                        && delivered.is_empty()
                        && request.attachments.is_empty()
                        && store::already_exists(&e) =>
                {
                    return Err(e);
                }
                Err(e) => failed.push(format!("{recipient} ({e})")),
            }
        }
        if delivered.is_empty() {
            return Err(Error::NotSent { failed });
        }
        copies.publish(&mine.tmp(), &mine.folder_path(Folder::Outbox))?;
        copies.sync()?;
        if !failed.is_empty() {
            return Err(Error::Undelivered {
                id,
                delivered: delivered.iter().map(ToString::to_string).collect(),
                failed,
            });
        }
        let envelope = Envelope {
            folder: Folder::Outbox,
            path: mine.folder_path(Folder::Outbox).join(name.as_str()),
            file: name.clone(),
            header: message.header.clone(),
        };
        Ok(SendReceipt {
            written: Some((envelope, message)),
            ..self.receipt(id, name.to_string(), delivered)
        })
    }

    /// Finish what a killed writer began, from `delivered`, one recipient's copy: the same file
    /// for each recipient that holds none in any folder, and my outbox copy.
    fn finish_interrupted(&self, delivered: &Envelope, recipients: &[AgentId]) -> Result<()> {
        let bytes = store::read_regular(&delivered.path)?;
        let name = delivered.file.as_str();
        let mut missing = Vec::new();
        for recipient in recipients {
            let mailbox = self.mailbox(recipient)?;
            let held = Folder::ALL
                .iter()
                .any(|folder| store::modified(&mailbox.folder_path(*folder).join(name)).is_some());
            if !held {
                missing.push((mailbox.tmp(), mailbox.folder_path(Folder::Inbox)));
            }
        }
        let mine = self.my_mailbox()?;
        missing.push((mine.tmp(), mine.folder_path(Folder::Outbox)));
        let mut copies = store::Copies::new(name, &bytes);
        for (tmp, dir) in missing {
            match copies.publish(&tmp, &dir) {
                // Published meanwhile (a recipient's copy moved back in): there already.
                Err(e) if store::already_exists(&e) => {}
                published => drop(published?),
            }
        }
        copies.sync()
    }

    fn send_reply(
        &self,
        request: &SendRequest,
        reference: &MessageRef,
        to: &[AgentId],
        recipients: &[AgentId],
        keyed: Option<&KeyedWrite>,
    ) -> Result<SendReceipt> {
        let stamp = keyed.map(KeyedWrite::stamp);
        let mine = self.my_mailbox()?;
        let found = mine.find_settled(reference, &Folder::ALL)?;
        let mut destinations = Vec::with_capacity(recipients.len() + 1);
        for recipient in recipients {
            let mailbox = self.mailbox(recipient)?;
            destinations.push(Destination {
                tmp: mailbox.tmp(),
                dir: mailbox.folder_path(self.reply_folder(&found.header, recipient)),
                name: found.file.to_string(),
            });
        }
        // The sender keeps a full copy (in its outbox; a question it answered in done/).
        destinations.push(Destination {
            tmp: mine.tmp(),
            dir: mine.folder_path(replier_copy_folder(&found.header, self.me())),
            name: found.file.to_string(),
        });
        refuse_second_answer(&found, self.me(), reference)?;
        self.check_permission_answer(&found, reference)?;
        let body = self.attach(
            found.header.id(),
            &request.body,
            recipients,
            &request.attachments,
        )?;
        let limit = self.config().max_body_bytes();
        let me = self.me().clone();
        let receiver = join(to);
        let copies = destinations.len();
        // The version last rendered is the one every copy holds: my copy of it is the receipt's.
        let written = std::cell::RefCell::new(None);
        let continue_from = |mut message: Message| -> Result<Vec<Vec<u8>>> {
            let grown = message.words_len() + body.len();
            if grown > limit {
                return Err(Error::TooLarge { size: grown, limit });
            }
            message.conversation.push(ConversationEntry {
                timestamp: time::iso(time::now()),
                from: me.to_string(),
                to: receiver.clone(),
                kind: request.kind.to_string(),
                body: body.clone(),
            });
            message.header.set(field::SENDER, me.as_str());
            message.header.set(field::RECEIVER, &receiver);
            message.header.set(field::CURRENT_OWNER, &receiver);
            // The stamp says whose keyed write made this version: an earlier one's goes.
            message.header.remove(field::IDEMPOTENCY_KEY);
            if let Some(stamp) = stamp {
                message.header.set(field::IDEMPOTENCY_KEY, stamp);
            }
            let bytes = render(&message).into_bytes();
            *written.borrow_mut() = Some(message);
            Ok(vec![bytes; copies])
        };

        if let Some(keyed) = keyed {
            keyed.record(&found.file)?;
        }
        // Two replies to one message must not both start from the same version of it.
        let lock = mine
            .state_dir()
            .join("locks")
            .join(format!("{}.lock", found.file));
        store::with_lock(Place::new(mine.root(), &lock), || {
            // Under the found copy's name: an open per folder, not a look at each folder.
            let versions = mine.read_copies_named(found.header.id(), &found.file, &Folder::ALL)?;
            // The reply continues the copy that speaks for the message, so nothing said or done
            // so far is lost from what is sent, nor from my outbox record.
            let fullest =
                copy::speaking(&versions).ok_or_else(|| self.already_handled(reference))?;
            // A copy in inbox/ or hold/ is mine to handle: the reply moves it on. From a record
            // folder (outbox, done, cancel) the record stays and the new state is delivered.
            let active = versions
                .iter()
                .map(|(copy, _)| copy)
                .find(|copy| matches!(copy.folder, Folder::Inbox | Folder::Hold));
            match active {
                Some(active) => {
                    let rewrite = |claimed: &[u8]| {
                        if active.path == fullest.0.path {
                            continue_from(parse_bytes(&active.path, claimed)?)
                        } else {
                            continue_from(fullest.1.clone())
                        }
                    };
                    match store::move_message(&mine.tmp(), &active.path, &destinations, rewrite)? {
                        Moved::Done => Ok(()),
                        Moved::Gone => Err(self.already_handled(reference)),
                    }
                }
                None => {
                    // Another page's answer may have moved the question on since the look.
                    refuse_second_answer(&fullest.0, &me, reference)?;
                    for (dest, version) in
                        destinations.iter().zip(continue_from(fullest.1.clone())?)
                    {
                        store::publish_replace(&dest.tmp, &dest.dir, &dest.name, &version)?;
                    }
                    Ok(())
                }
            }
        })?;
        let folder = replier_copy_folder(&found.header, self.me());
        let written = written.into_inner().map(|message: Message| {
            let envelope = Envelope {
                folder,
                path: mine.folder_path(folder).join(found.file.as_str()),
                file: found.file.clone(),
                header: message.header.clone(),
            };
            (envelope, message)
        });
        Ok(SendReceipt {
            written,
            ..self.receipt(
                found.header.id().to_owned(),
                found.file.to_string(),
                recipients.to_vec(),
            )
        })
    }

    /// The receipt of a send whose copies reached `recipients`: those on another machine are
    /// queued, not delivered (the one rule `status` follows too: [`Mailroom::is_remote`]).
    fn receipt(&self, id: String, file: String, recipients: Vec<AgentId>) -> SendReceipt {
        let (queued_for, delivered_to) = recipients.into_iter().partition(|r| self.is_remote(r));
        SendReceipt {
            id,
            file,
            delivered_to,
            queued_for,
            written: None,
        }
    }

    /// `body` with links to `attachments`, stored first in the mailboxes of `recipients` and
    /// mine (which keeps the outbox copy).
    fn attach(
        &self,
        id: &str,
        body: &str,
        recipients: &[AgentId],
        attachments: &[Attachment],
    ) -> Result<String> {
        if attachments.is_empty() {
            return Ok(body.to_owned());
        }
        let mut mailboxes = vec![self.my_mailbox()?];
        for recipient in recipients.iter().filter(|r| *r != self.me()) {
            mailboxes.push(self.mailbox(recipient)?);
        }
        let limit = self.config().max_body_bytes();
        attachment::attach(&mailboxes, id, body, attachments, limit)
    }

    /// The error for a message another process moved first: says where it went.
    pub(crate) fn already_handled(&self, reference: &MessageRef) -> Error {
        let folder = self
            .my_mailbox()
            .and_then(|m| m.find_settled(reference, &Folder::ALL))
            .map(|found: Envelope| format!("{}/ of {}", found.folder, self.me()))
            .unwrap_or_else(|_| "another mailbox".to_owned());
        Error::AlreadyHandled {
            reference: reference.text().to_owned(),
            folder,
        }
    }
}

/// A question (or work report) is answered once: whoever received it may reply only while it
/// waits in their inbox or hold. Its asker may still follow up from any folder.
fn refuse_second_answer(found: &Envelope, me: &AgentId, reference: &MessageRef) -> Result<()> {
    let asked_by_me = found.header.get(field::ORIGINAL_SENDER) == Some(me.as_str());
    if is_question(&found.header.kind)
        && !asked_by_me
        && !matches!(found.folder, Folder::Inbox | Folder::Hold)
    {
        return Err(Error::AlreadyHandled {
            reference: reference.text().to_owned(),
            folder: format!(
                "{}/ of {me} (a question is answered once; this one was answered or withdrawn)",
                found.folder
            ),
        });
    }
    Ok(())
}

/// `extra` header fields plus the idempotency stamp, when there is one.
fn with_stamp<'a>(extra: &[(&'a str, &'a str)], stamp: Option<&'a str>) -> Vec<(&'a str, &'a str)> {
    let mut fields = extra.to_vec();
    fields.extend(stamp.map(|stamp| (field::IDEMPOTENCY_KEY, stamp)));
    fields
}

/// The body's first non-blank line without leading `#`, shortened.
pub fn derive_title(body: &str) -> String {
    let line = body
        .lines()
        .map(|l| l.trim().trim_start_matches('#').trim())
        .find(|l| !l.is_empty())
        .unwrap_or("(no title)");
    let mut title: String = line.chars().take(DERIVED_TITLE_CHARS).collect();
    if line.chars().count() > DERIVED_TITLE_CHARS {
        title.push('…');
    }
    title
}

fn join(agents: &[AgentId]) -> String {
    agents
        .iter()
        .map(AgentId::as_str)
        .collect::<Vec<_>>()
        .join(", ")
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mailroom::test_mailroom::dev_and_qa_as;
    use std::path::{Path, PathBuf};

    const TAKEN: &str = "aaaaaaaa-0000-4000-8000-000000000000";
    const FRESH: &str = "bbbbbbbb-0000-4000-8000-000000000000";

    /// `dev`'s mailroom, a request to `qa`, and the folder `folder` (under `dir`) holding
    /// another file under the name a send with Message ID [`TAKEN`] takes, this second and
    /// the next.
    fn name_taken_in(dir: &Path, folder: &str) -> (Mailroom, SendRequest, PathBuf) {
        let dev = dev_and_qa_as(dir, "dev");
        let request = SendRequest::new("qa", MessageType::new("ER").unwrap(), "Same subject");
        let inbox = dir.join(folder);
        std::fs::create_dir_all(&inbox).unwrap();
        let now = time::now();
        for second in [now, now + jiff::SignedDuration::from_secs(1)] {
            let name = file_name_for(second, &request.kind, "Same subject", TAKEN);
            std::fs::write(inbox.join(name.as_str()), "not yours").unwrap();
        }
        (dev, request, inbox)
    }

    fn send_to_qa(
        dev: &Mailroom,
        request: &SendRequest,
        new_id: impl FnMut() -> String,
    ) -> Result<SendReceipt> {
        let qa = [AgentId::new("qa").unwrap()];
        dev.send_new_with_ids(request, (&qa, &[], &qa), &[], None, new_id)
    }

    /// A send to `qa` whose first Message ID, [`TAKEN`], names a file already in `folder`,
    /// and whose next is [`FRESH`]: its receipt, and the folder.
    fn sent_with_name_taken_in(dir: &Path, folder: &str) -> (SendReceipt, PathBuf) {
        let (dev, request, taken_in) = name_taken_in(dir, folder);
        let mut ids = [TAKEN, FRESH].into_iter().map(str::to_owned);
        let receipt = send_to_qa(&dev, &request, || ids.next().unwrap()).unwrap();
        assert_eq!(receipt.id, FRESH);
        (receipt, taken_in)
    }

    #[test]
    fn a_taken_file_name_is_retried_under_a_fresh_id() {
        let dir = tempfile::tempdir().unwrap();
        let (receipt, inbox) = sent_with_name_taken_in(dir.path(), "mailboxes/qa/inbox");
        assert!(receipt.file.ends_with("-bbbbbbbb.md"), "{}", receipt.file);
        let held: Vec<String> = std::fs::read_dir(&inbox)
            .unwrap()
            .map(|e| std::fs::read_to_string(e.unwrap().path()).unwrap())
            .collect();
        assert_eq!(
            held.len(),
            3,
            "the planted files stay, the message is added"
        );
        assert_eq!(held.iter().filter(|t| *t == "not yours").count(), 2);
        assert!(held.iter().any(|t| t.contains(FRESH)));
    }

    #[test]
    fn a_name_taken_in_my_outbox_is_retried_before_any_inbox_gets_a_copy() {
        let dir = tempfile::tempdir().unwrap();
        let (receipt, outbox) = sent_with_name_taken_in(dir.path(), "mailboxes/dev/outbox");
        assert_eq!(std::fs::read_dir(&outbox).unwrap().count(), 3);
        let inbox: Vec<_> = std::fs::read_dir(dir.path().join("mailboxes/qa/inbox"))
            .unwrap()
            .map(|e| e.unwrap().file_name().into_string().unwrap())
            .collect();
        assert_eq!(
            inbox,
            [receipt.file],
            "only the fresh id's copy was delivered"
        );
    }

    #[test]
    fn a_name_taken_every_time_fails_without_writing() {
        let dir = tempfile::tempdir().unwrap();
        let (dev, request, inbox) = name_taken_in(dir.path(), "mailboxes/qa/inbox");
        let mut tries = 0;
        let error = send_to_qa(&dev, &request, || {
            tries += 1;
            TAKEN.to_owned()
        })
        .unwrap_err();
        assert!(store::already_exists(&error), "{error}");
        assert_eq!(tries, NAME_TRIES);
        assert_eq!(std::fs::read_dir(&inbox).unwrap().count(), 2);
        let outbox = dir.path().join("mailboxes/dev/outbox");
        assert_eq!(std::fs::read_dir(&outbox).map_or(0, Iterator::count), 0);
    }
}
