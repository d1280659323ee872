//! The team-inbox operations over Claude Code team inboxes, with serializable results whose
//! doc comments are their JSON Schema: what `filebox_api`'s team verbs (`list_teams`,
//! `team_inbox`, `read_team_inbox`, `send_team_message`; CLI `filebox teams ...`) run.

use std::path::Path;

use filebox_core::{Error, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::team_inbox::{InboxFile, Structured, Team, TeammateMessage, Teams};

/// A team and its members, as `filebox teams` lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TeamView {
    /// The team's name (its inbox folder's name).
    pub name: String,
    /// A session team (`session-` + 8 characters of the session id), which Claude Code
    /// removes when its session exits.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub session: bool,
    /// The team's description in its roster.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The roster file, when the team has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    /// The folder of the members' inbox files.
    pub inboxes: String,
    pub members: Vec<MemberView>,
}

/// A member of a team: in the roster, or with an inbox file.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct MemberView {
    /// The name to address it by (`team-lead` for the lead).
    pub name: String,
    /// Its colour in Claude Code's UI.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// Its agent type in the roster.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// Messages in the member's inbox, and how many are unread.
    pub messages: usize,
    pub unread: usize,
}

/// `filebox teams`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TeamsResult {
    /// The folder the teams were looked for in (`{claude_dir}/teams`).
    pub teams_dir: String,
    pub teams: Vec<TeamView>,
}

/// A message of a team inbox, with its structured kind when it has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TeamMessageView {
    /// The sender's name.
    pub from: String,
    /// Plain text, or a structured message as JSON.
    pub text: String,
    /// When it was sent (ISO 8601, milliseconds, `Z`).
    pub timestamp: String,
    pub read: bool,
    /// The sender's colour.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    /// A 5-10 word preview.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub summary: Option<String>,
    /// The structured message's `type` (`idle_notification`, `shutdown_request`, ...).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub kind: Option<String>,
    /// One line describing a structured message.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
}

impl From<&TeammateMessage> for TeamMessageView {
    fn from(message: &TeammateMessage) -> Self {
        let structured = Structured::parse(&message.text);
        TeamMessageView {
            from: message.from.clone(),
            text: message.text.clone(),
            timestamp: message.timestamp.clone(),
            read: message.is_read(),
            color: message.color.clone(),
            summary: message.summary.clone(),
            kind: structured.as_ref().map(|s| s.kind.as_str().to_owned()),
            description: structured.map(|s| s.describe()),
        }
    }
}

/// `filebox teams inbox` and `filebox teams read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TeamInboxResult {
    pub team: String,
    pub member: String,
    /// The inbox file.
    pub inbox: String,
    /// Unread first, then read; each group oldest first.
    pub messages: Vec<TeamMessageView>,
    /// `teams read` only: how many of them it marked read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marked_read: Option<usize>,
}

/// `filebox teams send`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct TeamSendResult {
    pub team: String,
    /// The sender's name written in `from`.
    pub from: String,
    /// The members whose inboxes now hold the message.
    pub to: Vec<String>,
    /// The message's timestamp (with `from` and the text, its identity).
    pub timestamp: String,
}

/// What `send` did: the members who got the message, and those who could not (each with why).
#[derive(Debug)]
pub struct TeamSent {
    pub result: TeamSendResult,
    pub failed: Vec<(String, Error)>,
}

/// What `teams send` sends.
#[derive(Debug, Clone, Default)]
pub struct TeamSendRequest {
    /// A member's name, or `*` for every member but the sender.
    pub to: String,
    /// Plain text, or a structured message as JSON.
    pub text: String,
    /// The sender's name; required: FileBox writes as no one it is not (the verbs give the
    /// FileBox agent's own name).
    pub from: Option<String>,
    pub summary: Option<String>,
    pub color: Option<String>,
}

/// `teams`: every team under the Claude folder, with member counts, and what could not be read
/// (a broken config or inbox; the rest is still listed).
pub fn list(claude_dir: &Path) -> Result<(TeamsResult, Vec<String>)> {
    let teams = Teams::new(claude_dir);
    let mut problems = Vec::new();
    let views = teams
        .list()?
        .iter()
        .map(|team| team_view(team, &mut problems))
        .collect();
    let result = TeamsResult {
        teams_dir: teams.root().display().to_string(),
        teams: views,
    };
    Ok((result, problems))
}

