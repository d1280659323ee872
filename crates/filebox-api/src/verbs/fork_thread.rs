//! `fork_thread` (`filebox fork`): start a thread again from an earlier message with compressed
//! context; what followed the fork point becomes obsolete (kept, marked).

use filebox_core::{ForkReason, ForkRequest, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::args::Recipients;
use crate::command_line::{choice, recipients, text_or_stdin};
use crate::outcome::Outcome;
use crate::render::recipients as recipient_words;
use crate::shared::warnings::unusable_warnings;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::names;

/// Fork a thread from an earlier message (a timeline fork): a new branch with compressed
/// context; what followed the fork point becomes obsolete (kept, marked).
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct ForkArgs {
    /// Id or id#n (its n-th reply).
    #[arg(long, value_name = "ID")]
    pub from: String,
    /// context-compression: conclusions; direction-change: lessons, new plan.
    #[arg(long, value_parser = choice::<ForkReason>())]
    pub reason: ForkReason,
    /// Markdown.
    #[arg(
        long,
        help = "The compressed context the new branch starts with, or `-` to read standard input",
        value_parser = text_or_stdin,
        allow_hyphen_values = true
    )]
    pub context: String,
    /// Default: who received the fork point.
    #[serde(default)]
    #[arg(long, value_name = "IDS", value_parser = recipients)]
    pub to: Option<Recipients>,
    /// Only if `from` is in this thread.
    #[serde(default)]
    #[arg(long, value_name = "ID")]
    pub thread: Option<String>,
}

/// The result of `fork`: the new message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct ForkResult {
    pub id: String,
    pub file: String,
    pub thread: String,
    pub forked_from: String,
    pub reason: ForkReason,
    /// The nodes the fork made obsolete (those whose files could not be marked are warnings;
    /// the fork still lists them).
    pub obsoleted: Vec<String>,
    pub delivered_to: Vec<String>,
    /// Recipients on another machine: pending until their hub has the file.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub queued_for: Vec<String>,
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
        warnings.extend(unusable_warnings(&receipt.unusable));
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

    /// The new message and what it made obsolete.
    fn render(fork: &ForkResult) -> String {
        let obsoleted = if fork.obsoleted.is_empty() {
            "nothing".to_owned()
        } else {
            fork.obsoleted.join(", ")
        };
        format!(
            "Forked thread {} from {} ({}): new message {} {} ({}). Now obsolete: {obsoleted}.",
            fork.thread,
            fork.forked_from,
            fork.reason,
            fork.id,
            recipient_words(&fork.delivered_to, &fork.queued_for),
            fork.file
        )
    }
}
