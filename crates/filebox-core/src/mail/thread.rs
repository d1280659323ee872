//! A thread as one tree, gathered from every mailbox of the config: each message once (copies
//! deduplicated by Message ID, the most complete kept), its conversation entries as a chain
//! below it, separate-file replies and forks below the message they answer or fork from.
//! Missing parents make roots; cycles in bad input are cut.

use std::collections::{BTreeMap, HashMap, HashSet};

use crate::agent::AgentId;
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::index::{self, Row, ThreadActivity};
use crate::mailbox::Status;
use crate::mailbox::copy;
use crate::mailbox::{Envelope, MessageRef, read_message};
use crate::mailroom::{Mailroom, Unusable};
use crate::message::{Message, field};

/// Separates a message id from a conversation entry's number in a node id: `id#2` is the
/// second reply in that message's file.
pub const ENTRY_SEPARATOR: char = '#';

/// One message or conversation entry of a thread.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ThreadNode {
    /// A Message ID, or `id#n` for the n-th conversation entry of that message's file.
    pub id: String,
    /// The node this answers or forks from; `None` for a root (or where bad input made a cycle).
    pub parent: Option<String>,
    /// Whether `parent` names a node that no reachable mailbox holds.
    pub parent_missing: bool,
    pub from: String,
    pub to: String,
    pub kind: String,
    pub title: String,
    pub timestamp: String,
    pub status: Status,
    pub obsolete: bool,
    /// For the first message of a fork: context-compression or direction-change.
    pub fork_reason: Option<String>,
    /// Whose mailbox holds the copy shown, and its file.
    pub mailbox: AgentId,
    pub folder: Folder,
    pub file: String,
    /// Depth in the tree (roots are 0); nodes come in tree order.
    pub depth: usize,
}

/// A whole thread, in tree order.
#[derive(Debug, Clone)]
pub struct Thread {
    pub id: String,
    pub nodes: Vec<ThreadNode>,
    /// Mailboxes that could not be read: their copies are missing from the tree.
    pub unusable: Vec<Unusable>,
}

impl Thread {
    pub fn node(&self, id: &str) -> Option<&ThreadNode> {
        self.nodes.iter().find(|n| n.id == id)
    }

    /// The nodes below `id` (not itself), in tree order.
    pub fn descendants(&self, id: &str) -> Vec<&ThreadNode> {
        let Some(start) = self.nodes.iter().position(|n| n.id == id) else {
            return Vec::new();
        };
        let depth = self.nodes[start].depth;
        self.nodes[start + 1..]
            .iter()
            .take_while(|n| n.depth > depth)
            .collect()
    }
}

/// One copy of a message, read.
pub(crate) struct ThreadCopy {
    pub(crate) agent: AgentId,
    pub(crate) row: Row,
    pub(crate) message: Message,
}

impl Mailroom {
    /// The thread a message belongs to. The reference may name a conversation entry (`id#n`).
    pub fn thread(&self, reference: &str) -> Result<Thread> {
        let thread_id = self.thread_id_of(reference)?;
        let (copies, unusable) = self.thread_copies(&thread_id);
        Ok(Thread {
            unusable,
            ..build(&thread_id, &copies)
        })
    }

    /// My threads, most recently active first.
    pub fn threads(&self, limit: usize) -> Result<Vec<ThreadActivity>> {
        index::with_index(&self.my_mailbox()?, |index| index.threads(limit))
    }

    /// The thread id of a message (or conversation entry) of my mailbox, else of any mailbox
    /// within my reach.
    pub(crate) fn thread_id_of(&self, reference: &str) -> Result<String> {
        let (found, _) = self.locate(reference)?;
        Ok(found.header.thread_id())
    }

    /// Find a node reference (`message` or `message#n`) in my mailbox, else in any mailbox
    /// within my reach; returns the message's copy and the entry number, if any.
    pub(crate) fn locate(&self, reference: &str) -> Result<(Envelope, Option<usize>)> {
        let (message, entry) = match reference.rsplit_once(ENTRY_SEPARATOR) {
            Some((message, n)) => {
                let n = n.parse::<usize>().ok().filter(|n| *n > 0).ok_or_else(|| {
                    Error::invalid(
                        "conversation entry",
                        reference,
                        "expected MESSAGE#N with N the entry's number, from 1",
                    )
                })?;
                (message, Some(n))
            }
            None => (reference, None),
        };
        let reference = MessageRef::parse(message)?;
        let found = match self.my_mailbox()?.find(&reference, &Folder::ALL) {
            Err(Error::NotFound { .. }) => self
                .reachable()
                .filter(|a| *a != self.me())
                .find_map(|a| {
                    self.mailbox_to_read(a)
                        .ok()?
                        .find(&reference, &Folder::ALL)
                        .ok()
                })
                .ok_or_else(|| Error::NotFound {
                    reference: reference.text().to_owned(),
                    searched: "every mailbox within reach".into(),
                })?,
            other => other?,
        };
        Ok((found, entry))
    }

