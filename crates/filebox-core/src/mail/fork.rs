//! A timeline fork: a new message that starts again from an earlier node of a thread,
//! carrying compressed context and a reason; the nodes after that point on the old branch
//! become obsolete. Nothing is deleted: obsolete messages get a `Status: obsolete` header in
//! every copy within the forker's reach and in the fork's recipients' mailboxes (their copies
//! are what the fork replaces), and the fork lists every node it obsoletes (conversation
//! entries included, which have no header of their own) in its `Obsoletes` header.

use crate::agent::AgentId;
use crate::choice::choice;
use crate::error::{Error, Result};
use crate::index;
use crate::mail::send::SendRequest;
use crate::mail::thread::{ENTRY_SEPARATOR, build};
use crate::mailbox::Status;
use crate::mailbox::parse_bytes;
use crate::mailroom::{Mailroom, Unusable};
use crate::message::{MessageType, comma_list, field, render};
use crate::store::{self, Rewritten};

/// How often marking a copy obsolete is retried when another process moves it meanwhile.
const MARK_ATTEMPTS: usize = 5;

choice! {
    /// Why a thread is forked.
    pub enum ForkReason("fork reason") {
        // The direction was right but the context grew too long: the fork carries the
        // conclusions.
        ContextCompression => "context-compression",
        // The direction was wrong: the fork carries the lessons and a new plan.
        DirectionChange => "direction-change",
    }
}

/// What to fork.
#[derive(Debug, Clone)]
pub struct ForkRequest {
    /// The node to start again from: a message (id, short id, file name) or `message#n`, its
    /// n-th conversation entry.
    pub from: String,
    pub reason: ForkReason,
    /// The compressed context: conclusions, or lessons and the new direction.
    pub context: String,
    /// Recipients; by default whoever received the fork point (or sent it, if that was me).
    pub to: Vec<String>,
    /// When given, the thread `from` must belong to.
    pub thread: Option<String>,
}

/// What a fork did.
#[derive(Debug, Clone)]
pub struct ForkReceipt {
    pub id: String,
    pub file: String,
    pub thread: String,
    /// The fork point's node id.
    pub forked_from: String,
    /// The node ids now obsolete.
    pub obsoleted: Vec<String>,
    pub delivered_to: Vec<AgentId>,
    /// Recipients on another machine: in the outgoing spool (see [`crate::SendReceipt`]).
    pub queued_for: Vec<AgentId>,
    /// Obsoleted messages whose files could not be marked `Status: obsolete`, and why.
    pub unmarked: Vec<String>,
    /// Mailboxes that could not be read: copies there are neither in the tree nor marked.
    pub unusable: Vec<Unusable>,
}

