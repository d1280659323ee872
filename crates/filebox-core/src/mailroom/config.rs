//! The configuration: a JSON file (`current_agent_id`, `agents: {id: {mailbox_path}}`),
//! with optional groups and limits; how it is found, and how it is changed safely.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};

use serde::{Deserialize, Serialize};

use crate::agent::AgentId;
use crate::choice::AgentKind;
use crate::error::{Error, Result};
use crate::mailbox::Mailbox;
use crate::store;

/// The name of the per-project folder that holds a config.
pub const PROJECT_DIR: &str = ".filebox";
/// The config file's name in that folder and in the user's config folder.
pub const FILE_NAME: &str = "config.json";
/// The folder, beside the config, of the stand-in mailboxes of agents on other machines
/// (entries with a `hub` or an `a2a` and no `mailbox_path`).
pub const REMOTE_DIR: &str = "remote";
/// The agent entry field naming the machine (federated hub) an agent lives on.
pub const HUB_FIELD: &str = "hub";
/// The agent entry field naming a remote A2A agent (`{"url": ..., "token": ...}`) that mail
/// to this agent is handed to.
pub const A2A_FIELD: &str = "a2a";
/// The default limit on a message body: 10 MiB.
pub const DEFAULT_MAX_BODY_BYTES: usize = 10 * 1024 * 1024;
/// The default bound on how long `ask_question` and `task_finish` may block: one hour.
pub const DEFAULT_MAX_QUESTION_TIMEOUT_SECS: u64 = 3600;

/// One agent's (or human's) entry.
#[derive(Debug, Clone, PartialEq, Serialize, Deserialize)]
pub struct AgentEntry {
    /// The mailbox root; a relative path resolves against the project folder (the one holding
    /// `.filebox/`) for a project config, else against the config file's folder. An agent on
    /// another machine (`"hub": "ci-1"`) may leave it out: its local stand-in mailbox is then
    /// `remote/<id>` beside the config (see [`REMOTE_DIR`]).
    #[serde(default, skip_serializing_if = "is_unset")]
    pub mailbox_path: PathBuf,
    /// `agent` (when absent) or `human`.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub kind: Option<AgentKind>,
    /// Fields this version does not know, kept on rewrite.
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl AgentEntry {
    /// The federated hub this agent lives on, when it is on another machine.
    pub fn hub(&self) -> Option<&str> {
        self.extra
            .get(HUB_FIELD)
            .and_then(serde_json::Value::as_str)
            .filter(|hub| !hub.is_empty())
    }

    /// The remote A2A agent this entry stands for, when it names one (`"a2a": {"url"}`).
    pub fn a2a(&self) -> Option<A2aRemote> {
        self.extra
            .get(A2A_FIELD)
            .and_then(|value| serde_json::from_value::<A2aRemote>(value.clone()).ok())
            .filter(|remote| !remote.url.is_empty())
    }

    /// Whether this agent lives elsewhere (another machine's hub, or a remote A2A agent): its
    /// mailbox here is a stand-in whose inbox is the outgoing spool.
    pub fn is_stand_in(&self) -> bool {
        self.hub().is_some() || self.a2a().is_some()
    }

    /// A remote A2A agent: no mailbox path (its stand-in mailbox is `remote/<id>` beside the
    /// config).
    pub fn of_a2a(remote: &A2aRemote) -> AgentEntry {
        let mut entry = AgentEntry::new(PathBuf::new());
        entry.set_a2a(Some(remote));
        entry
    }

    /// Name the remote A2A agent this entry stands for, or (`None`) none.
    pub fn set_a2a(&mut self, remote: Option<&A2aRemote>) {
        match remote.and_then(|r| serde_json::to_value(r).ok()) {
            Some(value) => self.extra.insert(A2A_FIELD.to_owned(), value),
            None => self.extra.remove(A2A_FIELD),
        };
    }

    /// An agent living on another machine's hub: no mailbox path (its stand-in mailbox is
    /// `remote/<id>` beside the config).
    pub fn on_hub(hub: &str) -> AgentEntry {
        let mut entry = AgentEntry::new(PathBuf::new());
        entry.extra.insert(HUB_FIELD.to_owned(), hub.into());
        entry
    }

    /// An entry with only a mailbox path (an agent, no other settings).
    pub fn new(mailbox_path: PathBuf) -> AgentEntry {
        AgentEntry {
            mailbox_path,
            kind: None,
            extra: BTreeMap::new(),
        }
    }
}

/// A remote A2A agent an entry stands for: its base URL (the card is at
/// `URL/.well-known/agent-card.json`) and the bearer token it takes, if any.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct A2aRemote {
    pub url: String,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub token: Option<String>,
}

