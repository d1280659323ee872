//! A team: its `config.json` (Claude Code's `TeamFile`, the roster) and its inbox folder, which
//! can be two different folders (see [`super::names`]); and the list of teams on disk.

use std::collections::BTreeSet;
use std::fs;
use std::io;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};
use serde_json::{Map, Value};

use super::inbox::Inbox;
use super::inbox_error::InboxError;
use super::lock::LockError;
use super::names;
use super::team_file;

/// The parts of a team's `config.json` FileBox reads; everything else is left alone (FileBox
/// never writes this file).
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TeamFile {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub description: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub lead_agent_id: Option<String>,
    #[serde(default)]
    pub members: Vec<TeamMember>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// One member of the roster.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
#[serde(rename_all = "camelCase")]
pub struct TeamMember {
    pub name: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_id: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_type: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub color: Option<String>,
    #[serde(flatten)]
    pub other: Map<String, Value>,
}

/// Why a team could not be read.
#[derive(Debug, thiserror::Error)]
pub enum TeamError {
    #[error("{path}: {source}")]
    Io { path: PathBuf, source: io::Error },
    #[error("{path}: not a team config: {reason}")]
    Config { path: PathBuf, reason: String },
    #[error(
        "no team {name:?} under {teams}: neither {config} nor an inbox folder exists (`filebox teams` lists the teams)"
    )]
    NoSuchTeam {
        name: String,
        teams: PathBuf,
        config: PathBuf,
    },
    #[error(
        "team {name:?} has ended: a session team lives only while its Claude Code session runs, \
         and its folder under {teams} is gone; nothing was written"
    )]
    Ended { name: String, teams: PathBuf },
    #[error(transparent)]
    Inbox(#[from] InboxError),
}

/// A team failure as the core error a verb reports: a wrong team name is a bad argument, a
/// file not in Claude Code's form is a foreign file left untouched, a lock held too long or
/// taken over is an I/O failure after which nothing was written (safe to try again).
impl From<TeamError> for filebox_core::Error {
    fn from(error: TeamError) -> Self {
        use filebox_core::Error;
        let io = |path: PathBuf, kind: io::ErrorKind, message: String| Error::Io {
            path,
            source: io::Error::new(kind, message),
        };
        match error {
            TeamError::Io { path, source } => Error::Io { path, source },
            TeamError::Config { path, reason } => Error::Foreign {
                path,
                reason: format!("not a team config: {reason}"),
            },
            TeamError::NoSuchTeam {
                name,
                teams,
                config,
            } => Error::invalid(
                "team",
                name,
                format!(
                    "no such team under {}: neither {} nor an inbox folder exists \
                     (list_teams, `filebox teams`, lists the teams)",
                    teams.display(),
                    config.display()
                ),
            ),
            TeamError::Ended { name, teams } => {
                let message = TeamError::Ended {
                    name: name.clone(),
                    teams,
                }
                .to_string();
                Error::invalid("team", name, message)
            }
            TeamError::Inbox(InboxError::Io { path, source }) => Error::Io { path, source },
            TeamError::Inbox(InboxError::Invalid { path, reason }) => Error::invalid(
                "text",
                path.display().to_string(),
                format!("not written: Claude Code would refuse this entry: {reason}"),
            ),
            TeamError::Inbox(InboxError::Setting { path, reason }) => {
                Error::Config { path, reason }
            }
            TeamError::Inbox(InboxError::TeamGone { name, teams }) => {
                TeamError::Ended { name, teams }.into()
            }
            TeamError::Inbox(InboxError::Refused(refused)) => Error::Foreign {
                reason: refused.explanation(),
                path: refused.path,
            },
            TeamError::Inbox(InboxError::Full { path, size }) => Error::Foreign {
                path,
                reason: super::inbox_error::full(size),
            },
            TeamError::Inbox(InboxError::Unreadable { path, reason }) => Error::Foreign {
                path,
                reason: format!(
                    "the inbox is not readable ({reason}); it was left as it is, fix or \
                     remove it by hand"
                ),
            },
            TeamError::Inbox(InboxError::Lock(lock)) => match lock {
                LockError::Io { path, source } => Error::Io { path, source },
                LockError::Busy { ref path, .. } => {
                    io(path.clone(), io::ErrorKind::WouldBlock, lock.to_string())
                }
                LockError::Compromised { ref path } => {
                    io(path.clone(), io::ErrorKind::Interrupted, lock.to_string())
                }
            },
        }
    }
}

