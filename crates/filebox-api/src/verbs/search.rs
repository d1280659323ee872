//! `search_messages` and `reindex`: the derived full-text index.

use filebox_core::Result;
use filebox_core::index::SearchQuery;

use crate::args::{ReindexArgs, SearchArgs};
use crate::outcome::Outcome;
use crate::render;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::{ReindexResult, ReindexedMailbox, SearchResult};

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

    fn render(found: &SearchResult) -> String {
        render::search(found)
    }

    fn brief(found: &SearchResult) -> String {
        render::search_brief(found)
    }
}

/// Delete and rebuild the derived index.
#[derive(Debug)]
pub struct Reindex;

impl Verb for Reindex {
    const NAME: &'static str = "reindex";
    const CLI: &'static str = "reindex";
    const TITLE: &'static str = "Rebuild the search index";
    const DESCRIPTION: &'static str = "Delete and rebuild the search index of my mailbox (or of \
        every mailbox with all) from the files; only needed after files were edited in place.";
    const EFFECT: Effect = Effect::Updating;
    const FOR_MODELS: bool = false;
    type Args = ReindexArgs;
    type Output = ReindexResult;

    fn run(cx: &VerbContext<'_>, args: ReindexArgs) -> Result<Outcome<ReindexResult>> {
        let rebuilt = cx.mailroom.reindex(args.all.unwrap_or(false))?;
        Ok(Outcome::clean(ReindexResult {
            mailboxes: rebuilt
                .into_iter()
                .map(|(agent, indexed)| ReindexedMailbox {
                    agent: agent.to_string(),
                    indexed,
                })
                .collect(),
        }))
    }

    fn render(result: &ReindexResult) -> String {
        render::reindex(result)
    }
}
