//! `list_messages` (`filebox list`): a page of a folder's messages, newest first, and the
//! inbox as the `filebox://inbox` resource shows it.

use clap::ArgAction::{SetFalse, SetTrue};
use filebox_core::index::Page;
use filebox_core::message::MessageIdShort;
use filebox_core::{Envelope, Error, Folder, Listing, Mailbox, MessageType, Problem, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::command_line::{choice, message_type};
use crate::outcome::Outcome;
use crate::render::{ages, brief_line, brief_lines, file_name, message_lines, name};
use crate::shared::warnings::unreadable_warnings;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::MessageSummary;

/// List the messages of a folder, newest first, 50 a page: `2025-06-27T153000 ER Title
/// (file.md)`; `--page N` for more, `--all` for every one.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct ListArgs {
    /// Default inbox.
    #[serde(default)]
    #[arg(value_parser = choice::<Folder>())]
    pub folder: Option<Folder>,
    #[serde(default)]
    #[arg(long, value_name = "ID", help = "Only from this agent")]
    pub from: Option<String>,
    #[serde(default, rename = "type")]
    #[arg(long = "type", value_name = "TYPE", value_parser = message_type, help = "Only this type")]
    pub kind: Option<MessageType>,
    #[serde(default)]
    #[arg(long, action = SetTrue, help = "Only unread")]
    pub unread: Option<bool>,
    #[serde(default)]
    #[arg(long, value_name = "ID", help = "Only this thread")]
    pub thread: Option<String>,
    /// Default 50; 0: all.
    #[serde(default)]
    #[arg(long, value_name = "N", help = "At most this many (default 50)")]
    pub limit: Option<usize>,
    /// Skip this many.
    #[serde(default)]
    #[arg(long, value_name = "N")]
    pub offset: Option<usize>,
    /// False: oldest first.
    #[serde(default)]
    #[arg(
        long = "oldest-first",
        action = SetFalse,
        help = "Oldest first (the default is newest first)"
    )]
    pub newest_first: Option<bool>,
    /// Older than this file.
    #[serde(default)]
    #[arg(long, value_name = "FILE")]
    pub before: Option<String>,
    // The command line's own paging words, not arguments of the JSON surfaces (`limit` and
    // `offset` say the same there).
    /// The page to show, from 1, `limit` messages a page (the listing's last line names the
    /// next).
    #[serde(skip)]
    #[arg(long, value_name = "N", value_parser = clap::value_parser!(u64).range(1..))]
    pub page: Option<u64>,
    /// Every message, not a page.
    #[serde(skip)]
    #[arg(long, conflicts_with_all = ["limit", "page"])]
    pub all: bool,
}

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

    /// How many messages a listing shows when no `limit` is given: enough for a page of
    /// work, few enough to spare a model's context.
    pub const DEFAULT_LIMIT: usize = 50;
}

/// The result of `list` (files that could not be read are warnings): one page of the
/// matching messages, newest first unless asked otherwise.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ListResult {
    pub folder: Folder,
    pub messages: Vec<MessageSummary>,
    /// How many messages match the filters, shown or not.
    pub total: usize,
    /// How many matching messages come before the first one shown.
    pub offset: usize,
    /// The page's order: newest first, else oldest first.
    pub newest_first: bool,
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
                messages: MessageSummary::listed(&mailbox, folder, &page.messages)?,
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
            messages: MessageSummary::listed(&mailbox, folder, &page)?,
            total,
            offset,
            newest_first,
        };
        Ok(listed(listing, &problems))
    }

    /// One line per message and, when the page left some out, a last line saying how many
    /// and how to see them (on stdout, after the messages, so a script's stderr stays for
    /// warnings).
    fn render(listing: &ListResult) -> String {
        let mut text = message_lines(&listing.messages, "No messages.");
        let shown = listing.messages.len();
        let after = listing.total.saturating_sub(listing.offset + shown);
        if shown > 0 && after > 0 {
            let next = if listing.offset.is_multiple_of(shown) {
                format!("--page {}", listing.offset / shown + 2)
            } else {
                format!("--offset {}", listing.offset + shown)
            };
            text.push_str(&format!(
                "\n… {after} more: {next} for the next {shown}, --all for every one"
            ));
        }
        text
    }

    /// What the page holds, one short line per message, and how to get the rest.
    fn brief(listing: &ListResult) -> String {
        let shown = listing.messages.len();
        if shown == 0 {
            return match listing.total {
                0 => "No messages.".to_owned(),
                total => format!("No messages at offset {} (of {total}).", listing.offset),
            };
        }
        let first = listing.offset + 1;
        let last = listing.offset + shown;
        let order = if listing.newest_first {
            "newest first"
        } else {
            "oldest first"
        };
        let mut text = if shown == listing.total {
            format!("{shown} in {}, {order} (* unread):\n", listing.folder)
        } else {
            format!(
                "{first}-{last} of {} in {}, {order} (* unread):\n",
                listing.total, listing.folder
            )
        };
        text.push_str(&brief_lines(&listing.messages, ""));
        let after = listing.total.saturating_sub(last);
        if after > 0 {
            text.push_str(&format!("\n{after} more: list again with offset={last}"));
        }
        text
    }
}

/// A listing's outcome: the files it skipped as warnings.
fn listed(listing: ListResult, problems: &[Problem]) -> Outcome<ListResult> {
    Outcome::with_warnings(listing, unreadable_warnings(problems))
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

/// My inbox for a model (the `filebox://inbox` resource), oldest first as `listing` holds it:
/// a heading, then a list item per message, `brief_lines`' line ending with its file name
/// (which every verb accepts too).
pub fn inbox(me: &str, listing: &ListResult) -> String {
    let age = ages();
    let lines: Vec<String> = listing
        .messages
        .iter()
        .map(|m| {
            format!(
                "- {} ({})",
                brief_line(m, &age(&m.timestamp)),
                file_name(&m.file)
            )
        })
        .collect();
    format!("# Inbox of {}\n\n{}\n", name(me), lines.join("\n"))
}
