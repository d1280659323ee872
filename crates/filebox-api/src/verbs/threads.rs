//! `list_threads`, `get_thread` and `fork_thread`: conversations as trees.

use filebox_core::{ForkRequest, Result};

use crate::args::{ForkArgs, Recipients, ThreadArgs, ThreadsArgs};
use crate::outcome::Outcome;
use crate::render;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::names;
use crate::views::{ForkResult, ThreadResult, ThreadSummary, ThreadsResult};

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
        Ok(Outcome::clean(ThreadsResult {
            threads: threads
                .into_iter()
                .map(|t| ThreadSummary {
                    thread: t.thread,
                    title: t.title,
                    messages: t.messages,
                    last_activity: t.last_activity,
                })
                .collect(),
        }))
    }

    fn render(listed: &ThreadsResult) -> String {
        render::threads(listed)
    }
}

/// The whole thread of a message, across every mailbox.
#[derive(Debug)]
pub struct GetThread;

impl Verb for GetThread {
    const NAME: &'static str = "get_thread";
    const CLI: &'static str = "thread";
    const TITLE: &'static str = "Get a thread";
    const DESCRIPTION: &'static str =
        "A message's thread as a tree (replies: id#n): who to whom, status, forks.";
    const EFFECT: Effect = Effect::ReadOnly;
    type Args = ThreadArgs;
    type Output = ThreadResult;

    fn run(cx: &VerbContext<'_>, args: ThreadArgs) -> Result<Outcome<ThreadResult>> {
        let thread = cx.mailroom.thread(args.id.trim())?;
        let warnings = crate::shared::warnings::unusable_warnings(&thread.unusable);
        Ok(Outcome::with_warnings(thread.into(), warnings))
    }

    fn render(thread: &ThreadResult) -> String {
        render::thread(thread)
    }
}

/// Start a thread again from an earlier node with compressed context.
#[derive(Debug)]
pub struct ForkThread;

impl Verb for ForkThread {
    const NAME: &'static str = "fork_thread";
    const CLI: &'static str = "fork";
    const TITLE: &'static str = "Fork a thread";
    const DESCRIPTION: &'static str = "Restart a thread from an earlier node with compressed context; later nodes become obsolete.";
    const EFFECT: Effect = Effect::Updating;
    type Args = ForkArgs;
    type Output = ForkResult;

    fn run(cx: &VerbContext<'_>, args: ForkArgs) -> Result<Outcome<ForkResult>> {
        let request = ForkRequest {
            from: args.from.trim().to_owned(),
            reason: args.reason,
            context: args.context,
            to: args.to.as_ref().map(Recipients::to_vec).unwrap_or_default(),
            thread: args.thread.filter(|t| !t.is_empty()),
        };
        let receipt = cx.mailroom.fork(&request)?;
        let mut warnings: Vec<String> = receipt
            .unmarked
            .iter()
            .map(|unmarked| format!("could not mark {unmarked} as obsolete"))
            .collect();
        warnings.extend(crate::shared::warnings::unusable_warnings(
            &receipt.unusable,
        ));
        Ok(Outcome::with_warnings(
            ForkResult {
                id: receipt.id,
                file: receipt.file,
                thread: receipt.thread,
                forked_from: receipt.forked_from,
                reason: request.reason,
                obsoleted: receipt.obsoleted,
                delivered_to: names(&receipt.delivered_to),
                queued_for: names(&receipt.queued_for),
            },
            warnings,
        ))
    }

    fn render(fork: &ForkResult) -> String {
        render::fork(fork)
    }
}