impl Mailroom {
    /// Fork a thread from an earlier node.
    pub fn fork(&self, request: &ForkRequest) -> Result<ForkReceipt> {
        let (envelope, entry) = self.locate(&request.from)?;
        let thread_id = self.thread_id_of(&request.from)?;
        if let Some(wanted) = &request.thread
            && *wanted != thread_id
        {
            return Err(Error::NotInThread {
                reference: request.from.clone(),
                thread: thread_id,
                wanted: wanted.clone(),
            });
        }
        let point_id = match entry {
            Some(n) => format!("{}{ENTRY_SEPARATOR}{n}", envelope.header.id()),
            None => envelope.header.id().to_owned(),
        };
        let (copies, unusable) = self.thread_copies(&thread_id);
        // Only a participant forks: a fork rewrites the thread's later history for everyone in
        // it, which someone who never held a copy has no standing to do.
        if !copies.iter().any(|copy| copy.agent == *self.me()) {
            return Err(Error::NotParticipant {
                agent: self.me().to_string(),
                thread: thread_id,
            });
        }
        let thread = build(&thread_id, &copies);
        let point = thread.node(&point_id).ok_or_else(|| Error::NotFound {
            reference: point_id.clone(),
            searched: format!("thread {thread_id}"),
        })?;
        let obsoleted: Vec<String> = thread
            .descendants(&point_id)
            .into_iter()
            .filter(|n| !n.obsolete)
            .map(|n| n.id.clone())
            .collect();
        let to = if request.to.is_empty() {
            let mut others = comma_list(&point.to);
            others.retain(|a| a != self.me().as_str());
            if others.is_empty() {
                vec![point.from.clone()]
            } else {
                others
            }
        } else {
            request.to.clone()
        };
        let kind = MessageType::new(&point.kind).or_else(|_| MessageType::new("DIS"))?;
        let send = SendRequest {
            title: Some(point.title.clone()),
            to,
            ..SendRequest::new(String::new(), kind, request.context.clone())
        };
        let obsoletes = obsoleted.join(", ");
        let mut extra = vec![
            (field::THREAD_ID, thread_id.as_str()),
            (field::IN_REPLY_TO, envelope.header.id()),
            (field::FORKED_FROM, point_id.as_str()),
            (field::FORK_REASON, request.reason.as_str()),
        ];
        if !obsoletes.is_empty() {
            extra.push((field::OBSOLETES, obsoletes.as_str()));
        }
        let receipt = self.send_new_with(&send, &extra)?;
        // The fork exists and names what it obsoletes (which is what the thread view reads);
        // now mark each obsolete message's files. A failure here must not read as a failed
        // fork, or a retry would fork twice: it is reported in the receipt instead.
        let marked: Vec<&AgentId> = self
            .agents()
            .filter(|agent| self.reaches(agent) || receipt.recipients().any(|r| r == *agent))
            .collect();
        let unmarked = obsoleted
            .iter()
            .filter(|id| !id.contains(ENTRY_SEPARATOR))
            .filter_map(|id| {
                self.mark_obsolete_among(&marked, id)
                    .err()
                    .map(|e| format!("{id} ({e})"))
            })
            .collect();
        Ok(ForkReceipt {
            unmarked,
            unusable,
            id: receipt.id,
            file: receipt.file,
            thread: thread_id,
            forked_from: point_id,
            obsoleted,
            delivered_to: receipt.delivered_to,
            queued_for: receipt.queued_for,
        })
    }

    /// Write `Status: obsolete` into every copy of a message in every mailbox within my reach
    /// (a federated hub does it for a fork made on another machine).
    pub fn mark_obsolete(&self, id: &str) -> Result<()> {
        let reached: Vec<&AgentId> = self.reachable().collect();
        self.mark_obsolete_among(&reached, id)
    }

    /// Mark every copy of a message in these mailboxes; every one is tried, the first failure
    /// is returned at the end.
    fn mark_obsolete_among(&self, agents: &[&AgentId], id: &str) -> Result<()> {
        let mut first_failure = None;
        for agent in agents {
            if let Err(e) = self.mark_obsolete_in(agent, id) {
                first_failure.get_or_insert(e);
            }
        }
        first_failure.map_or(Ok(()), Err)
    }

    /// Mark every copy in one mailbox, again if a copy moved on while it was being marked.
    fn mark_obsolete_in(&self, agent: &AgentId, id: &str) -> Result<()> {
        let mailbox = self.mailbox(agent)?;
        for _ in 0..MARK_ATTEMPTS {
            let rows = index::with_index(&mailbox, |index| index.id_rows(id))?;
            let mut moved_meanwhile = false;
            for row in rows.iter().filter(|r| r.status != Status::Obsolete) {
                let path = mailbox.folder_path(row.folder).join(&row.name);
                let marked = store::rewrite_in_place(&mailbox.tmp(), &path, |bytes| {
                    let mut message = parse_bytes(&path, bytes)?;
                    message.header.set(field::STATUS, Status::Obsolete.as_str());
                    Ok(render(&message).into_bytes())
                })?;
                moved_meanwhile |= matches!(marked, Rewritten::Gone);
            }
            if !moved_meanwhile {
                break;
            }
        }
        Ok(())
    }
}