    /// Every copy of every message of a thread, in every mailbox within my reach that can be
    /// read, and the mailboxes that cannot: one broken mailbox path must not hide the thread
    /// from everyone else.
    pub(crate) fn thread_copies(&self, thread_id: &str) -> (Vec<ThreadCopy>, Vec<Unusable>) {
        let mut copies = Vec::new();
        let mut unusable = Vec::new();
        for agent in self.reachable() {
            let rows = self.mailbox_to_read(agent).and_then(|mailbox| {
                let rows = index::with_index(&mailbox, |index| index.thread_rows(thread_id))?;
                Ok((rows, mailbox))
            });
            let (rows, mailbox) = match rows {
                Ok(found) => found,
                Err(e) => {
                    unusable.push(Unusable::new(agent, &e));
                    continue;
                }
            };
            for row in rows {
                let path = mailbox.folder_path(row.folder).join(&row.name);
                // A copy that moved since the index looked is read where it is now, by the
                // next call; this one goes on without it.
                if let Ok(message) = read_message(&path) {
                    copies.push(ThreadCopy {
                        agent: agent.clone(),
                        row,
                        message,
                    });
                }
            }
        }
        (copies, unusable)
    }
}

/// The copy that shows a message: the one that speaks for it (`crate::mailbox::copy`), across mailboxes.
fn best<'a>(copies: impl Iterator<Item = &'a ThreadCopy>) -> Option<&'a ThreadCopy> {
    copy::speaking_across(copies, |c| (c.row.folder, &c.message, c.agent.as_str()))
}

/// Whom a message was first sent to, from all its copies, each read by
/// [`copy::original_recipients`]: so a message to dev and ops shows `dev, ops` whether one,
/// both or neither answered.
fn original_recipients(copies: &[&ThreadCopy]) -> String {
    let mut names: Vec<String> = Vec::new();
    for copy in copies {
        for name in copy::original_recipients(&copy.message) {
            if !names.contains(&name) {
                names.push(name);
            }
        }
    }
    names.join(", ")
}

/// Build the tree from the copies found.
pub(crate) fn build(thread_id: &str, copies: &[ThreadCopy]) -> Thread {
    let mut by_id: BTreeMap<&str, Vec<&ThreadCopy>> = BTreeMap::new();
    for copy in copies {
        by_id.entry(copy.row.id.as_str()).or_default().push(copy);
    }
    let mut obsolete: HashSet<String> = HashSet::new();
    for copy in copies {
        if copy.row.status == Status::Obsolete {
            obsolete.insert(copy.row.id.clone());
        }
        obsolete.extend(copy.message.header.list(field::OBSOLETES));
    }
    let mut nodes: Vec<ThreadNode> = Vec::new();
    for group in by_id.values() {
        let Some(copy) = best(group.iter().copied()) else {
            continue;
        };
        let h = &copy.message.header;
        let id = copy.row.id.clone();
        let entries = &copy.message.conversation;
        let parent = h
            .get(field::FORKED_FROM)
            .or_else(|| h.get(field::IN_REPLY_TO))
            .map(str::to_owned)
            .filter(|p| *p != id);
        let to = original_recipients(group);
        let base = |id: String, parent: Option<String>, status: Status| ThreadNode {
            obsolete: obsolete.contains(&id),
            id,
            parent,
            parent_missing: false,
            from: String::new(),
            to: String::new(),
            kind: copy.row.kind.clone(),
            title: copy.row.title.clone(),
            timestamp: copy.row.timestamp.clone(),
            status,
            fork_reason: None,
            mailbox: copy.agent.clone(),
            folder: copy.row.folder,
            file: copy.row.name.clone(),
            depth: 0,
        };
        let status_after = |answered: bool| {
            if answered && copy.row.status != Status::Obsolete {
                Status::Replied
            } else {
                copy.row.status
            }
        };
        nodes.push(ThreadNode {
            from: copy::sender(&copy.message).to_owned(),
            to,
            fork_reason: h.get(field::FORK_REASON).map(str::to_owned),
            ..base(id.clone(), parent, status_after(!entries.is_empty()))
        });
        let mut previous = id.clone();
        for (n, entry) in entries.iter().enumerate() {
            let entry_id = format!("{id}{ENTRY_SEPARATOR}{}", n + 1);
            nodes.push(ThreadNode {
                from: entry.from.clone(),
                to: entry.to.clone(),
                kind: entry.kind.clone(),
                timestamp: entry.timestamp.clone(),
                ..base(
                    entry_id.clone(),
                    Some(previous),
                    status_after(n + 1 < entries.len()),
                )
            });
            previous = entry_id;
        }
    }
    Thread {
        id: thread_id.to_owned(),
        nodes: in_tree_order(nodes),
        unusable: Vec::new(),
    }
}

