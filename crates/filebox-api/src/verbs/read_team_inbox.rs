//! `read_team_inbox` (`filebox teams read`): a Claude Code team member's unread messages, then
//! marked read by their identity, as the installed Claude Code marks them.

use filebox_bridge::teams;
use filebox_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::team_inbox::{TeamInboxResult, team_inbox_text};
use crate::outcome::Outcome;
use crate::shared::claude::claude_dir;
use crate::verb::{Effect, Standalone, Verb, VerbContext};

/// Print a member's unread messages and mark exactly those read (by their identity, so a
/// message arriving meanwhile stays unread), as the installed Claude Code marks them: `read:
/// true` (up to 2.1.112), or removed (current versions); FILEBOX_CLAUDE_MARK_READ=flag|prune
/// says which when the inbox does not show it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
#[command(allow_missing_positional = true)]
pub struct ReadTeamInboxArgs {
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
    /// The Claude config folder holding `teams/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    #[serde(skip)]
    #[arg(long, global = true, value_name = "DIR")]
    pub claude_dir: Option<std::path::PathBuf>,
}

/// A member's unread team messages, then marked read by identity.
#[derive(Debug)]
pub struct ReadTeamInbox;

impl Verb for ReadTeamInbox {
    const NAME: &'static str = "read_team_inbox";
    const CLI: &'static str = "teams read";
    const TITLE: &'static str = "Read a team inbox";
    const DESCRIPTION: &'static str =
        "A Claude Code team member's unread messages, marking them read.";
    const EFFECT: Effect = Effect::Updating;
    type Args = ReadTeamInboxArgs;
    type Output = TeamInboxResult;

    fn run(_: &VerbContext<'_>, args: ReadTeamInboxArgs) -> Result<Outcome<TeamInboxResult>> {
        Self::run_standalone(args)
    }

    fn render(inbox: &TeamInboxResult) -> String {
        team_inbox_text(inbox)
    }
}

impl Standalone for ReadTeamInbox {
    fn run_standalone(args: ReadTeamInboxArgs) -> Result<Outcome<TeamInboxResult>> {
        let dir = claude_dir(args.claude_dir.as_deref())?;
        Ok(Outcome::clean(teams::read(
            &dir,
            args.team.as_deref(),
            &args.member,
        )?))
    }
}
