//! `list_messages`, `read_message` and `wait_for_messages`: looking at my mailbox.

use filebox_core::index::Page;
use filebox_core::message::MessageIdShort;
use filebox_core::{
    Claim, Envelope, Error, Folder, Listing, Mailbox, MessageRef, Problem, Receipt, Result,
};

use crate::args::{ListArgs, MessageFormat, ReadArgs, WaitArgs};
use crate::outcome::Outcome;
use crate::render;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::{ListResult, MessageDetail, MessageSummary, ReadResult, WaitResult};

impl ListArgs {
    /// Every message of `folder` (`None`: the inbox), oldest first as the folder sorts: the
    /// listing a surface shows whole (`filebox://inbox`; `email.inbox` unless its params page
    /// it or turn it).
    pub fn whole_folder(folder: Option<Folder>) -> ListArgs {
        ListArgs {
            folder,
            limit: Some(0),
            newest_first: Some(false),
            ..ListArgs::default()
        }
    }
}

/// A folder, oldest first, filtered.
#[derive(Debug)]
pub struct ListMessages;

impl Verb for ListMessages {
    const NAME: &'static str = "list_messages";
    const CLI: &'static str = "list";
    const TITLE: &'static str = "List messages";
    const DESCRIPTION: &'static str =
        "A folder's messages, 50 a page, a line each; any tool takes the short id.";
    const EFFECT: Effect = Effect::ReadOnly;
    const ANSWER_IS_TEXT: bool = true;
    type Args = ListArgs;
    type Output = ListResult;

    fn run(cx: &VerbContext<'_>, args: ListArgs) -> Result<Outcome<ListResult>> {
        let folder = args.folder.unwrap_or(Folder::Inbox);
        let mailbox = cx.mailroom.my_mailbox()?;
        let newest_first = args.newest_first.unwrap_or(true);
        let limit = match (args.all, args.limit.unwrap_or(ListArgs::DEFAULT_LIMIT)) {
            (true, _) | (_, 0) => usize::MAX,
            (false, limit) => limit,
        };
        let pages_before = args.page.map_or(0, |page| page.saturating_sub(1)) as usize;
        let offset = args
            .offset
            .unwrap_or(0)
            .saturating_add(pages_before.saturating_mul(limit));
        let thread = args
            .thread
            .as_deref()
            .map(str::trim)
            .filter(|t| !t.is_empty());
        let before = args.before.as_deref().filter(|b| !b.is_empty());
        let unfiltered = !args.unread.unwrap_or(false)
            && args.from.is_none()
            && args.kind.is_none()
            && thread.is_none()
            && before.is_none();
        // A page without filters is read from the index when it is current: only the page's
        // files, however large the folder (the same entries as the whole listing's page).
        let page = Page {
            offset,
            limit,
            newest_first,
        };
        if unfiltered
            && limit != usize::MAX
            && let Ok(Some(page)) = filebox_core::index::page(&mailbox, folder, &page)
        {
            let listing = ListResult {
                folder,
                messages: summaries(&mailbox, folder, &page.messages)?,
                total: page.total,
                offset: offset.min(page.total),
                newest_first,
            };
            return Ok(listed(listing, &page.problems));
        }
        // From the index when it is current (the same listing, without opening every file).
        let Listing { messages, problems } = filebox_core::index::list(&mailbox, folder)?;
        let mut listed_messages = if args.unread.unwrap_or(false) {
            mailbox.unread(folder, messages)?
        } else {
            messages
        };
        // File names sort by time: "older than the file shown last" is "sorts before it".
        let newest_first = newest_first || before.is_some();
        if newest_first {
            listed_messages.reverse();
        }
        let matching: Vec<_> = listed_messages
            .into_iter()
            .filter(|m| before.is_none_or(|before| m.file.as_str() < before))
            .filter(|m| {
                args.from.as_deref().is_none_or(|from| {
                    m.header.get(filebox_core::message::field::SENDER) == Some(from)
                })
            })
            .filter(|m| {
                args.kind
                    .as_ref()
                    .is_none_or(|k| m.header.kind == k.as_str())
            })
            .filter(|m| thread.is_none_or(|t| in_thread(m, t)))
            .collect();
        if let Some(thread) = thread
            && matching.is_empty()
        {
            refuse_unknown_thread(&mailbox, thread)?;
        }
        let offset = offset.min(matching.len());
        let total = matching.len();
        let page: Vec<_> = matching.into_iter().skip(offset).take(limit).collect();
        let listing = ListResult {
            folder,
            messages: summaries(&mailbox, folder, &page)?,
            total,
            offset,
            newest_first,
        };
        Ok(listed(listing, &problems))
    }

