//! `reindex` (`filebox reindex`): empty and rebuild the derived search index from the files.

use clap::ArgAction::SetTrue;
use filebox_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;
use crate::verb::{Effect, Verb, VerbContext};

/// Empty and rebuild the search index (it is derived from the files; searches keep it up to
/// date by themselves, so this is only needed after files were edited in place).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct ReindexArgs {
    /// Rebuild the index of every mailbox of the config, not only mine.
    #[serde(default)]
    #[arg(long, action = SetTrue)]
    pub all: Option<bool>,
}

/// One mailbox's rebuilt index.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReindexedMailbox {
    pub agent: String,
    /// Message files indexed.
    pub indexed: usize,
}

/// The result of `reindex`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ReindexResult {
    pub mailboxes: Vec<ReindexedMailbox>,
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

    /// One line per rebuilt index.
    fn render(result: &ReindexResult) -> String {
        result
            .mailboxes
            .iter()
            .map(|m| format!("{}: {} messages indexed", m.agent, m.indexed))
            .collect::<Vec<_>>()
            .join("\n")
    }
}