fn team_view(team: &Team, problems: &mut Vec<String>) -> TeamView {
    let config = team.config().unwrap_or_else(|e| {
        problems.push(e.to_string());
        None
    });
    let names = team.member_names().unwrap_or_else(|e| {
        problems.push(e.to_string());
        Vec::new()
    });
    let members = names
        .into_iter()
        .map(|name| {
            let roster = config
                .as_ref()
                .and_then(|c| c.members.iter().find(|m| m.name == name));
            let (messages, unread) = match team.inbox(&name).read() {
                Ok(inbox) => (
                    inbox.messages().count(),
                    inbox.messages().filter(|m| !m.is_read()).count(),
                ),
                Err(e) => {
                    problems.push(e.to_string());
                    (0, 0)
                }
            };
            MemberView {
                color: roster.and_then(|m| m.color.clone()),
                agent_type: roster.and_then(|m| m.agent_type.clone()),
                name,
                messages,
                unread,
            }
        })
        .collect();
    TeamView {
        name: team.name.clone(),
        session: team.is_session(),
        description: config.as_ref().and_then(|c| c.description.clone()),
        config: team
            .config_path
            .is_file()
            .then(|| team.config_path.display().to_string()),
        inboxes: team.inbox_dir.display().to_string(),
        members,
    }
}

/// The team named, else the one Claude Code would use ([`Teams::unnamed_team`]); it must exist.
fn existing_team(claude_dir: &Path, team: Option<&str>) -> Result<Team> {
    let teams = Teams::new(claude_dir);
    Ok(teams.existing_team(&teams.named_or_unnamed(team))?)
}

/// `teams inbox`: a member's messages, unread first, without marking anything.
pub fn inbox(
    claude_dir: &Path,
    team: Option<&str>,
    member: &str,
    unread_only: bool,
) -> Result<TeamInboxResult> {
    let team = existing_team(claude_dir, team)?;
    let inbox = team.inbox(member);
    let file = inbox.read().map_err(team_error)?;
    Ok(TeamInboxResult {
        team: team.name.clone(),
        member: member.to_owned(),
        inbox: inbox.path().display().to_string(),
        messages: unread_first(&file, unread_only)
            .into_iter()
            .map(TeamMessageView::from)
            .collect(),
        marked_read: None,
    })
}

/// `teams read`: the unread messages, then marks exactly those read (by identity), so a
/// message that arrives in between stays unread for the next read; marked as the Claude Code
/// polling the inbox marks (`read: true`, or removed: [`crate::team_inbox::MarkStyle`]).
pub fn read(claude_dir: &Path, team: Option<&str>, member: &str) -> Result<TeamInboxResult> {
    let team = existing_team(claude_dir, team)?;
    let inbox = team.inbox(member);
    let file = inbox.read().map_err(team_error)?;
    let unread = unread_first(&file, true);
    let identities: Vec<_> = unread.iter().map(|m| m.identity()).collect();
    let marked = inbox.mark_read(&identities).map_err(team_error)?;
    Ok(TeamInboxResult {
        team: team.name.clone(),
        member: member.to_owned(),
        inbox: inbox.path().display().to_string(),
        messages: unread.into_iter().map(TeamMessageView::from).collect(),
        marked_read: Some(marked),
    })
}

fn unread_first(file: &InboxFile, unread_only: bool) -> Vec<&TeammateMessage> {
    let unread = file.messages().filter(|m| !m.is_read());
    let read = file.messages().filter(|m| m.is_read() && !unread_only);
    unread.chain(read).collect()
}

/// `teams send`: append to one member's inbox, or with `*` to every member but the sender.
/// Every member is tried; those who could not receive it are in `failed` (the others have it,
/// so sending again would duplicate it for them).
pub fn send(claude_dir: &Path, team: Option<&str>, request: &TeamSendRequest) -> Result<TeamSent> {
    let team = existing_team(claude_dir, team)?;
    let from = request
        .from
        .clone()
        .filter(|f| !f.trim().is_empty())
        .ok_or_else(|| {
            Error::invalid(
                "from",
                String::new(),
                "no sender: FileBox writes as no one it is not, and there is no FileBox agent \
                 to send as here; name the sender with --from (its own name)",
            )
        })?;
    let to: Vec<String> = if request.to == "*" {
        team.member_names()?
            .into_iter()
            .filter(|m| *m != from)
            .collect()
    } else {
        vec![request.to.clone()]
    };
    if to.is_empty() || to.iter().any(|t| t.trim().is_empty()) {
        return Err(Error::invalid(
            "to",
            request.to.clone(),
            format!("no member of team {} to send to", team.name),
        ));
    }
    let message = TeammateMessage {
        color: request.color.clone(),
        summary: request.summary.clone(),
        ..TeammateMessage::new(&from, &request.text)
    };
    let mut delivered = Vec::new();
    let mut failed = Vec::new();
    for member in to {
        match team.inbox(&member).append(std::slice::from_ref(&message)) {
            Ok(()) => delivered.push(member),
            Err(e) => failed.push((member, team_error(e))),
        }
    }
    Ok(TeamSent {
        result: TeamSendResult {
            team: team.name.clone(),
            from,
            to: delivered,
            timestamp: message.timestamp,
        },
        failed,
    })
}

/// An inbox failure as the core error a verb reports.
fn team_error(error: crate::team_inbox::InboxError) -> Error {
    crate::team_inbox::TeamError::from(error).into()
}
