//! The host table: for each tool `filebox setup` knows, where its MCP servers are configured
//! (file, format, key) and, for hosts with hooks, where the hooks go and for which events.
//! Locations as each host documents them (README, "Set up a host").

use std::path::{Path, PathBuf};

use filebox_core::confined::ConfinedFile;

/// How a config file is written.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Format {
    /// JSON, comments and trailing commas allowed (VS Code-style hosts write JSONC).
    Jsonc,
    Toml,
}

/// Where a path in the table starts.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Base {
    /// The project folder: where the host is started, and `filebox setup` runs.
    Project,
    /// The home folder.
    Home,
    /// The per-user application folder: `~/.config` (Linux), `~/Library/Application Support`
    /// (macOS).
    AppConfig,
    /// `$CODEX_HOME`, else `~/.codex`.
    CodexHome,
}

/// A config file of a host.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HostFile {
    pub(crate) base: Base,
    pub(crate) path: &'static str,
    pub(crate) format: Format,
}

/// A hook event a host runs `filebox hook` for.
#[derive(Debug, Clone, Copy)]
pub(crate) struct HookEvent {
    pub(crate) name: &'static str,
    /// Run in the background and wake the idle session when it exits 2 (Claude Code's
    /// `async` + `asyncRewake`), with this hook timeout in seconds.
    pub(crate) rewake_timeout: Option<u64>,
}

/// The hooks of a host: the file, the `filebox hook` flavour and the events.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hooks {
    pub(crate) file: HostFile,
    /// `filebox hook FLAVOUR`.
    pub(crate) flavour: &'static str,
    pub(crate) events: &'static [HookEvent],
}

/// A tool `filebox setup` configures.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Host {
    /// The name on the command line.
    pub(crate) name: &'static str,
    /// The name people know.
    pub(crate) title: &'static str,
    pub(crate) mcp: HostFile,
    /// The key holding the servers by name.
    pub(crate) servers_key: &'static str,
    pub(crate) hooks: Option<Hooks>,
    /// What to do once the files are written.
    pub(crate) next: &'static str,
}

/// How long a waiting Stop hook waits for mail before it ends quietly (seconds), and the
/// hook timeout Claude Code is given for it (a minute more, so the hook ends first).
pub(crate) const STOP_WAIT_SECONDS: u64 = 3600;
const STOP_HOOK_TIMEOUT: u64 = STOP_WAIT_SECONDS + 60;

const fn file(base: Base, path: &'static str, format: Format) -> HostFile {
    HostFile { base, path, format }
}