/// Order nodes depth-first (children by time), setting depths; a missing parent makes a root,
/// and a cycle is cut at its earliest node.
fn in_tree_order(mut nodes: Vec<ThreadNode>) -> Vec<ThreadNode> {
    let known: HashSet<String> = nodes.iter().map(|n| n.id.clone()).collect();
    for node in &mut nodes {
        node.parent_missing = node.parent.as_ref().is_some_and(|p| !known.contains(p));
    }
    nodes.sort_by(|a, b| (&a.timestamp, &a.id).cmp(&(&b.timestamp, &b.id)));
    let mut children: HashMap<Option<String>, Vec<usize>> = HashMap::new();
    for (i, node) in nodes.iter().enumerate() {
        let key = node.parent.clone().filter(|_| !node.parent_missing);
        children.entry(key).or_default().push(i);
    }
    let mut order = Vec::with_capacity(nodes.len());
    let mut placed = vec![false; nodes.len()];
    let mut roots: Vec<usize> = children.get(&None).cloned().unwrap_or_default();
    loop {
        for root in roots {
            let mut stack = vec![(root, 0)];
            while let Some((i, depth)) = stack.pop() {
                if std::mem::replace(&mut placed[i], true) {
                    continue;
                }
                order.push((i, depth));
                if let Some(kids) = children.get(&Some(nodes[i].id.clone())) {
                    stack.extend(kids.iter().rev().map(|&k| (k, depth + 1)));
                }
            }
        }
        // Whatever is left hangs off a cycle: cut it at its earliest node.
        match placed.iter().position(|p| !p) {
            Some(i) => {
                nodes[i].parent = None;
                roots = vec![i];
            }
            None => break,
        }
    }
    let mut slots: Vec<Option<ThreadNode>> = nodes.into_iter().map(Some).collect();
    order
        .into_iter()
        .filter_map(|(i, depth)| {
            let mut node = slots[i].take()?;
            node.depth = depth;
            Some(node)
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn node(id: &str, parent: Option<&str>, ts: &str) -> ThreadNode {
        ThreadNode {
            id: id.into(),
            parent: parent.map(Into::into),
            parent_missing: false,
            from: "a".into(),
            to: "b".into(),
            kind: "DIS".into(),
            title: "t".into(),
            timestamp: ts.into(),
            status: Status::Delivered,
            obsolete: false,
            fork_reason: None,
            mailbox: AgentId::new("a").unwrap(),
            folder: Folder::Inbox,
            file: "f.md".into(),
            depth: 0,
        }
    }

    fn shape(nodes: &[ThreadNode]) -> Vec<String> {
        nodes
            .iter()
            .map(|n| format!("{}{}", " ".repeat(n.depth), n.id))
            .collect()
    }

    #[test]
    fn children_in_time_order_and_missing_parents_as_roots() {
        let nodes = vec![
            node("c", Some("a"), "3"),
            node("a", None, "1"),
            node("b", Some("a"), "2"),
            node("d", Some("b"), "4"),
            node("x", Some("gone"), "0"),
        ];
        let ordered = in_tree_order(nodes);
        assert_eq!(shape(&ordered), ["x", "a", " b", "  d", " c"]);
        assert!(ordered[0].parent_missing);
    }

    #[test]
    fn cycles_are_cut() {
        let nodes = vec![
            node("a", Some("b"), "1"),
            node("b", Some("a"), "2"),
            node("c", Some("c2"), "3"),
            node("c2", Some("c"), "4"),
        ];
        let ordered = in_tree_order(nodes);
        assert_eq!(shape(&ordered), ["a", " b", "c", " c2"]);
        assert_eq!(ordered[0].parent, None);
    }
}
