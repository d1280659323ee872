//! `team_inbox` (`filebox teams inbox`): a Claude Code team member's inbox
//! (`~/.claude/teams/TEAM/inboxes/MEMBER.json`), unread first, marking nothing read; and the
//! text of a team inbox, which `read_team_inbox` gives too.

use clap::ArgAction::SetTrue;
use filebox_bridge::teams;
use filebox_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::model_text;
use crate::outcome::Outcome;
use crate::render::{name, title};
use crate::shared::claude::claude_dir;
use crate::verb::{Effect, Standalone, Verb, VerbContext};

/// The result, declared beside the team-inbox format it describes.
pub use filebox_bridge::teams::{TeamInboxResult, TeamMessageView};

/// Show a member's inbox, unread first, without marking anything read. Structured messages
/// (idle notifications, shutdown and plan approval requests, ...) are shown by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
#[command(allow_missing_positional = true)]
pub struct TeamInboxArgs {
    /// Team name.
    // Not required: Claude Code's own fallback. The tool list pays for every word.
    #[serde(default)]
    #[arg(
        help = "Team name [default: as Claude Code picks it: $CLAUDE_CODE_TEAM_NAME, else the \
                  session's team (session-<first 8 characters of $CLAUDE_CODE_SESSION_ID>) while \
                  it exists, else default]"
    )]
    pub team: Option<String>,
    /// Member (the lead: team-lead).
    pub member: String,
    #[serde(default)]
    #[arg(long, action = SetTrue, help = "Only unread")]
    pub unread: Option<bool>,
    /// The Claude config folder holding `teams/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    #[serde(skip)]
    #[arg(long, global = true, value_name = "DIR")]
    pub claude_dir: Option<std::path::PathBuf>,
}

/// A member's team inbox, marking nothing.
#[derive(Debug)]
pub struct TeamInbox;

impl Verb for TeamInbox {
    const NAME: &'static str = "team_inbox";
    const CLI: &'static str = "teams inbox";
    const TITLE: &'static str = "Show a team inbox";
    const DESCRIPTION: &'static str = "A Claude Code team member's inbox, unread first; marks \
        nothing read.";
    const EFFECT: Effect = Effect::ReadOnly;
    type Args = TeamInboxArgs;
    type Output = TeamInboxResult;

    fn run(_: &VerbContext<'_>, args: TeamInboxArgs) -> Result<Outcome<TeamInboxResult>> {
        Self::run_standalone(args)
    }

    fn render(inbox: &TeamInboxResult) -> String {
        team_inbox_text(inbox)
    }
}

impl Standalone for TeamInbox {
    fn run_standalone(args: TeamInboxArgs) -> Result<Outcome<TeamInboxResult>> {
        let dir = claude_dir(args.claude_dir.as_deref())?;
        let unread = args.unread.unwrap_or(false);
        Ok(Outcome::clean(teams::inbox(
            &dir,
            args.team.as_deref(),
            &args.member,
            unread,
        )?))
    }
}

/// A team inbox, a message per line: `* 2026-04-01T10:30:00.000Z researcher: summary`
/// (`*` = unread), then its text indented; a structured message's kind and details stay on
/// its line.
pub(crate) fn team_inbox_text(inbox: &TeamInboxResult) -> String {
    if inbox.messages.is_empty() {
        let unread = if inbox.marked_read.is_some() {
            "unread "
        } else {
            ""
        };
        return format!(
            "No {unread}messages for {} in team {}.",
            inbox.member, inbox.team
        );
    }
    inbox
        .messages
        .iter()
        .flat_map(team_message_lines)
        .collect::<Vec<_>>()
        .join("\n")
}

fn team_message_lines(message: &TeamMessageView) -> Vec<String> {
    let mark = if message.read { ' ' } else { '*' };
    let head = format!(
        "{mark} {} {}",
        name(&message.timestamp),
        name(&message.from)
    );
    match &message.description {
        Some(description) => vec![format!("{head} {}", title(description))],
        None => {
            let summary = message
                .summary
                .as_deref()
                .map(|s| format!(": {}", title(s)))
                .unwrap_or_default();
            std::iter::once(format!("{head}{summary}"))
                .chain(
                    model_text::whole(&message.text)
                        .lines()
                        .map(|l| format!("    {l}")),
                )
                .collect()
        }
    }
}