    fn render(listing: &ListResult) -> String {
        render::listing_text(listing)
    }

    fn brief(listing: &ListResult) -> String {
        render::listing_brief(listing)
    }
}

/// A listing's outcome: the files it skipped as warnings.
fn listed(listing: ListResult, problems: &[Problem]) -> Outcome<ListResult> {
    Outcome::with_warnings(listing, unreadable_warnings(problems))
}

/// The listed messages with their unread marks.
fn summaries(
    mailbox: &filebox_core::Mailbox,
    folder: Folder,
    messages: &[filebox_core::Envelope],
) -> Result<Vec<MessageSummary>> {
    let unread = mailbox.unread_flags(folder, messages)?;
    Ok(messages
        .iter()
        .zip(unread)
        .map(|(m, unread)| MessageSummary::new(m, unread))
        .collect())
}

/// Whether a message belongs to the thread a caller named by its id or its first 8 characters.
fn in_thread(message: &Envelope, thread: &str) -> bool {
    let id = message.header.thread_id();
    id == thread
        || (MessageIdShort::is_short(thread)
            && MessageIdShort::of(&id) == thread.to_ascii_lowercase())
}

/// An error unless some folder of the mailbox holds a message of the thread (a listing that
/// is empty because the thread does not exist says so, instead of printing nothing).
fn refuse_unknown_thread(mailbox: &Mailbox, thread: &str) -> Result<()> {
    for folder in Folder::ALL {
        if mailbox
            .list(folder)?
            .messages
            .iter()
            .any(|m| in_thread(m, thread))
        {
            return Ok(());
        }
    }
    Err(Error::invalid(
        "thread",
        thread,
        "no message of your mailbox belongs to it (`threads` lists yours)",
    ))
}

/// One warning per file that could not be read.
fn unreadable_warnings(problems: &[Problem]) -> Vec<String> {
    problems
        .iter()
        .map(|p| format!("skipped {}: {}", p.path.display(), p.reason))
        .collect()
}

/// One message, whole; marked read (for `list --unread`), and a read receipt written into my
/// inbox copy (the sender's `status` says `read`).
#[derive(Debug)]
pub struct ReadMessage;

impl Verb for ReadMessage {
    const NAME: &'static str = "read_message";
    const CLI: &'static str = "read";
    const TITLE: &'static str = "Read a message";
    const DESCRIPTION: &'static str = "A whole message: header, content, conversation, history.";
    const EFFECT: Effect = Effect::ReadOnly;
    const ANSWER_IS_TEXT: bool = true;
    type Args = ReadArgs;
    type Output = ReadResult;

    fn run(cx: &VerbContext<'_>, args: ReadArgs) -> Result<Outcome<ReadResult>> {
        let reference = MessageRef::parse(&args.id)?;
        let folders: Vec<Folder> = match args.folder {
            Some(folder) => vec![folder],
            None => Folder::ALL.to_vec(),
        };
        let mailbox = cx.mailroom.my_mailbox()?;
        // The copy that speaks for the message (the whole conversation, wherever it is); one
        // another process is moving right now is waited for, not missed.
        let (envelope, (unmarked, (message, markdown))) =
            mailbox.with_speaking_copy(&reference, &folders, |envelope| {
                // Before reading: a copy replaced in between stays unread (see `mark_read`). A
                // mailbox that cannot be written (read-only, full) is read all the same.
                let unmarked = mailbox.mark_read(envelope).err();
                Ok((unmarked, mailbox.read_with_markdown(envelope)?))
            })?;
        let me = cx.mailroom.me();
        let receipts = match envelope.folder {
            Folder::Inbox if cx.receipts => {
                let id = MessageRef::Id(envelope.header.id().to_owned());
                cx.mailroom.mark_read(me, &[id], me.as_str(), "read")?
            }
            _ => Vec::new(),
        };
        // The file as it is on disk now, its receipt included (or, moved on meanwhile, what
        // was read).
        let (message, markdown) = match receipts.first() {
            Some(Receipt::Recorded) => mailbox
                .read_with_markdown(&envelope)
                .unwrap_or((message, markdown)),
            _ => (message, markdown),
        };
        Ok(Outcome::clean(ReadResult {
            message: MessageDetail::new(me, &envelope, &message),
            markdown,
        })
        .noting(
            unmarked
                .map(|e| format!("not marked read (list --unread still shows it): {e}"))
                .into_iter()
                .chain(receipt_notes(&receipts))
                .collect(),
        ))
    }

