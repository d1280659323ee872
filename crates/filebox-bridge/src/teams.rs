//! The `teams` verbs over Claude Code team inboxes, with serializable results: what the CLI's
//! `filebox teams ...` (and its `--json`) runs.

use std::path::Path;

use serde::{Deserialize, Serialize};

use crate::team_inbox::{InboxFile, Structured, Team, TeamError, TeammateMessage, Teams, names};

/// A team and its members, as `filebox teams` lists them.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamView {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    /// The roster file, when the team has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub config: Option<String>,
    pub inboxes: String,
    pub members: Vec<MemberView>,
    /// What could not be read (a broken config or inbox); the rest is still listed.
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub problems: Vec<String>,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct MemberView {
    pub name: String,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    /// Messages in the member's inbox, and how many are unread.
    pub messages: usize,
    pub unread: usize,
}

/// `filebox teams`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamsResult {
    pub teams_dir: String,
    pub teams: Vec<TeamView>,
}

/// A message of a team inbox, with its structured kind when it has one.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamMessageView {
    pub from: String,
    pub text: String,
    pub timestamp: String,
    pub read: bool,
    #[serde(skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
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
            read: message.read,
            color: message.color.clone(),
            summary: message.summary.clone(),
            kind: structured.as_ref().map(|s| s.kind.as_str().to_owned()),
            description: structured.map(|s| s.describe()),
        }
    }
}

/// `filebox teams inbox` and `filebox teams read`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamInboxResult {
    pub team: String,
    pub member: String,
    pub inbox: String,
    /// Unread first, then read; each group oldest first.
    pub messages: Vec<TeamMessageView>,
    /// `teams read` only: how many of them it marked read.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub marked_read: Option<usize>,
}

/// `filebox teams send`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct TeamSendResult {
    pub team: String,
    pub from: String,
    pub to: Vec<String>,
    pub timestamp: String,
}

/// What `teams send` sends.
#[derive(Debug, Clone, Default)]
pub struct TeamSendRequest {
    /// A member's name, or `*` for every member but the sender.
    pub to: String,
    /// Plain text, or a structured message as JSON.
    pub text: String,
    /// Defaults to `team-lead`.
    pub from: Option<String>,
    pub summary: Option<String>,
    pub color: Option<String>,
}

/// `teams`: every team under the Claude folder, with member counts.
pub fn list(claude_dir: &Path) -> Result<TeamsResult, TeamError> {
    let teams = Teams::new(claude_dir);
    let views = teams.list()?.iter().map(team_view).collect();
    Ok(TeamsResult {
        teams_dir: teams.root().display().to_string(),
        teams: views,
    })
}

fn team_view(team: &Team) -> TeamView {
    let mut problems = Vec::new();
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
                    inbox.messages().filter(|m| !m.read).count(),
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
        description: config.as_ref().and_then(|c| c.description.clone()),
        config: team
            .config_path
            .is_file()
            .then(|| team.config_path.display().to_string()),
        inboxes: team.inbox_dir.display().to_string(),
        members,
        problems,
    }
}

/// `teams inbox`: a member's messages, unread first, without marking anything.
pub fn inbox(
    claude_dir: &Path,
    team: &str,
    member: &str,
    unread_only: bool,
) -> Result<TeamInboxResult, TeamError> {
    let team = Teams::new(claude_dir).existing_team(team)?;
    let inbox = team.inbox(member);
    let file = inbox.read()?;
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
/// message that arrives in between stays unread for the next read.
pub fn read(claude_dir: &Path, team: &str, member: &str) -> Result<TeamInboxResult, TeamError> {
    let team = Teams::new(claude_dir).existing_team(team)?;
    let inbox = team.inbox(member);
    let file = inbox.read()?;
    let unread = unread_first(&file, true);
    let identities: Vec<_> = unread.iter().map(|m| m.identity()).collect();
    let marked = inbox.mark_read(&identities)?;
    Ok(TeamInboxResult {
        team: team.name.clone(),
        member: member.to_owned(),
        inbox: inbox.path().display().to_string(),
        messages: unread.into_iter().map(TeamMessageView::from).collect(),
        marked_read: Some(marked),
    })
}

fn unread_first(file: &InboxFile, unread_only: bool) -> Vec<&TeammateMessage> {
    let unread = file.messages().filter(|m| !m.read);
    let read = file.messages().filter(|m| m.read && !unread_only);
    unread.chain(read).collect()
}

/// `teams send`: append to one member's inbox, or with `*` to every member but the sender.
pub fn send(
    claude_dir: &Path,
    team: &str,
    request: &TeamSendRequest,
) -> Result<TeamSendResult, TeamError> {
    let team = Teams::new(claude_dir).existing_team(team)?;
    let from = request
        .from
        .clone()
        .filter(|f| !f.trim().is_empty())
        .unwrap_or_else(|| names::TEAM_LEAD.to_owned());
    let to: Vec<String> = if request.to == "*" {
        team.member_names()?
            .into_iter()
            .filter(|m| *m != from)
            .collect()
    } else {
        vec![request.to.clone()]
    };
    if to.is_empty() || to.iter().any(|t| t.trim().is_empty()) {
        return Err(TeamError::Config {
            path: team.config_path.clone(),
            reason: format!("no member to send to (to: {:?})", request.to),
        });
    }
    let message = TeammateMessage {
        color: request.color.clone(),
        summary: request.summary.clone(),
        ..TeammateMessage::new(&from, &request.text)
    };
    for member in &to {
        team.inbox(member).append(std::slice::from_ref(&message))?;
    }
    Ok(TeamSendResult {
        team: team.name.clone(),
        from,
        to,
        timestamp: message.timestamp,
    })
}