/// Every host, in the order `setup --check` reports them.
pub(crate) const HOSTS: &[Host] = &[
    Host {
        name: "claude-code",
        title: "Claude Code",
        mcp: file(Base::Project, ".mcp.json", Format::Jsonc),
        servers_key: "mcpServers",
        hooks: Some(Hooks {
            file: file(Base::Project, ".claude/settings.json", Format::Jsonc),
            flavour: "claude-code",
            events: &[
                HookEvent {
                    name: "SessionStart",
                    rewake_timeout: None,
                },
                HookEvent {
                    name: "UserPromptSubmit",
                    rewake_timeout: None,
                },
                HookEvent {
                    name: "Stop",
                    rewake_timeout: Some(STOP_HOOK_TIMEOUT),
                },
            ],
        }),
        next: "start `claude` in the project folder and approve the `filebox` server",
    },
    Host {
        name: "cursor",
        title: "Cursor",
        mcp: file(Base::Project, ".cursor/mcp.json", Format::Jsonc),
        servers_key: "mcpServers",
        hooks: None,
        next: "enable `filebox` in Cursor Settings > MCP",
    },
    Host {
        name: "codex",
        title: "Codex",
        mcp: file(Base::CodexHome, "config.toml", Format::Toml),
        servers_key: "mcp_servers",
        hooks: Some(Hooks {
            file: file(Base::Project, ".codex/hooks.json", Format::Jsonc),
            flavour: "codex",
            events: &[
                HookEvent {
                    name: "SessionStart",
                    rewake_timeout: None,
                },
                HookEvent {
                    name: "UserPromptSubmit",
                    rewake_timeout: None,
                },
                HookEvent {
                    name: "Stop",
                    rewake_timeout: None,
                },
            ],
        }),
        next: "start `codex` in the project folder and trust its hooks (/hooks)",
    },
    Host {
        name: "claude-desktop",
        title: "Claude Desktop",
        mcp: file(
            Base::AppConfig,
            "Claude/claude_desktop_config.json",
            Format::Jsonc,
        ),
        servers_key: "mcpServers",
        hooks: None,
        next: "restart Claude Desktop",
    },
    Host {
        name: "cline",
        title: "Cline",
        mcp: file(
            Base::AppConfig,
            "Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
            Format::Jsonc,
        ),
        servers_key: "mcpServers",
        hooks: None,
        next: "reload VS Code; Cline lists `filebox` under MCP Servers",
    },
    Host {
        name: "windsurf",
        title: "Windsurf",
        mcp: file(
            Base::Home,
            ".codeium/windsurf/mcp_config.json",
            Format::Jsonc,
        ),
        servers_key: "mcpServers",
        hooks: None,
        next: "refresh the MCP servers in Windsurf's Cascade panel",
    },
    Host {
        name: "augment",
        title: "Augment (Auggie CLI)",
        mcp: file(Base::Home, ".augment/settings.json", Format::Jsonc),
        servers_key: "mcpServers",
        hooks: None,
        next: "start `auggie` in the project folder (/mcp lists `filebox`)",
    },
    Host {
        name: "trae",
        title: "Trae",
        mcp: file(Base::Project, ".trae/mcp.json", Format::Jsonc),
        servers_key: "mcpServers",
        hooks: None,
        next: "enable project MCP in Trae's settings and reload",
    },
];

/// The host named `name`.
pub(crate) fn find(name: &str) -> Option<&'static Host> {
    HOSTS.iter().find(|host| host.name == name)
}

/// The folders a [`Base`] stands for.
#[derive(Debug, Clone)]
pub(crate) struct Places {
    pub(crate) project: PathBuf,
    pub(crate) home: PathBuf,
    pub(crate) codex_home: PathBuf,
}

impl Places {
    /// The folders for `project`, from the environment (`HOME`, `CODEX_HOME`).
    pub(crate) fn new(project: PathBuf) -> anyhow::Result<Self> {
        let home = std::env::var_os("HOME")
            .filter(|home| !home.is_empty())
            .map(PathBuf::from)
            .ok_or_else(|| anyhow::anyhow!("HOME is not set: cannot find the hosts' files"))?;
        let codex_home = std::env::var_os("CODEX_HOME")
            .filter(|dir| !dir.is_empty())
            .map(PathBuf::from)
            .unwrap_or_else(|| home.join(".codex"));
        Ok(Self {
            project,
            home,
            codex_home,
        })
    }

    /// Where `file` is.
    fn path(&self, file: &HostFile) -> PathBuf {
        let base: &Path = match file.base {
            Base::Project => &self.project,
            Base::Home => &self.home,
            Base::CodexHome => &self.codex_home,
            Base::AppConfig if cfg!(target_os = "macos") => {
                return self
                    .home
                    .join("Library/Application Support")
                    .join(file.path);
            }
            Base::AppConfig => return self.home.join(".config").join(file.path),
        };
        base.join(file.path)
    }

    /// `file`, confined beneath the folder setup trusts for it: a project file beneath the
    /// project (a checkout someone else wrote: no link at any folder below it is followed); a
    /// user-scope file beneath the host's own folder, as the home has it (a dotfile manager may
    /// link that folder), the file itself never followed.
    pub(crate) fn confined(&self, file: &HostFile) -> ConfinedFile {
        let path = self.path(file);
        let root = match file.base {
            Base::Project => self.project.clone(),
            Base::Home | Base::AppConfig | Base::CodexHome => {
                path.parent().unwrap_or(&self.home).to_owned()
            }
        };
        ConfinedFile::new(root, path)
    }

    /// `path` as shown: relative to the project when inside it, else whole.
    pub(crate) fn show(&self, path: &Path) -> String {
        path.strip_prefix(&self.project)
            .unwrap_or(path)
            .display()
            .to_string()
    }
}
