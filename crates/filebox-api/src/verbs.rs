//! Each verb once, on a `Mailroom`, for every surface (CLI, MCP, JSON-RPC).

use filebox_core::{
    AgentId, Error, Folder, Mailroom, MessageRef, MessageType, Priority, Result, SendRequest,
    SourceType, Transition,
};

use crate::args::{ListArgs, ReadArgs, SendArgs};
use crate::views::{
    AgentInfo, AgentsResult, FolderCounts, ListResult, MessageDetail, MessageSummary, ReadResult,
    SendResult, SkippedFile, TransitionResult,
};

/// `list`: a folder, oldest first, filtered.
pub fn list(mailroom: &Mailroom, args: &ListArgs) -> Result<ListResult> {
    let folder: Folder = args.folder.map(Into::into).unwrap_or(Folder::Inbox);
    let listing = mailroom.my_mailbox()?.list(folder)?;
    let kind = args.kind.as_deref().map(MessageType::new).transpose()?;
    let messages = listing
        .messages
        .iter()
        .filter(|m| {
            args.from
                .as_deref()
                .is_none_or(|from| m.header.get(filebox_core::message::field::SENDER) == Some(from))
        })
        .filter(|m| kind.as_ref().is_none_or(|k| m.header.kind == k.as_str()))
        .take(args.limit.unwrap_or(usize::MAX))
        .map(MessageSummary::from)
        .collect();
    let skipped = listing
        .problems
        .iter()
        .map(|p| SkippedFile {
            path: p.path.display().to_string(),
            reason: p.reason.clone(),
        })
        .collect();
    Ok(ListResult { messages, skipped })
}

/// `read`: one message, found in the given folder or in all of them.
pub fn read(mailroom: &Mailroom, args: &ReadArgs) -> Result<ReadResult> {
    let reference = MessageRef::parse(&args.id)?;
    let folders: Vec<Folder> = match args.folder {
        Some(folder) => vec![folder.into()],
        None => Folder::ALL.to_vec(),
    };
    let mailbox = mailroom.my_mailbox()?;
    let envelope = mailbox.find(&reference, &folders)?;
    let markdown = mailbox.read_text(&envelope)?;
    let message = filebox_core::message::parse(&markdown).map_err(|reason| Error::Malformed {
        path: envelope.path.clone(),
        reason: reason.into(),
    })?;
    Ok(ReadResult {
        message: MessageDetail::new(&envelope, &message),
        markdown,
    })
}

/// `send`: a new message, or a reply with `reply_to`.
pub fn send(mailroom: &Mailroom, args: &SendArgs) -> Result<SendResult> {
    let request = SendRequest {
        to: args.to.to_vec(),
        cc: args.cc.as_ref().map(|c| c.to_vec()).unwrap_or_default(),
        kind: MessageType::new(&args.kind)?,
        title: args.title.clone().filter(|t| !t.trim().is_empty()),
        body: args.content.clone(),
        reply_to: args
            .reply_to
            .as_deref()
            .map(MessageRef::parse)
            .transpose()?,
        priority: parse_choice(
            args.priority.as_deref(),
            "priority",
            Priority::parse,
            "expected normal or urgent",
        )?,
        source_type: parse_choice(
            args.source_type.as_deref(),
            "source type",
            SourceType::parse,
            "expected agent, human, system or external",
        )?,
        reply_to_agent: args
            .reply_to_agent
            .as_deref()
            .map(AgentId::new)
            .transpose()?,
    };
    let receipt = mailroom.send(&request)?;
    Ok(SendResult {
        id: receipt.id,
        file: receipt.file,
        delivered_to: receipt
            .delivered_to
            .iter()
            .map(ToString::to_string)
            .collect(),
    })
}

/// `resolved`, `reject`, `onhold`.
pub fn transition(
    mailroom: &Mailroom,
    transition: Transition,
    id: &str,
    details: &str,
) -> Result<TransitionResult> {
    let receipt = mailroom.transition(transition, &MessageRef::parse(id)?, details)?;
    Ok(TransitionResult {
        id: receipt.id,
        file: receipt.file,
        folder: receipt.folder.to_string(),
    })
}

/// `agents`: every agent, its mailbox and counts.
pub fn agents(mailroom: &Mailroom) -> Result<AgentsResult> {
    let mut agents = Vec::new();
    for id in mailroom.agents() {
        let root = mailroom.mailbox_root(id)?;
        let mut counts = FolderCounts::default();
        if let Ok(mailbox) = mailroom.mailbox(id) {
            for (folder, n) in mailbox.counts()? {
                *match folder {
                    Folder::Inbox => &mut counts.inbox,
                    Folder::Outbox => &mut counts.outbox,
                    Folder::Done => &mut counts.done,
                    Folder::Cancel => &mut counts.cancel,
                    Folder::Hold => &mut counts.hold,
                } = n;
            }
        }
        agents.push(AgentInfo {
            id: id.to_string(),
            mailbox_path: root.display().to_string(),
            current: id == mailroom.me(),
            counts,
        });
    }
    Ok(AgentsResult {
        me: mailroom.me().to_string(),
        agents,
    })
}

fn parse_choice<T>(
    value: Option<&str>,
    what: &'static str,
    parse: fn(&str) -> Option<T>,
    reason: &'static str,
) -> Result<Option<T>> {
    value
        .map(|v| {
            parse(v).ok_or_else(|| Error::Invalid {
                what,
                value: v.to_owned(),
                reason,
            })
        })
        .transpose()
}