/// The teams folder of a Claude config folder: `{claude_dir}/teams`.
#[derive(Debug, Clone)]
pub struct Teams {
    root: PathBuf,
}

impl Teams {
    pub fn new(claude_dir: &Path) -> Teams {
        Teams {
            root: claude_dir.join("teams"),
        }
    }

    pub fn root(&self) -> &Path {
        &self.root
    }

    /// A team by the name Claude Code was given (sanitized here, both ways).
    pub fn team(&self, name: &str) -> Team {
        Team {
            teams: self.root.clone(),
            name: name.to_owned(),
            config_path: self
                .root
                .join(names::team_config_folder(name))
                .join("config.json"),
            inbox_dir: self.root.join(names::path_component(name)).join("inboxes"),
        }
    }

    /// A team that must exist: its config or its inbox folder is there. A session team that
    /// is not there has ended (its name says it was one).
    pub fn existing_team(&self, name: &str) -> Result<Team, TeamError> {
        let team = self.team(name);
        if team.exists() {
            Ok(team)
        } else if team.is_session() {
            Err(TeamError::Ended {
                name: name.to_owned(),
                teams: self.root.clone(),
            })
        } else {
            Err(TeamError::NoSuchTeam {
                name: name.to_owned(),
                teams: self.root.clone(),
                config: team.config_path,
            })
        }
    }

    /// The team a caller that names none means, as Claude Code picks it (`getTeamName()`,
    /// then `default`): the teammate's `CLAUDE_CODE_TEAM_NAME`, else the session's team
    /// (`session-` and the first 8 characters of `CLAUDE_CODE_SESSION_ID`) while it exists,
    /// else `default`.
    pub fn unnamed_team(&self) -> String {
        if let Some(team) = names::variable(names::TEAM_NAME_VARIABLE) {
            return team.trim().to_owned();
        }
        names::variable(names::SESSION_ID_VARIABLE)
            .map(|id| names::session_team(&id))
            .filter(|name| self.team(name).exists())
            .unwrap_or_else(|| names::DEFAULT_TEAM.to_owned())
    }

    /// `name`, else [`Teams::unnamed_team`].
    pub fn named_or_unnamed(&self, name: Option<&str>) -> String {
        name.map(str::trim)
            .filter(|n| !n.is_empty())
            .map_or_else(|| self.unnamed_team(), str::to_owned)
    }

    /// Every team on disk: each folder with a `config.json` (named as the config says), and
    /// each inbox folder no config accounts for (named by its folder). Sorted by name.
    pub fn list(&self) -> Result<Vec<Team>, TeamError> {
        let folders = match fs::read_dir(&self.root) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .filter(|e| e.file_type().is_ok_and(|t| t.is_dir()))
                .map(|e| e.file_name().to_string_lossy().into_owned())
                .collect::<BTreeSet<_>>(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => BTreeSet::new(),
            Err(source) => {
                return Err(TeamError::Io {
                    path: self.root.clone(),
                    source,
                });
            }
        };
        let mut teams = Vec::new();
        let mut covered = BTreeSet::new();
        for folder in &folders {
            let config = self.root.join(folder).join("config.json");
            if !config.is_file() {
                continue;
            }
            // A config that cannot be read still names a team: by its folder.
            let name = read_team_file(&self.root, &config)
                .map(|file| file.name)
                .unwrap_or_else(|_| folder.clone());
            covered.insert(names::path_component(&name));
            teams.push(Team {
                teams: self.root.clone(),
                config_path: config,
                inbox_dir: self.root.join(names::path_component(&name)).join("inboxes"),
                name,
            });
        }
        for folder in folders.difference(&covered) {
            let inbox_dir = self.root.join(folder).join("inboxes");
            if inbox_dir.is_dir() && !self.root.join(folder).join("config.json").is_file() {
                teams.push(Team {
                    teams: self.root.clone(),
                    name: folder.clone(),
                    config_path: self
                        .root
                        .join(names::team_config_folder(folder))
                        .join("config.json"),
                    inbox_dir,
                });
            }
        }
        teams.sort_by(|a, b| a.name.cmp(&b.name));
        Ok(teams)
    }
}