    fn render(read: &ReadResult) -> String {
        read.markdown.clone()
    }

    /// The file as a model may read it (`model_text::whole`): the structured content keeps
    /// it byte for byte.
    fn brief(read: &ReadResult) -> String {
        crate::model_text::whole(&read.markdown)
    }
}

/// Block until mail reaches my inbox, the timeout passes or the call is cancelled.
#[derive(Debug)]
pub struct WaitForMessages;

impl Verb for WaitForMessages {
    const NAME: &'static str = "wait_for_messages";
    const CLI: &'static str = "wait";
    const TITLE: &'static str = "Wait for messages";
    const DESCRIPTION: &'static str = "New inbox mail no earlier wait returned, now or on arrival; empty on timeout. A first wait skips what is there.";
    const EFFECT: Effect = Effect::Updating;
    const WAITS: bool = true;
    type Args = WaitArgs;
    type Output = WaitResult;

    fn run(cx: &VerbContext<'_>, args: WaitArgs) -> Result<Outcome<WaitResult>> {
        let (outcome, claim) = Self::claim(cx, args)?;
        claim.commit()?;
        Ok(outcome)
    }

    fn render(waited: &WaitResult) -> String {
        with_xml(render::message_lines(&waited.messages, NO_NEW_MAIL), waited)
    }

    fn brief(waited: &WaitResult) -> String {
        with_xml(render::brief_lines(&waited.messages, NO_NEW_MAIL), waited)
    }
}

impl WaitForMessages {
    /// The wait, with the cursor not moved yet: commit the [`Claim`] once the result is
    /// reported (written and flushed), so a caller killed before that skips nothing (see
    /// `Mailbox::claim_mail`). `run` commits at once.
    pub fn claim(cx: &VerbContext<'_>, args: WaitArgs) -> Result<(Outcome<WaitResult>, Claim)> {
        let timeout = args.timeout.map(std::time::Duration::from_secs);
        let mailbox = cx.mailroom.my_mailbox()?;
        let (arrived, mut claim) = mailbox.claim_mail(timeout, cx.cancelled)?;
        let me = cx.mailroom.me().as_str();
        let receipts = match cx.receipts {
            true => claim.mark_read(&arrived.messages, me, "wait")?,
            false => Vec::new(),
        };
        let mut warnings = unreadable_warnings(&arrived.unreadable);
        let xml = match args.format.unwrap_or_default() {
            MessageFormat::Lines => None,
            MessageFormat::Xml => Some(whole_as_xml(&mailbox, &arrived.messages, &mut warnings)),
        };
        let outcome = Outcome::with_warnings(
            WaitResult {
                messages: summaries(&mailbox, Folder::Inbox, &arrived.messages)?,
                xml,
            },
            warnings,
        )
        .noting(receipt_notes(&receipts));
        Ok((outcome, claim))
    }
}

/// A note on receipts that could not be written (the reader may not write the mailbox, the
/// disk is full): the read itself succeeded, but the sender's `status` will not say `read`.
fn receipt_notes(receipts: &[Receipt]) -> Vec<String> {
    let refused = receipts.iter().find_map(|receipt| match receipt {
        Receipt::NotRecorded(why) => Some(why),
        _ => None,
    });
    refused
        .map(|why| format!("read without a receipt (the sender's status will not say read): {why}"))
        .into_iter()
        .collect()
}

const NO_NEW_MAIL: &str = "No new mail (the wait timed out or was cancelled).";

/// The lines, then (with `format: "xml"`) the messages whole after a blank line.
fn with_xml(lines: String, waited: &WaitResult) -> String {
    match waited.xml.as_deref() {
        Some(xml) if !xml.is_empty() => format!("{lines}\n\n{xml}"),
        _ => lines,
    }
}

/// The messages whole as `<teammate-message>` blocks, each marked read first (as
/// `read_message` does); one that cannot be read any more is a warning.
fn whole_as_xml(
    mailbox: &filebox_core::Mailbox,
    envelopes: &[filebox_core::Envelope],
    warnings: &mut Vec<String>,
) -> String {
    let mut blocks = Vec::new();
    for envelope in envelopes {
        let read = mailbox
            .mark_read(envelope)
            .and_then(|()| mailbox.read(envelope));
        match read {
            Ok(message) => blocks.extend(filebox_bridge::teammate_xml::blocks_of(&message)),
            Err(e) => warnings.push(format!("could not render {}: {e}", envelope.file)),
        }
    }
    filebox_bridge::teammate_xml::render(&blocks)
}
