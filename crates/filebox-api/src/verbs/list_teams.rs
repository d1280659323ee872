//! `list_teams` (`filebox teams`): Claude Code's agent teams and their members. Like every team
//! verb it touches no FileBox mailbox, so it is [`Standalone`]: the CLI runs it without a FileBox
//! config. MCP offers the team verbs to models as four tools, each with its own required
//! arguments and read-only hint.

use filebox_bridge::teams;
use filebox_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;
use crate::render::{name, title};
use crate::shared::claude::claude_dir;
use crate::verb::{Effect, Standalone, Verb, VerbContext};

/// The result, declared beside the team-inbox format it describes.
pub use filebox_bridge::teams::{MemberView, TeamView, TeamsResult};

/// Claude Code agent teams: list teams with their members, show, read and send to members'
/// team inboxes (`~/.claude/teams/TEAM/inboxes/MEMBER.json`), and bridge a team to FileBox
/// mail.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct ListTeamsArgs {
    /// The Claude config folder holding `teams/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    #[serde(skip)]
    #[arg(long, global = true, value_name = "DIR")]
    pub claude_dir: Option<std::path::PathBuf>,
}

/// The teams and their members.
#[derive(Debug)]
pub struct ListTeams;

impl Verb for ListTeams {
    const NAME: &'static str = "list_teams";
    const CLI: &'static str = "teams";
    const TITLE: &'static str = "List Claude Code teams";
    const DESCRIPTION: &'static str = "Claude Code agent teams: members, message and unread \
        counts.";
    const EFFECT: Effect = Effect::ReadOnly;
    type Args = ListTeamsArgs;
    type Output = TeamsResult;

    fn run(_: &VerbContext<'_>, args: ListTeamsArgs) -> Result<Outcome<TeamsResult>> {
        Self::run_standalone(args)
    }

    /// Each team (a session team said to be one), then its members: `  researcher (3 messages,
    /// 1 unread)`.
    fn render(listed: &TeamsResult) -> String {
        if listed.teams.is_empty() {
            return format!("No teams in {}.", listed.teams_dir);
        }
        let mut lines = Vec::new();
        for team in &listed.teams {
            let session = if team.session {
                " (session team: ends with its Claude Code session)"
            } else {
                ""
            };
            let team_name = name(&team.name);
            lines.push(match &team.description {
                Some(d) => format!("{team_name}{session} — {}", title(d)),
                None => format!("{team_name}{session}"),
            });
            lines.extend(team.members.iter().map(|m| {
                format!(
                    "  {} ({} messages, {} unread)",
                    name(&m.name),
                    m.messages,
                    m.unread
                )
            }));
        }
        lines.join("\n")
    }
}

impl Standalone for ListTeams {
    fn run_standalone(args: ListTeamsArgs) -> Result<Outcome<TeamsResult>> {
        let (result, problems) = teams::list(&claude_dir(args.claude_dir.as_deref())?)?;
        Ok(Outcome::with_warnings(result, problems))
    }
}