/// One team's files.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Team {
    /// The teams folder, beneath which every file of the team is read (never through a link).
    pub teams: PathBuf,
    pub name: String,
    pub config_path: PathBuf,
    pub inbox_dir: PathBuf,
}

impl Team {
    /// Whether the team is there: its config or its inbox folder.
    pub fn exists(&self) -> bool {
        self.config_path.is_file() || self.inbox_dir.is_dir()
    }

    /// Whether it is a session team, which Claude Code removes when the session exits.
    pub fn is_session(&self) -> bool {
        names::is_session_team(&self.name)
    }

    /// The roster, if the team has a config.
    pub fn config(&self) -> Result<Option<TeamFile>, TeamError> {
        if !self.config_path.is_file() {
            return Ok(None);
        }
        read_team_file(&self.teams, &self.config_path).map(Some)
    }

    /// An agent's inbox in this team. A session team's inbox is written only while the
    /// team's folder is there: a write never brings an ended team's folder back.
    pub fn inbox(&self, agent: &str) -> Inbox {
        let path = self
            .inbox_dir
            .join(format!("{}.json", names::path_component(agent)));
        match self.inbox_dir.parent().filter(|_| self.is_session()) {
            Some(folder) => Inbox::in_team_folder(&self.teams, path, &self.name, folder),
            None => Inbox::at(&self.teams, path),
        }
    }

    /// Every member: the roster's names in order, then agents that only have an inbox file
    /// (such as a FileBox user bridged into the team).
    pub fn member_names(&self) -> Result<Vec<String>, TeamError> {
        let mut members: Vec<String> = self
            .config()?
            .map(|file| file.members.into_iter().map(|m| m.name).collect())
            .unwrap_or_default();
        let known: BTreeSet<String> = members.iter().map(|m| names::path_component(m)).collect();
        let mut extra: Vec<String> = match fs::read_dir(&self.inbox_dir) {
            Ok(entries) => entries
                .filter_map(Result::ok)
                .filter_map(|e| {
                    let name = e.file_name().to_string_lossy().into_owned();
                    let stem = name.strip_suffix(".json")?;
                    (!stem.starts_with('.') && !known.contains(stem)).then(|| stem.to_owned())
                })
                .collect(),
            Err(e) if e.kind() == io::ErrorKind::NotFound => Vec::new(),
            Err(source) => {
                return Err(TeamError::Io {
                    path: self.inbox_dir.clone(),
                    source,
                });
            }
        };
        extra.sort();
        members.extend(extra);
        Ok(members)
    }
}

fn read_team_file(teams: &Path, path: &Path) -> Result<TeamFile, TeamError> {
    let bytes = team_file::read(teams, path)?.ok_or_else(|| TeamError::Io {
        path: path.to_path_buf(),
        source: io::ErrorKind::NotFound.into(),
    })?;
    serde_json::from_slice(&bytes).map_err(|e| TeamError::Config {
        path: path.to_path_buf(),
        reason: e.to_string(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_upper_case_team_has_its_config_and_inboxes_in_two_folders() {
        let dir = tempfile::tempdir().unwrap();
        let teams = Teams::new(dir.path());
        let team = teams.team("My_Team");
        assert_eq!(
            team.config_path,
            dir.path().join("teams/my-team/config.json")
        );
        assert_eq!(team.inbox_dir, dir.path().join("teams/My_Team/inboxes"));
        fs::create_dir_all(team.config_path.parent().unwrap()).unwrap();
        fs::write(
            &team.config_path,
            r#"{"name":"My_Team","createdAt":1,"leadAgentId":"team-lead@My_Team","members":[{"agentId":"team-lead@My_Team","name":"team-lead","joinedAt":1,"tmuxPaneId":"","cwd":"/w","subscriptions":[]}]}"#,
        )
        .unwrap();
        team.inbox("alice")
            .append(&[crate::team_inbox::TeammateMessage::new("team-lead", "hi")])
            .unwrap();
        let listed = teams.list().unwrap();
        assert_eq!(listed, vec![team.clone()]);
        assert_eq!(team.member_names().unwrap(), ["team-lead", "alice"]);
    }
}
