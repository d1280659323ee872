//! Where Claude Code keeps teams, and its two name sanitizers, mirrored exactly: inbox paths
//! use `sanitizePathComponent` (case kept), the team's `config.json` folder `sanitizeName`
//! (lower case), so one team name can map to two different folders.

use std::path::{Path, PathBuf};

/// The lead's name in every team (Claude Code's `TEAM_LEAD_NAME`).
pub const TEAM_LEAD: &str = "team-lead";

/// The team Claude Code falls back to when none is named.
pub const DEFAULT_TEAM: &str = "default";

/// What a session team's name starts with (Claude Code 2.1.178 and later: one implicit team
/// per session, `session-` and the first 8 characters of the session id).
pub const SESSION_TEAM_PREFIX: &str = "session-";

/// The team a teammate's Claude Code names in its environment.
pub const TEAM_NAME_VARIABLE: &str = "CLAUDE_CODE_TEAM_NAME";
/// The session id Claude Code gives the commands it runs.
pub const SESSION_ID_VARIABLE: &str = "CLAUDE_CODE_SESSION_ID";

/// The session team of a session: `session-` and the id's first 8 characters.
pub fn session_team(session_id: &str) -> String {
    let start: String = session_id.trim().chars().take(8).collect();
    format!("{SESSION_TEAM_PREFIX}{start}")
}

/// Whether a team name is a session team's (which lives only as long as its session): a
/// session id is a UUID, so its first 8 characters are lower-case hex digits.
pub fn is_session_team(name: &str) -> bool {
    name.strip_prefix(SESSION_TEAM_PREFIX).is_some_and(|rest| {
        rest.len() == 8
            && rest
                .bytes()
                .all(|b| b.is_ascii_digit() || (b'a'..=b'f').contains(&b))
    })
}

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

/// A non-blank environment variable.
pub(super) fn variable(name: &str) -> Option<String> {
    std::env::var(name).ok().filter(|v| !v.trim().is_empty())
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

    #[test]
    fn session_teams_are_named_after_their_session() {
        let name = session_team("1a2b3c4d-5e6f-4a7b-8c9d-0e1f2a3b4c5d");
        assert_eq!(name, "session-1a2b3c4d");
        assert!(is_session_team(&name));
        assert_eq!(team_config_folder(&name), path_component(&name));
        assert!(!is_session_team("session-planning"));
        assert!(!is_session_team("my-team"));
    }
}