/// The whole file.
#[derive(Debug, Clone, Default, PartialEq, Serialize, Deserialize)]
pub struct ConfigFile {
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub current_agent_id: Option<AgentId>,
    #[serde(default)]
    pub agents: BTreeMap<AgentId, AgentEntry>,
    /// Named groups, addressed as `@name`.
    #[serde(default, skip_serializing_if = "BTreeMap::is_empty")]
    pub groups: BTreeMap<String, Vec<AgentId>>,
    /// Largest accepted message body in bytes (default 10 MiB).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_body_bytes: Option<usize>,
    /// Longest wait for a human's answer a tool call may ask for, in seconds (default 3600).
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub max_question_timeout_secs: Option<u64>,
    #[serde(flatten)]
    pub extra: BTreeMap<String, serde_json::Value>,
}

impl ConfigFile {
    /// Point `agent` at `mailbox`, adding the agent if it is new; an existing entry keeps its
    /// other fields (kind, and whatever this version does not know: tokens, runner, ...).
    pub fn set_mailbox(&mut self, agent: &AgentId, mailbox: PathBuf) {
        match self.agents.get_mut(agent) {
            Some(entry) => entry.mailbox_path = mailbox,
            None => {
                self.agents.insert(agent.clone(), AgentEntry::new(mailbox));
            }
        }
    }
}

/// A config file and where it lives.
#[derive(Debug, Clone)]
pub struct Config {
    pub path: PathBuf,
    pub file: ConfigFile,
}

impl Config {
    /// Read and validate a config file.
    pub fn load(path: &Path) -> Result<Config> {
        let bytes = std::fs::read(path).map_err(|e| Error::Config {
            path: path.to_owned(),
            reason: e.to_string(),
        })?;
        Config::parse(path, &bytes)
    }

    /// Validate the bytes of the config file at `path`.
    pub(crate) fn parse(path: &Path, bytes: &[u8]) -> Result<Config> {
        let file: ConfigFile = serde_json::from_slice(bytes).map_err(|e| Error::Config {
            path: path.to_owned(),
            reason: e.to_string(),
        })?;
        Ok(Config {
            path: path.to_owned(),
            file,
        })
    }

    /// Find the config: an explicit path (resolved against `cwd`, so a bare `config.json` is
    /// in the working directory and its folder is never the empty path), else the nearest
    /// `.filebox/config.json` from `cwd` upward, else the user's config folder.
    pub fn locate(explicit: Option<&Path>, cwd: &Path) -> Option<PathBuf> {
        if let Some(path) = explicit {
            return Some(absolute(path, cwd));
        }
        Config::locate_project(cwd).or_else(|| user_config_path().filter(|p| p.is_file()))
    }

    /// The nearest `.filebox/config.json` from `cwd` upward.
    pub fn locate_project(cwd: &Path) -> Option<PathBuf> {
        cwd.ancestors()
            .map(|dir| dir.join(PROJECT_DIR).join(FILE_NAME))
            .find(|p| p.is_file())
    }

    /// Locate and load.
    pub fn discover(explicit: Option<&Path>, cwd: &Path) -> Result<Config> {
        let path = Config::locate(explicit, cwd).ok_or(Error::NoConfig)?;
        Config::load(&path)
    }

    /// Change the config file under a lock on its folder, so concurrent `init`/`agents add`
    /// lose nothing. A missing file (and folder) starts empty.
    pub fn update(
        path: &Path,
        change: impl FnOnce(&mut ConfigFile) -> Result<()>,
    ) -> Result<Config> {
        // The folder is the lock: a lock file beside the config would stay behind.
        let folder = path
            .parent()
            .filter(|p| !p.as_os_str().is_empty())
            .unwrap_or(Path::new("."));
        store::with_folder_lock(folder, || {
            let mut file = match std::fs::read(path) {
                Ok(bytes) => serde_json::from_slice(&bytes).map_err(|e| Error::Config {
                    path: path.to_owned(),
                    reason: e.to_string(),
                })?,
                Err(e) if e.kind() == std::io::ErrorKind::NotFound => ConfigFile::default(),
                Err(e) => return Err(Error::io(path, e)),
            };
            change(&mut file)?;
            let mut text = serde_json::to_string_pretty(&file).map_err(|e| Error::Config {
                path: path.to_owned(),
                reason: e.to_string(),
            })?;
            text.push('\n');
            store::write_file_atomic(path, text.as_bytes())?;
            Ok(Config {
                path: path.to_owned(),
                file,
            })
        })
    }

    /// The folder the config file is in (`.filebox/` for a project config).
    pub fn config_dir(&self) -> &Path {
        self.path.parent().unwrap_or(Path::new("."))
    }

    /// The folder relative paths in the config resolve against: for a project config
    /// (`PROJECT/.filebox/config.json`) the project folder, as a path given to `init` or
    /// `agents add` in that folder means; for any other config file, its own folder.
    pub fn base_dir(&self) -> &Path {
        let dir = self.config_dir();
        match dir.parent() {
            Some(project) if dir.file_name().is_some_and(|name| name == PROJECT_DIR) => project,
            _ => dir,
        }
    }

