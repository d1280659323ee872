//! Each verb once, on a `Mailroom`, for every surface (CLI, MCP, JSON-RPC).

use filebox_core::{
    AgentId, Error, Folder, Mailroom, MessageRef, MessageType, Priority, Result, SendRequest,
    SourceType, Status, Transition,
};

use crate::args::Recipients;
use crate::args::{
    ForkArgs, ListArgs, ReadArgs, ReindexArgs, ReplyArgs, SearchArgs, SendArgs, StatusArgs,
    ThreadArgs, ThreadsArgs, WaitArgs,
};
use crate::views::{
    AgentInfo, AgentsResult, FolderCounts, ForkResult, ListResult, MessageDetail, MessageSummary,
    ReadResult, ReindexResult, ReindexedMailbox, SearchResult, SendResult, SkippedFile,
    StatusResult, ThreadResult, ThreadSummary, ThreadsResult, TransitionResult, WaitResult,
};

/// How many hits a search returns when the caller does not say.
const DEFAULT_SEARCH_LIMIT: usize = 20;
/// How many threads `threads` shows when no limit is given.
const DEFAULT_THREADS_LIMIT: usize = 20;

/// `list`: a folder, oldest first, filtered.
pub fn list(mailroom: &Mailroom, args: &ListArgs) -> Result<ListResult> {
    let folder: Folder = args.folder.map(Into::into).unwrap_or(Folder::Inbox);
    let mailbox = mailroom.my_mailbox()?;
    let listing = mailbox.list(folder)?;
    let kind = args.kind.as_deref().map(MessageType::new).transpose()?;
    let thread = args
        .thread
        .as_deref()
        .map(str::trim)
        .filter(|t| !t.is_empty());
    let listed = if args.unread.unwrap_or(false) {
        mailbox.unread(folder, listing.messages)?
    } else {
        listing.messages
    };
    let messages = listed
        .iter()
        .filter(|m| {
            args.from
                .as_deref()
                .is_none_or(|from| m.header.get(filebox_core::message::field::SENDER) == Some(from))
        })
        .filter(|m| kind.as_ref().is_none_or(|k| m.header.kind == k.as_str()))
        .filter(|m| thread.is_none_or(|t| m.header.thread_id() == t))
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

/// `read`: one message, found in the given folder or in all of them; marked read (for
/// `list --unread`).
pub fn read(mailroom: &Mailroom, args: &ReadArgs) -> Result<ReadResult> {
    let reference = MessageRef::parse(&args.id)?;
    let folders: Vec<Folder> = match args.folder {
        Some(folder) => vec![folder.into()],
        None => Folder::ALL.to_vec(),
    };
    let mailbox = mailroom.my_mailbox()?;
    let envelope = mailbox.find(&reference, &folders)?;
    // Before reading: a copy replaced in between stays unread (see `Mailbox::mark_read`).
    mailbox.mark_read(&envelope)?;
    let (message, markdown) = mailbox.read_with_markdown(&envelope)?;
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
        // One unusable mailbox is reported on its own line; the others are still counted.
        let (counts, problem) = match mailroom.mailbox(id).and_then(|m| m.counts()) {
            Ok(per_folder) => (FolderCounts::new(&per_folder), None),
            Err(e) => (FolderCounts::default(), Some(e.to_string())),
        };
        agents.push(AgentInfo {
            id: id.to_string(),
            mailbox_path: root.display().to_string(),
            current: id == mailroom.me(),
            counts,
            problem,
        });
    }
    Ok(AgentsResult {
        me: mailroom.me().to_string(),
        agents,
    })
}

/// `search`: full text and filters over my mailbox (or every mailbox), newest first.
pub fn search(mailroom: &Mailroom, args: &SearchArgs) -> Result<SearchResult> {
    let query = filebox_core::index::SearchQuery {
        text: args.query.clone(),
        from: args.from.clone().filter(|f| !f.is_empty()),
        kind: args
            .kind
            .as_deref()
            .map(|k| MessageType::new(k).map(|k| k.to_string()))
            .transpose()?,
        folder: args.folder.map(Into::into),
        thread: args.thread.clone().filter(|t| !t.is_empty()),
        status: parse_choice(
            args.status.as_deref(),
            "status",
            Status::parse,
            "expected pending, delivered, processing, replied, failed or obsolete",
        )?,
        since: parse_choice(
            args.since.as_deref(),
            "date",
            filebox_core::time::parse_since,
            "expected a date (2025-06-27) or a time (2025-06-27T15:30:00Z)",
        )?,
        limit: args.limit.unwrap_or(DEFAULT_SEARCH_LIMIT),
    };
    let hits = mailroom.search(&query, args.all.unwrap_or(false))?;
    Ok(SearchResult {
        hits: hits.into_iter().map(Into::into).collect(),
    })
}

