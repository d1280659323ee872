//! `send_team_message` (`filebox teams send`): append a message to Claude Code team members'
//! inboxes under Claude Code's lock, from the acting FileBox agent unless another sender is
//! named.

use filebox_bridge::teams::{self, TeamSendRequest};
use filebox_core::{Error, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;
use crate::shared::claude::claude_dir;
use crate::verb::{Effect, Standalone, Verb, VerbContext};

/// The result, declared beside the team-inbox format it describes.
pub use filebox_bridge::teams::TeamSendResult;

/// `send_team_message`'s arguments. On the command line they are [`SendTeamMessageLine`]
/// (the team may be left out there too).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SendTeamMessageArgs {
    /// Team name.
    // Not required: Claude Code's own fallback. The tool list pays for every word.
    #[serde(default)]
    pub team: Option<String>,
    /// A member, or * (all but the sender).
    pub to: String,
    /// Text, or a structured message as JSON.
    pub text: String,
    /// Sender (default: me).
    #[serde(default)]
    pub from: Option<String>,
    /// A 5-10 word preview.
    #[serde(default)]
    pub summary: Option<String>,
    /// Sender's colour (red, ...).
    #[serde(default)]
    pub color: Option<String>,
    /// The Claude config folder holding `teams/`.
    #[serde(skip)]
    pub claude_dir: Option<std::path::PathBuf>,
}

/// Append a message to a member's inbox (or with `*` to every member but the sender), taking
/// the lock Claude Code takes, in Claude Code's current entry shape (`type`, `msgV`, a
/// `msg_id`). It is from the FileBox agent unless --from names another sender.
// `teams send [TEAM] TO TEXT`: clap lets only the second-to-last positional be left out, so
// the words are read in order and three of them start with the team.
#[derive(Debug, clap::Args)]
#[command(override_usage = "filebox teams send [OPTIONS] [TEAM] <TO> <TEXT>")]
pub struct SendTeamMessageLine {
    /// The team, or the member when the team is left out [default team: as Claude Code picks
    /// it: $CLAUDE_CODE_TEAM_NAME, else the session's team (session-<first 8 characters of
    /// $CLAUDE_CODE_SESSION_ID>) while it exists, else default]
    #[arg(value_name = "TEAM")]
    first: String,
    /// A member or * (all but the sender); the text when the team is left out
    #[arg(value_name = "TO", allow_hyphen_values = true)]
    second: String,
    /// Plain text, or a structured message as JSON
    #[arg(value_name = "TEXT", allow_hyphen_values = true)]
    third: Option<String>,
    #[arg(
        long,
        value_name = "NAME",
        help = "The sender's name [default: the FileBox agent's]. Claude Code ignores mode \
                changes and permission updates from an inbox, and plan approvals not verifiably \
                from team-lead"
    )]
    from: Option<String>,
    /// A 5-10 word preview
    #[arg(long, value_name = "TEXT")]
    summary: Option<String>,
    /// The sender's colour (red, ...)
    #[arg(long, value_name = "NAME")]
    color: Option<String>,
    /// The Claude config folder holding `teams/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    #[arg(long, global = true, value_name = "DIR")]
    claude_dir: Option<std::path::PathBuf>,
}

impl From<SendTeamMessageLine> for SendTeamMessageArgs {
    fn from(line: SendTeamMessageLine) -> SendTeamMessageArgs {
        let (team, to, text) = match line.third {
            Some(text) => (Some(line.first), line.second, text),
            None => (None, line.first, line.second),
        };
        SendTeamMessageArgs {
            team,
            to,
            text,
            from: line.from,
            summary: line.summary,
            color: line.color,
            claude_dir: line.claude_dir,
        }
    }
}

impl clap::FromArgMatches for SendTeamMessageArgs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        <SendTeamMessageLine as clap::FromArgMatches>::from_arg_matches(matches)
            .map(SendTeamMessageArgs::from)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = SendTeamMessageArgs::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for SendTeamMessageArgs {
    fn augment_args(command: clap::Command) -> clap::Command {
        <SendTeamMessageLine as clap::Args>::augment_args(command)
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        <SendTeamMessageLine as clap::Args>::augment_args_for_update(command)
    }
}
/// Append a message to members' team inboxes, under Claude Code's lock.
#[derive(Debug)]
pub struct SendTeamMessage;

impl Verb for SendTeamMessage {
    const NAME: &'static str = "send_team_message";
    const CLI: &'static str = "teams send";
    const TITLE: &'static str = "Send to a Claude Code team";
    const DESCRIPTION: &'static str = "Write to Claude Code team members' inboxes.";
    const EFFECT: Effect = Effect::Additive;
    type Args = SendTeamMessageArgs;
    type Output = TeamSendResult;

    /// From the acting FileBox agent unless the caller names another sender.
    fn run(cx: &VerbContext<'_>, mut args: SendTeamMessageArgs) -> Result<Outcome<TeamSendResult>> {
        if args.from.as_deref().is_none_or(|f| f.trim().is_empty()) {
            args.from = Some(cx.mailroom.me().to_string());
        }
        Self::run_standalone(args)
    }

    /// `Sent to researcher, tester in team my-team as team-lead at 2026-...Z`.
    fn render(sent: &TeamSendResult) -> String {
        format!(
            "Sent to {} in team {} as {} at {}",
            sent.to.join(", "),
            sent.team,
            sent.from,
            sent.timestamp
        )
    }
}

impl Standalone for SendTeamMessage {
    /// Members who could not receive it are warnings when others did (sending again would
    /// duplicate it for those); when none did, the error says why. Without a FileBox agent
    /// to send as, the sender must be named.
    fn run_standalone(args: SendTeamMessageArgs) -> Result<Outcome<TeamSendResult>> {
        let dir = claude_dir(args.claude_dir.as_deref())?;
        let request = TeamSendRequest {
            to: args.to,
            text: args.text,
            from: args.from,
            summary: args.summary,
            color: args.color,
        };
        let sent = teams::send(&dir, args.team.as_deref(), &request)?;
        let mut failed = sent.failed;
        if sent.result.to.is_empty() {
            return Err(match failed.len() {
                1 => failed.remove(0).1,
                _ => Error::NotSent {
                    failed: failed.iter().map(|(m, e)| format!("{m} ({e})")).collect(),
                },
            });
        }
        let warnings = failed
            .iter()
            .map(|(member, e)| format!("not delivered to {member}: {e}"))
            .collect();
        Ok(Outcome::with_warnings(sent.result, warnings))
    }
}
