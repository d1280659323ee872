//! `list_threads` (`filebox threads`): my threads, most recently active first.

use filebox_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;
use crate::render::{name, title};
use crate::shared::warnings::unusable_warnings;
use crate::verb::{Effect, Verb, VerbContext};

/// List my threads, most recently active first.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct ThreadsArgs {
    /// Default 20; 0: all.
    #[serde(default)]
    #[arg(long, value_name = "N")]
    pub limit: Option<usize>,
}

/// A thread of my mailbox.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ThreadSummary {
    pub thread: String,
    pub title: String,
    /// The thread's entries: its messages and the replies in their conversations, in every
    /// mailbox within my reach (the nodes `get_thread` draws), not only those my copies hold.
    pub messages: usize,
    pub last_activity: String,
}

/// The result of `threads`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ThreadsResult {
    pub threads: Vec<ThreadSummary>,
}

/// How many threads `list_threads` shows when no limit is given.
const DEFAULT_THREADS_LIMIT: usize = 20;

/// My threads, most recently active first.
#[derive(Debug)]
pub struct ListThreads;

impl Verb for ListThreads {
    const NAME: &'static str = "list_threads";
    const CLI: &'static str = "threads";
    const TITLE: &'static str = "List threads";
    const DESCRIPTION: &'static str =
        "Your threads by latest activity: id, title, counts, last activity.";
    const EFFECT: Effect = Effect::ReadOnly;
    const ANSWER_IS_TEXT: bool = true;
    type Args = ThreadsArgs;
    type Output = ThreadsResult;

    fn run(cx: &VerbContext<'_>, args: ThreadsArgs) -> Result<Outcome<ThreadsResult>> {
        let threads = cx
            .mailroom
            .threads(args.limit.unwrap_or(DEFAULT_THREADS_LIMIT))?;
        let mut unusable = Vec::new();
        let threads = threads
            .into_iter()
            .map(|t| {
                // My copies may hold none of the thread's replies (they went to whoever the
                // message's Reply To named): count what the thread's tree draws. A thread whose
                // first message is in no mailbox within reach keeps my mailbox's count.
                let messages = match cx.mailroom.thread(&t.thread) {
                    Ok(whole) => {
                        unusable.extend(whole.unusable);
                        whole.nodes.len()
                    }
                    Err(_) => t.messages,
                };
                ThreadSummary {
                    thread: t.thread,
                    title: t.title,
                    messages,
                    last_activity: t.last_activity,
                }
            })
            .collect();
        unusable.sort_by(|a, b| a.agent.cmp(&b.agent));
        unusable.dedup_by(|a, b| a.agent == b.agent);
        Ok(Outcome::with_warnings(
            ThreadsResult { threads },
            unusable_warnings(&unusable),
        ))
    }

    /// My threads, most recently active first.
    fn render(listed: &ThreadsResult) -> String {
        if listed.threads.is_empty() {
            return "No threads.".to_owned();
        }
        listed
            .threads
            .iter()
            .map(|t| {
                format!(
                    "{} {} ({}) [thread {}]",
                    name(&t.last_activity),
                    title(&t.title),
                    count(t.messages, "message", "messages"),
                    name(&t.thread)
                )
            })
            .collect::<Vec<_>>()
            .join("\n")
    }
}

/// `1 message`, `3 messages`.
fn count(n: usize, one: &str, many: &str) -> String {
    format!("{n} {}", if n == 1 { one } else { many })
}
