//! Where Claude Code keeps its teams, for the team verbs (`list_teams`, `team_inbox`,
//! `read_team_inbox`, `send_team_message`).
//!
//! Their `claude_dir` argument is not one of the JSON surfaces' (MCP, JSON-RPC:
//! `#[serde(skip)]`): they use `CLAUDE_CONFIG_DIR`, else `~/.claude`, as Claude Code does; the
//! CLI's `--claude-dir` sets it.

use std::path::{Path, PathBuf};

use filebox_bridge::team_inbox::names;
use filebox_core::{Error, Result};

/// The Claude config folder: the caller's (CLI `--claude-dir`), else `CLAUDE_CONFIG_DIR`,
/// else `~/.claude`.
pub(crate) fn claude_dir(explicit: Option<&Path>) -> Result<PathBuf> {
    names::claude_dir(explicit).ok_or_else(|| Error::Config {
        path: PathBuf::from("~/.claude"),
        reason: "no Claude config folder: set CLAUDE_CONFIG_DIR (or pass --claude-dir)".into(),
    })
}
