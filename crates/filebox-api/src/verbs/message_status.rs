//! `message_status` (`filebox status`): where a message stands and, for one I sent, where each
//! recipient's copy is.

use filebox_core::message::field;
use filebox_core::{Folder, MessageRef, Priority, Result, SourceType, Status};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;
use crate::render::{file_name, name, status_word, title};
use crate::verb::{Effect, Verb, VerbContext};

/// Show where a message stands: pending, delivered, on hold, answered, resolved, rejected
/// or obsolete (--json: pending, delivered, read, processing, replied, failed, obsolete), with its
/// source type, priority and reply-to; for a message I sent, each recipient's copy.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct StatusArgs {
    /// Id or short id.
    #[arg(value_name = "MESSAGE")]
    pub id: String,
}

/// Where one recipient's copy of a message is.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct RecipientView {
    pub agent: String,
    /// The folder its copy is in; null when it holds none.
    pub folder: Option<Folder>,
    pub status: Status,
    /// When another machine's hub refused the mail (status failed): why.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub refused: Option<String>,
}

/// The result of `status`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct StatusResult {
    pub id: String,
    /// pending, delivered, read, processing, replied, failed or obsolete: for a message in my
    /// outbox, how far its recipients got (the least advanced); else my copy's.
    pub status: Status,
    /// The folder my copy is in.
    pub folder: Folder,
    pub file: String,
    /// My copy's own status.
    pub copy_status: Status,
    #[serde(rename = "type")]
    pub kind: String,
    pub title: String,
    /// Who wrote last (its `Sender`: a reply rewrites it).
    pub sender: String,
    /// Who wrote the message: `Original Sender`, else (a hand-written file) `Sender`.
    pub original_sender: String,
    pub thread: String,
    /// Who sent it: agent (the default), human, system or external.
    pub source_type: SourceType,
    /// normal (the default) or urgent.
    pub priority: Priority,
    /// Where replies go instead of the sender (its Reply To), when set.
    pub reply_to: Option<String>,
    /// For a message in my outbox: each recipient's copy.
    pub recipients: Vec<RecipientView>,
}

impl From<&filebox_core::StatusReport> for StatusResult {
    fn from(report: &filebox_core::StatusReport) -> Self {
        let h = &report.envelope.header;
        let get = |key| h.get(key).map(str::to_owned);
        StatusResult {
            id: h.id().to_owned(),
            status: report.status,
            folder: report.envelope.folder,
            file: report.envelope.file.to_string(),
            copy_status: report.copy_status,
            kind: h.kind.clone(),
            title: h.title.clone(),
            sender: get(field::SENDER).unwrap_or_default(),
            // As `filebox_core::copy::sender` reads a whole message, from the header alone.
            original_sender: [field::ORIGINAL_SENDER, field::SENDER]
                .into_iter()
                .filter_map(|key| h.get(key).map(str::trim))
                .find(|name| !name.is_empty())
                .unwrap_or_default()
                .to_owned(),
            thread: h.thread_id(),
            source_type: get(field::SOURCE_TYPE)
                .and_then(|s| SourceType::parse(&s))
                .unwrap_or(SourceType::Agent),
            priority: get(field::PRIORITY)
                .and_then(|p| Priority::parse(&p))
                .unwrap_or(Priority::Normal),
            reply_to: get(field::REPLY_TO),
            recipients: report
                .recipients
                .iter()
                .map(|r| RecipientView {
                    agent: r.agent.to_string(),
                    folder: r.folder,
                    status: r.status,
                    refused: r.refused.clone(),
                })
                .collect(),
        }
    }
}

/// The status of one message, with each recipient's copy.
#[derive(Debug)]
pub struct MessageStatus;

impl Verb for MessageStatus {
    const NAME: &'static str = "message_status";
    const CLI: &'static str = "status";
    const TITLE: &'static str = "Message status";
    const DESCRIPTION: &'static str =
        "Where a message stands; for one you sent, each recipient's copy.";
    const EFFECT: Effect = Effect::ReadOnly;
    type Args = StatusArgs;
    type Output = StatusResult;

    fn run(cx: &VerbContext<'_>, args: StatusArgs) -> Result<Outcome<StatusResult>> {
        let report = cx.mailroom.status(&MessageRef::parse(&args.id)?)?;
        Ok(Outcome::with_warnings(
            StatusResult::from(&report),
            crate::shared::warnings::unusable_warnings(&report.unusable),
        ))
    }

    /// Where a message stands, then each recipient's copy.
    fn render(s: &StatusResult) -> String {
        // For a message I sent, the overall status is the least advanced recipient's; failed
        // because another machine's hub refused it reads `refused`.
        let overall = s.recipients.iter().find(|r| r.status == s.status);
        let overall_folder = overall.map_or(Some(s.folder), |r| r.folder);
        let overall_word = match overall {
            Some(r) if r.refused.is_some() => "refused",
            _ => status_word(s.status, overall_folder),
        };
        let mut text = format!(
            "{} {} \"{}\" is {} (your copy: {} in {}, {}; thread {}; from {}, source {}, priority {})",
            name(&s.kind),
            name(&s.id),
            title(&s.title),
            overall_word,
            status_word(s.copy_status, Some(s.folder)),
            s.folder,
            file_name(&s.file),
            name(&s.thread),
            writers(s),
            s.source_type,
            s.priority
        );
        if let Some(reply_to) = &s.reply_to {
            text.push_str(&format!("\nreplies go to {}", name(reply_to)));
        }
        for r in &s.recipients {
            let agent = name(&r.agent);
            if let Some(why) = &r.refused {
                text.push_str(&format!("\n- {agent}: refused by its hub: {}", title(why)));
                continue;
            }
            match r.folder {
                Some(folder) => text.push_str(&format!(
                    "\n- {agent}: {} ({folder})",
                    status_word(r.status, Some(folder))
                )),
                None => text.push_str(&format!(
                    "\n- {agent}: {} (no copy)",
                    status_word(r.status, None)
                )),
            }
        }
        text
    }
}

/// `qa`, the message's sender, and `qa, last written by lead` when someone else answered last.
fn writers(s: &StatusResult) -> String {
    match s.sender == s.original_sender || s.sender.is_empty() {
        true => name(&s.original_sender),
        false => format!(
            "{}, last written by {}",
            name(&s.original_sender),
            name(&s.sender)
        ),
    }
}
