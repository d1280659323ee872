//! `wait_for_messages` (`filebox wait`): block until mail no earlier wait returned reaches my
//! inbox, then give it, as listing lines and (with `format: "xml"`) whole.

use filebox_core::{Claim, Folder, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;
use crate::render::{brief_lines, message_lines};
use crate::shared::warnings::{receipt_notes, unreadable_warnings};
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::MessageSummary;

/// Block until mail reaches my inbox, then print what arrived since the last wait, one
/// listing line per message (--json: an array).
///
/// Exit codes: 0 when mail arrived; 3 when --timeout passed with none (stdout then has
/// nothing, or `[]` with --json, and stderr says so); 1 on an error. So a script can write
/// `if filebox wait --timeout 60; then ...; fi`. The first wait ever starts from the inbox
/// as it is.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct WaitArgs {
    /// Seconds; omitted: no limit.
    #[serde(default)]
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
    /// xml: also each whole, as <teammate-message> (marks read).
    // On the command line a flag: the one format besides the listing lines.
    #[serde(default)]
    #[arg(
        long = "xml",
        num_args = 0,
        default_missing_value = "xml",
        help = "Also print the messages whole as <teammate-message> blocks for a model's \
                context (and mark them read), after their listing lines"
    )]
    pub format: Option<MessageFormat>,
}

/// How messages are shown.
#[derive(
    Debug, Clone, Copy, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::ValueEnum,
)]
#[serde(rename_all = "lowercase")]
pub enum MessageFormat {
    // One listing line per message.
    #[default]
    Lines,
    // The messages whole, as `<teammate-message>` blocks.
    Xml,
}

/// The result of `wait`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct WaitResult {
    /// The messages that arrived in my inbox since the last wait (oldest first); empty when
    /// the wait timed out or was cancelled.
    pub messages: Vec<MessageSummary>,
    /// With `format: "xml"`: those messages whole, as `<teammate-message>` blocks.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub xml: Option<String>,
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
        with_xml(message_lines(&waited.messages, NO_NEW_MAIL), waited)
    }

    fn brief(waited: &WaitResult) -> String {
        with_xml(brief_lines(&waited.messages, NO_NEW_MAIL), waited)
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
                messages: MessageSummary::listed(&mailbox, Folder::Inbox, &arrived.messages)?,
                xml,
            },
            warnings,
        )
        .noting(receipt_notes(&receipts));
        Ok((outcome, claim))
    }
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
