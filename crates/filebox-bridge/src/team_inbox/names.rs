//! Where Claude Code keeps teams, and its two name sanitizers, mirrored exactly: inbox paths
//! use `sanitizePathComponent` (case kept), the team's `config.json` folder `sanitizeName`
//! (lower case), so one team name can map to two different folders.

use std::path::{Path, PathBuf};

/// The lead's name in every team (Claude Code's `TEAM_LEAD_NAME`).
pub const TEAM_LEAD: &str = "team-lead";

/// The team Claude Code falls back to when none is named.
pub const DEFAULT_TEAM: &str = "default";

/// `sanitizePathComponent`: every character but ASCII letters, digits, `_` and `-` becomes `-`.
/// Used for the inbox folder's team part and for each agent's inbox file name.
pub fn path_component(name: &str) -> String {
    replace_others(name, |c| c.is_ascii_alphanumeric() || c == '_' || c == '-')
}

/// `sanitizeName`: every character but ASCII letters and digits becomes `-`, then lower case.
/// Used for the folder that holds the team's `config.json`.
pub fn team_config_folder(name: &str) -> String {
    replace_others(name, |c| c.is_ascii_alphanumeric()).to_ascii_lowercase()
}

/// A JavaScript `replace(/[^...]/g, "-")`: it works on UTF-16 code units, so a character
/// outside the Basic Multilingual Plane (an emoji) becomes two dashes.
fn replace_others(name: &str, keep: impl Fn(char) -> bool) -> String {
    let mut out = String::with_capacity(name.len());
    for c in name.chars() {
        if keep(c) {
            out.push(c);
        } else {
            out.extend(std::iter::repeat_n('-', c.len_utf16()));
        }
    }
    out
}

/// The Claude config folder: `explicit` (`--claude-dir`), else `CLAUDE_CONFIG_DIR`, else
/// `~/.claude`. `None` when none is given and there is no home folder.
pub fn claude_dir(explicit: Option<&Path>) -> Option<PathBuf> {
    if let Some(dir) = explicit {
        return Some(dir.to_path_buf());
    }
    if let Some(dir) = std::env::var_os("CLAUDE_CONFIG_DIR").filter(|d| !d.is_empty()) {
        return Some(PathBuf::from(dir));
    }
    std::env::var_os("HOME")
        .filter(|h| !h.is_empty())
        .map(|home| PathBuf::from(home).join(".claude"))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_two_sanitizers_differ_as_claude_codes_do() {
        assert_eq!(path_component("My_Team.v2"), "My_Team-v2");
        assert_eq!(team_config_folder("My_Team.v2"), "my-team-v2");
        assert_eq!(path_component("../etc"), "---etc");
        assert_eq!(path_component("研究员"), "---");
        assert_eq!(team_config_folder("team-lead"), "team-lead");
        assert_eq!(path_component("a🙂b"), "a--b");
    }
}