    /// An agent's entry.
    pub fn agent(&self, id: &AgentId) -> Result<&AgentEntry> {
        self.file
            .agents
            .get(id)
            .ok_or_else(|| Error::UnknownAgent(id.to_string()))
    }

    /// An agent's mailbox root, resolved and normalised (see [`absolute`]): its
    /// `mailbox_path`, else, for an agent on another machine or a remote A2A agent, its
    /// stand-in mailbox `remote/<id>` in the config's folder.
    pub fn mailbox_path(&self, id: &AgentId) -> Result<PathBuf> {
        let entry = self.agent(id)?;
        if !is_unset(&entry.mailbox_path) {
            return Ok(absolute(&entry.mailbox_path, self.base_dir()));
        }
        if entry.is_stand_in() {
            return Ok(self.config_dir().join(REMOTE_DIR).join(id.as_str()));
        }
        Err(Error::Config {
            path: self.path.clone(),
            reason: format!(
                "agent {id} has no mailbox_path (nor a \"hub\" it lives on, nor an \"a2a\" \
                 agent it stands for)"
            ),
        })
    }

    /// An agent's mailbox, opened to read: nothing created, nothing recovered.
    pub fn mailbox_to_read(&self, id: &AgentId) -> Result<Mailbox> {
        Mailbox::open_to_read(id.clone(), self.mailbox_path(id)?)
    }

    /// Every agent's mailbox that opens to read, with its agent; the others are skipped.
    pub fn readable_mailboxes(&self) -> impl Iterator<Item = (&AgentId, Mailbox)> {
        self.file
            .agents
            .keys()
            .filter_map(|id| Some((id, self.mailbox_to_read(id).ok()?)))
    }

    pub fn max_body_bytes(&self) -> usize {
        self.file.max_body_bytes.unwrap_or(DEFAULT_MAX_BODY_BYTES)
    }

    pub fn max_question_timeout_secs(&self) -> u64 {
        self.file
            .max_question_timeout_secs
            .unwrap_or(DEFAULT_MAX_QUESTION_TIMEOUT_SECS)
    }

    /// The current agent: the override, else `current_agent_id`; it must be in the config.
    pub fn current_agent(&self, override_id: Option<&AgentId>) -> Result<AgentId> {
        let id = override_id
            .or(self.file.current_agent_id.as_ref())
            .ok_or(Error::NoCurrentAgent)?;
        self.agent(id)?;
        Ok(id.clone())
    }
}

fn is_unset(path: &Path) -> bool {
    path.as_os_str().is_empty()
}

/// `$XDG_CONFIG_HOME/filebox/config.json`, else `~/.config/filebox/config.json`.
pub fn user_config_path() -> Option<PathBuf> {
    let base = std::env::var_os("XDG_CONFIG_HOME")
        .filter(|v| !v.is_empty())
        .map(PathBuf::from)
        .or_else(|| std::env::var_os("HOME").map(|h| PathBuf::from(h).join(".config")))?;
    Some(base.join("filebox").join(FILE_NAME))
}

/// Make a path absolute against `cwd` and normalise it without touching the file system:
/// `.` components are dropped and `..` removes the component before it, so
/// `/work/my-project/../dev-project/mailbox` is `/work/dev-project/mailbox`.
pub fn absolute(path: &Path, cwd: &Path) -> PathBuf {
    use std::path::Component;
    let joined = if path.is_absolute() {
        path.to_owned()
    } else {
        cwd.join(path)
    };
    let mut normal = PathBuf::new();
    for component in joined.components() {
        match component {
            Component::CurDir => {}
            Component::ParentDir => {
                // Above the root is the root; a path cannot start above `cwd` otherwise.
                if normal.file_name().is_some() {
                    normal.pop();
                } else if !normal.has_root() {
                    normal.push(component);
                }
            }
            other => normal.push(other),
        }
    }
    normal
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn absolute_paths_are_normalised() {
        let cwd = Path::new("/work/my-project");
        assert_eq!(
            absolute(Path::new("../dev-project/./docs/mailbox"), cwd),
            Path::new("/work/dev-project/docs/mailbox")
        );
        assert_eq!(absolute(Path::new("/a/b/../c"), cwd), Path::new("/a/c"));
        assert_eq!(absolute(Path::new("/../x"), cwd), Path::new("/x"));
    }

    #[test]
    fn a_project_config_resolves_relative_paths_against_the_project_folder() {
        let config = |path: &str| Config {
            path: PathBuf::from(path),
            file: ConfigFile::default(),
        };
        assert_eq!(
            config("/p/.filebox/config.json").base_dir(),
            Path::new("/p")
        );
        assert_eq!(
            config("/p/.filebox/config.json").config_dir(),
            Path::new("/p/.filebox")
        );
        assert_eq!(
            config("/home/u/.config/filebox/config.json").base_dir(),
            Path::new("/home/u/.config/filebox")
        );
        assert_eq!(config("/t/config.json").base_dir(), Path::new("/t"));
    }
}
