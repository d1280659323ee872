//! `list_teams`, `team_inbox`, `read_team_inbox` and `send_team_message`: Claude Code's team
//! inboxes (`~/.claude/teams/TEAM/inboxes/MEMBER.json`). They touch no FileBox mailbox, so
//! each is also [`Standalone`]: the CLI runs them without a FileBox config. MCP offers them
//! to models as four tools, each with its own required arguments and read-only hint.

use std::path::PathBuf;

use filebox_bridge::team_inbox::names;
use filebox_bridge::teams::{self, TeamSendRequest};
use filebox_core::{Error, Result};

use crate::args::{ListTeamsArgs, ReadTeamInboxArgs, SendTeamMessageArgs, TeamInboxArgs};
use crate::outcome::Outcome;
use crate::render;
use crate::verb::{Effect, Standalone, Verb, VerbContext};
use crate::views::{TeamInboxResult, TeamSendResult, TeamsResult};

/// The Claude config folder: the caller's (CLI `--claude-dir`), else `CLAUDE_CONFIG_DIR`,
/// else `~/.claude`.
fn claude_dir(explicit: Option<&std::path::Path>) -> Result<PathBuf> {
    names::claude_dir(explicit).ok_or_else(|| Error::Config {
        path: PathBuf::from("~/.claude"),
        reason: "no Claude config folder: set CLAUDE_CONFIG_DIR (or pass --claude-dir)".into(),
    })
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

    fn render(listed: &TeamsResult) -> String {
        render::teams(listed)
    }
}

impl Standalone for ListTeams {
    fn run_standalone(args: ListTeamsArgs) -> Result<Outcome<TeamsResult>> {
        let (result, problems) = teams::list(&claude_dir(args.claude_dir.as_deref())?)?;
        Ok(Outcome::with_warnings(result, problems))
    }
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
        render::team_inbox(inbox)
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
        render::team_inbox(inbox)
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

    fn render(sent: &TeamSendResult) -> String {
        render::team_sent(sent)
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
