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

/// How a host lists the hooks of an event.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum HookShape {
    /// Matcher groups, each with its `hooks`: `{"hooks": [{"type": "command", "command": ..}]}`
    /// (Claude Code, Codex, Gemini CLI).
    Groups,
    /// The hooks themselves, in a file of `"version": 1`: `{"type": "command", "bash": ..}`
    /// (GitHub Copilot CLI's `.github/hooks/*.json`).
    Commands,
}

/// The hooks of a host: the file, the `filebox hook` flavour and the events.
#[derive(Debug, Clone, Copy)]
pub(crate) struct Hooks {
    pub(crate) file: HostFile,
    pub(crate) shape: HookShape,
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
    /// The server entry's `type`, for a host that asks for one (VS Code: `stdio`).
    pub(crate) server_type: Option<&'static str>,
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

/// A hook event that runs and returns (no background wake).
const fn event(name: &'static str) -> HookEvent {
    HookEvent {
        name,
        rewake_timeout: None,
    }
}

/// Every host, in the order `setup --check` reports them.
pub(crate) const HOSTS: &[Host] = &[
    Host {
        name: "claude-code",
        title: "Claude Code",
        mcp: file(Base::Project, ".mcp.json", Format::Jsonc),
        servers_key: "mcpServers",
        server_type: None,
        hooks: Some(Hooks {
            file: file(Base::Project, ".claude/settings.json", Format::Jsonc),
            shape: HookShape::Groups,
            flavour: "claude-code",
            events: &[
                event("SessionStart"),
                event("UserPromptSubmit"),
                HookEvent {
                    name: "Stop",
                    rewake_timeout: Some(STOP_HOOK_TIMEOUT),
                },
            ],
        }),
        next: "start `claude` in the project folder and approve the `filebox` server; a \
               tool-use prompt it relays to the human (`--channel`) is answered only on the \
               hub's page, with the human's token or by `filebox reply` on this machine, never \
               by a tokenless `POST /rpc` (docs/wake.md: what protects a permission answer)",
    },
    Host {
        name: "cursor",
        title: "Cursor",
        mcp: file(Base::Project, ".cursor/mcp.json", Format::Jsonc),
        servers_key: "mcpServers",
        server_type: None,
        hooks: None,
        next: "enable `filebox` in Cursor Settings > MCP",
    },
    Host {
        name: "codex",
        title: "Codex",
        // The project's own config (Codex 0.171 reads it in a trusted project, over the user's
        // `$CODEX_HOME/config.toml`): one user-wide entry would make every project's Codex
        // the agent of the last setup (issue 36).
        mcp: file(Base::Project, ".codex/config.toml", Format::Toml),
        servers_key: "mcp_servers",
        server_type: None,
        hooks: Some(Hooks {
            file: file(Base::Project, ".codex/hooks.json", Format::Jsonc),
            shape: HookShape::Groups,
            flavour: "codex",
            events: &[
                event("SessionStart"),
                event("UserPromptSubmit"),
                event("Stop"),
            ],
        }),
        next: "start `codex` in the project folder, trust the project (its .codex/config.toml \
               and hooks load only in a trusted project) and its hooks (/hooks)",
    },
    Host {
        name: "gemini",
        title: "Gemini CLI",
        mcp: file(Base::Project, ".gemini/settings.json", Format::Jsonc),
        servers_key: "mcpServers",
        server_type: None,
        hooks: Some(Hooks {
            file: file(Base::Project, ".gemini/settings.json", Format::Jsonc),
            shape: HookShape::Groups,
            flavour: "gemini",
            events: &[
                event("SessionStart"),
                event("BeforeAgent"),
                event("AfterAgent"),
            ],
        }),
        next: "start `gemini` in the project folder and trust it (a project's servers and hooks \
               load only in a trusted folder)",
    },
    Host {
        name: "copilot",
        title: "GitHub Copilot CLI",
        // A workspace file, so each project keeps its agent (the user's file is
        // `~/.copilot/mcp-config.json`).
        mcp: file(Base::Project, ".github/mcp.json", Format::Jsonc),
        servers_key: "mcpServers",
        server_type: None,
        hooks: Some(Hooks {
            file: file(Base::Project, ".github/hooks/filebox.json", Format::Jsonc),
            shape: HookShape::Commands,
            flavour: "copilot",
            // PascalCase: Copilot then sends the snake_case input Claude Code's hooks get.
            events: &[
                event("SessionStart"),
                event("UserPromptSubmit"),
                event("Stop"),
            ],
        }),
        next: "start `copilot` in the project folder and trust it (a workspace's servers and \
               hooks load only in a trusted folder)",
    },
    Host {
        name: "vscode",
        title: "VS Code",
        mcp: file(Base::Project, ".vscode/mcp.json", Format::Jsonc),
        servers_key: "servers",
        server_type: Some("stdio"),
        hooks: None,
        next: "open the folder in VS Code and start `filebox` (MCP: List Servers)",
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
        server_type: None,
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
        server_type: None,
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
        server_type: None,
        hooks: None,
        next: "refresh the MCP servers in Windsurf's Cascade panel",
    },
    Host {
        name: "augment",
        title: "Augment (Auggie CLI)",
        mcp: file(Base::Home, ".augment/settings.json", Format::Jsonc),
        servers_key: "mcpServers",
        server_type: None,
        hooks: None,
        next: "start `auggie` in the project folder (/mcp lists `filebox`)",
    },
    Host {
        name: "trae",
        title: "Trae",
        mcp: file(Base::Project, ".trae/mcp.json", Format::Jsonc),
        servers_key: "mcpServers",
        server_type: None,
        hooks: None,
        next: "enable project MCP in Trae's settings and reload",
    },
];

/// The host named `name`.
/// The host names, for the command line's value parser.
pub(crate) fn host_names() -> Vec<&'static str> {
    HOSTS.iter().map(|host| host.name).collect()
}

pub(crate) fn find(name: &str) -> Option<&'static Host> {
    HOSTS.iter().find(|host| host.name == name)
}

/// The folders a [`Base`] stands for.
#[derive(Debug, Clone)]
pub(crate) struct Places {
    pub(crate) project: PathBuf,
    pub(crate) home: PathBuf,
}

impl Places {
    /// The folders for `project`, from the environment (`HOME`).
    pub(crate) fn new(project: PathBuf) -> anyhow::Result<Self> {
        let home = std::env::var_os("HOME")
            .filter(|home| !home.is_empty())
            .map(PathBuf::from)
            .ok_or_else(|| anyhow::anyhow!("HOME is not set: cannot find the hosts' files"))?;
        Ok(Self { project, home })
    }

    /// Where `file` is.
    fn path(&self, file: &HostFile) -> PathBuf {
        let base: &Path = match file.base {
            Base::Project => &self.project,
            Base::Home => &self.home,
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
            Base::Home | Base::AppConfig => path.parent().unwrap_or(&self.home).to_owned(),
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