/// `reindex`: delete and rebuild the derived index.
pub fn reindex(mailroom: &Mailroom, args: &ReindexArgs) -> Result<ReindexResult> {
    let rebuilt = mailroom.reindex(args.all.unwrap_or(false))?;
    Ok(ReindexResult {
        mailboxes: rebuilt
            .into_iter()
            .map(|(agent, indexed)| ReindexedMailbox {
                agent: agent.to_string(),
                indexed,
            })
            .collect(),
    })
}

/// `status`: where a message stands.
pub fn status(mailroom: &Mailroom, args: &StatusArgs) -> Result<StatusResult> {
    let report = mailroom.status(&MessageRef::parse(&args.id)?)?;
    Ok(StatusResult::from(&report))
}

/// `reply`: answer a message, to its Reply To or its sender.
pub fn reply(mailroom: &Mailroom, args: &ReplyArgs) -> Result<SendResult> {
    let target = mailroom.reply_target(&MessageRef::parse(&args.id)?)?;
    send(
        mailroom,
        &SendArgs {
            to: Recipients::One(target.to_string()),
            cc: None,
            kind: args.kind.clone().unwrap_or_else(|| "DIS".into()),
            title: None,
            content: args.content.clone(),
            reply_to: Some(args.id.clone()),
            priority: None,
            source_type: None,
            reply_to_agent: None,
        },
    )
}

/// `thread`: the whole thread of a message, across every mailbox.
pub fn thread(mailroom: &Mailroom, args: &ThreadArgs) -> Result<ThreadResult> {
    Ok(mailroom.thread(args.id.trim())?.into())
}

/// `threads`: my threads, most recently active first.
pub fn threads(mailroom: &Mailroom, args: &ThreadsArgs) -> Result<ThreadsResult> {
    let threads = mailroom.threads(args.limit.unwrap_or(DEFAULT_THREADS_LIMIT))?;
    Ok(ThreadsResult {
        threads: threads
            .into_iter()
            .map(|t| ThreadSummary {
                thread: t.thread,
                title: t.title,
                messages: t.messages,
                last_activity: t.last_activity,
            })
            .collect(),
    })
}

/// `fork`: start a thread again from an earlier node with compressed context.
pub fn fork(mailroom: &Mailroom, args: &ForkArgs) -> Result<ForkResult> {
    let request = filebox_core::ForkRequest {
        from: args.from.trim().to_owned(),
        reason: filebox_core::ForkReason::parse(&args.reason)?,
        context: args.context.clone(),
        to: args.to.as_ref().map(Recipients::to_vec).unwrap_or_default(),
        thread: args.thread.clone().filter(|t| !t.is_empty()),
    };
    let receipt = mailroom.fork(&request)?;
    Ok(ForkResult {
        id: receipt.id,
        file: receipt.file,
        thread: receipt.thread,
        forked_from: receipt.forked_from,
        reason: request.reason.to_string(),
        obsoleted: receipt.obsoleted,
        delivered_to: receipt
            .delivered_to
            .iter()
            .map(ToString::to_string)
            .collect(),
        unmarked: receipt.unmarked,
    })
}

/// `wait`: block until mail reaches my inbox (returning what arrived since the last wait), the
/// timeout passes, or `cancelled()` turns true. Blocking: call it from a thread that may block.
pub fn wait(
    mailroom: &Mailroom,
    args: &WaitArgs,
    cancelled: &dyn Fn() -> bool,
) -> Result<WaitResult> {
    let timeout = args.timeout.map(std::time::Duration::from_secs);
    let arrived = mailroom.my_mailbox()?.wait_for_mail(timeout, cancelled)?;
    Ok(WaitResult {
        messages: arrived.iter().map(MessageSummary::from).collect(),
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
