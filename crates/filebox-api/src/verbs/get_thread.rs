//! `get_thread` (`filebox thread`): a message's whole thread as a tree, across every mailbox:
//! who said what to whom, in order, with replies and fork branches.

use filebox_core::{Folder, ForkReason, Result, Status};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;
use crate::render::{file_name, name, status_word, title};
use crate::shared::warnings::unusable_warnings;
use crate::verb::{Effect, Verb, VerbContext};

/// Show a message's whole thread as a tree, across every mailbox: who said what, in order,
/// with replies and fork branches (obsolete nodes marked).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct ThreadArgs {
    /// Any message of it, or id#n (reply n).
    #[arg(value_name = "MESSAGE")]
    pub id: String,
}

/// A message or conversation entry in a thread.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ThreadNodeView {
    /// A Message ID, or `id#n` for the n-th reply in that message's conversation.
    pub id: String,
    /// The node this answers or forks from (null for a root).
    pub parent: Option<String>,
    /// True when `parent` is in no mailbox of the config.
    pub parent_missing: bool,
    pub from: String,
    pub to: String,
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    pub timestamp: String,
    pub status: Status,
    pub obsolete: bool,
    /// Why the thread was forked here, on the first message of a fork.
    pub fork_reason: Option<ForkReason>,
    /// Whose mailbox holds the copy shown, the folder and the file.
    pub mailbox: String,
    pub folder: Folder,
    pub file: String,
    /// Depth in the tree; nodes are listed depth-first, children by time.
    pub depth: usize,
}

/// The result of `thread`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ThreadResult {
    pub thread: String,
    pub nodes: Vec<ThreadNodeView>,
}

impl From<filebox_core::Thread> for ThreadResult {
    fn from(thread: filebox_core::Thread) -> Self {
        ThreadResult {
            thread: thread.id,
            nodes: thread
                .nodes
                .into_iter()
                .map(|n| ThreadNodeView {
                    id: n.id,
                    parent: n.parent,
                    parent_missing: n.parent_missing,
                    from: n.from,
                    to: n.to,
                    kind: n.kind,
                    title: n.title,
                    timestamp: n.timestamp,
                    status: n.status,
                    obsolete: n.obsolete,
                    fork_reason: n.fork_reason.as_deref().and_then(ForkReason::parse),
                    mailbox: n.mailbox.to_string(),
                    folder: n.folder,
                    file: n.file,
                    depth: n.depth,
                })
                .collect(),
        }
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
        let warnings = unusable_warnings(&thread.unusable);
        Ok(Outcome::with_warnings(thread.into(), warnings))
    }

    fn render(result: &ThreadResult) -> String {
        thread(result)
    }
}

/// A thread as Markdown: a heading, then one nested list item per node in tree order (replies
/// under what they answer, forks under their fork point), each with its id.
pub fn thread(thread: &ThreadResult) -> String {
    let heading = thread
        .nodes
        .first()
        .map_or("(no messages)".to_owned(), |root| title(&root.title));
    let mut text = format!(
        "# Thread: {heading}\n\nThread ID: {}\n",
        name(&thread.thread)
    );
    for node in &thread.nodes {
        text.push('\n');
        text.push_str(&"  ".repeat(node.depth));
        text.push_str("- ");
        text.push_str(&thread_node(node));
    }
    text
}

/// `2025-06-27T15:30:00Z qa → dev ER **Title** [delivered] (id …; qa's inbox, file.md)`, with
/// fork, obsolete and missing-parent marks.
fn thread_node(node: &ThreadNodeView) -> String {
    let mut line = format!(
        "{} {} → {} {} **{}** [{}] (id {}; {}'s {}, {})",
        name(&node.timestamp),
        name(&node.from),
        name(&node.to),
        name(&node.kind),
        title(&node.title),
        status_word(node.status, Some(node.folder)),
        name(&node.id),
        node.mailbox,
        node.folder,
        file_name(&node.file)
    );
    if let Some(reason) = node.fork_reason {
        line.push_str(&format!(" — fork: {reason}"));
    }
    if node.obsolete {
        line.push_str(" — obsolete");
    }
    if node.parent_missing {
        let parent = name(node.parent.as_deref().unwrap_or_default());
        line.push_str(&format!(" — answers {parent}, which no mailbox holds"));
    }
    line
}
