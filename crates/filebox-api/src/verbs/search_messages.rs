//! `search_messages` (`filebox search`): words and filters over everything my mailbox (or every
//! mailbox) has held, from the derived full-text index.

use clap::ArgAction::SetTrue;
use filebox_core::index::SearchQuery;
use filebox_core::{Folder, MessageType, Result, Status};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::command_line::{choice, message_type};
use crate::model_text;
use crate::outcome::Outcome;
use crate::render::{ages, file_name, name, short_id, status_word, title};
use crate::verb::{Effect, Verb, VerbContext};

/// Search everything my mailbox has held (inbox, outbox, done, cancel, hold): words in any
/// language (`用户` finds messages containing it), and filters. Newest activity first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct SearchArgs {
    /// All these words (empty: filters only).
    #[serde(default)]
    #[arg(allow_hyphen_values = true)]
    pub query: String,
    /// Every mailbox.
    #[serde(default)]
    #[arg(long, action = SetTrue)]
    pub all: Option<bool>,
    /// Only where this agent wrote.
    #[serde(default)]
    #[arg(long, value_name = "ID")]
    pub from: Option<String>,
    #[serde(default, rename = "type")]
    #[arg(long = "type", value_name = "TYPE", value_parser = message_type, help = "Only this type")]
    pub kind: Option<MessageType>,
    /// Only this folder.
    #[serde(default)]
    #[arg(long, value_parser = choice::<Folder>())]
    pub folder: Option<Folder>,
    #[serde(default)]
    #[arg(long, value_name = "ID", help = "Only this thread")]
    pub thread: Option<String>,
    /// Only this status.
    #[serde(default)]
    #[arg(long, value_parser = choice::<Status>())]
    pub status: Option<Status>,
    /// Activity since 2025-06-27[T15:30:00Z].
    #[serde(default)]
    #[arg(long, value_name = "DATE")]
    pub since: Option<String>,
    /// Default 20; 0: all.
    #[serde(default)]
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

/// A message a search found.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SearchHit {
    pub id: String,
    pub file: String,
    pub folder: Folder,
    /// Whose mailbox holds this copy.
    pub mailbox: String,
    pub title: String,
    /// Text around the first match.
    pub snippet: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub sender: String,
    pub receiver: String,
    pub timestamp: String,
    /// The latest of the timestamp and its conversation's entries.
    pub last_activity: String,
    pub status: Status,
    pub thread: String,
}

impl From<filebox_core::index::Hit> for SearchHit {
    fn from(hit: filebox_core::index::Hit) -> Self {
        SearchHit {
            id: hit.id,
            file: hit.file,
            folder: hit.folder,
            mailbox: hit.mailbox.to_string(),
            title: hit.title,
            snippet: hit.snippet,
            kind: hit.kind,
            sender: hit.sender,
            receiver: hit.receiver,
            timestamp: hit.timestamp,
            last_activity: hit.activity,
            status: hit.status,
            thread: hit.thread,
        }
    }
}

/// The result of `search`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SearchResult {
    pub hits: Vec<SearchHit>,
}

/// How many hits a search returns when the caller does not say.
const DEFAULT_SEARCH_LIMIT: usize = 20;

/// Full text and filters over my mailbox (or every mailbox), newest first.
#[derive(Debug)]
pub struct SearchMessages;

impl Verb for SearchMessages {
    const NAME: &'static str = "search_messages";
    const CLI: &'static str = "search";
    const TITLE: &'static str = "Search messages";
    const DESCRIPTION: &'static str =
        "Search titles, bodies, conversations of your mailbox or all; newest first.";
    const EFFECT: Effect = Effect::ReadOnly;
    const ANSWER_IS_TEXT: bool = true;
    type Args = SearchArgs;
    type Output = SearchResult;

    fn run(cx: &VerbContext<'_>, args: SearchArgs) -> Result<Outcome<SearchResult>> {
        let query = SearchQuery {
            text: args.query,
            from: args.from.filter(|f| !f.is_empty()),
            kind: args.kind.map(|k| k.to_string()),
            folder: args.folder,
            thread: args.thread.filter(|t| !t.is_empty()),
            status: args.status,
            since: args
                .since
                .as_deref()
                .map(|since| {
                    filebox_core::time::parse_since(since).ok_or_else(|| {
                        filebox_core::Error::invalid(
                            "date",
                            since,
                            "expected a date (2025-06-27) or a time (2025-06-27T15:30:00Z)",
                        )
                    })
                })
                .transpose()?,
            limit: args.limit.unwrap_or(DEFAULT_SEARCH_LIMIT),
        };
        let (hits, unusable) = cx.mailroom.search(&query, args.all.unwrap_or(false))?;
        Ok(Outcome::with_warnings(
            SearchResult {
                hits: hits.into_iter().map(Into::into).collect(),
            },
            crate::shared::warnings::unusable_warnings(&unusable),
        ))
    }

    /// Search hits, newest activity first.
    fn render(found: &SearchResult) -> String {
        if found.hits.is_empty() {
            return "No messages match.".to_owned();
        }
        found.hits.iter().map(hit).collect::<Vec<_>>().join("\n")
    }

    /// Search hits for a model: per hit the short id (every verb takes it), type, sender, age of
    /// its latest activity, title, status and where the copy is, then the text around the match;
    /// the full id, file name and timestamps are the command line's (`search`).
    fn brief(found: &SearchResult) -> String {
        if found.hits.is_empty() {
            return "No messages match.".to_owned();
        }
        let age = ages();
        found
            .hits
            .iter()
            .map(|hit| {
                let age = age(&hit.last_activity);
                format!(
                    "{} {} {} {age} {} [{}] {}/{}\n{}",
                    short_id(&hit.id),
                    name(&hit.kind),
                    name(&hit.sender),
                    title(&hit.title),
                    status_word(hit.status, Some(hit.folder)),
                    hit.mailbox,
                    hit.folder,
                    snippet(&hit.snippet)
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// One hit: `2025-06-27T15:30:00Z ER Title [delivered] (qa/inbox, file.md)`, then the snippet.
fn hit(hit: &SearchHit) -> String {
    format!(
        "{} {} {} [{}] ({}/{}, {})\n{}",
        name(&hit.last_activity),
        name(&hit.kind),
        title(&hit.title),
        status_word(hit.status, Some(hit.folder)),
        hit.mailbox,
        hit.folder,
        file_name(&hit.file),
        snippet(&hit.snippet)
    )
}

/// At most this many characters of a search hit's snippet as shown (the index cuts a snippet
/// to about 120; a character shown as `<U+XXXX>` takes eight).
const SNIPPET_CHARS: usize = 200;

/// A search hit's snippet (the message's words) on its own line, indented and quoted.
fn snippet(text: &str) -> String {
    format!("    > {}", model_text::one_line(text, SNIPPET_CHARS))
}
