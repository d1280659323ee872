//! `AgentId`: a validated agent name, safe to use as a config key and in messages.

use std::fmt;

use crate::error::{Error, Result};

/// The longest agent id accepted.
const MAX_LEN: usize = 64;

/// An agent id: 1–64 characters of ASCII letters, digits, `_`, `-` and `.`, starting with a
/// letter or digit; or `name@domain`, two such parts, for agents reached through a bridge
/// (`researcher@my-team` is a Claude Code teammate). No separators, no `..`, no control
/// characters: it is safe in a path.
#[derive(
    Debug, Clone, PartialEq, Eq, PartialOrd, Ord, Hash, serde::Serialize, serde::Deserialize,
)]
#[serde(try_from = "String", into = "String")]
pub struct AgentId(String);

impl AgentId {
    /// Parse an agent id from a caller.
    pub fn new(value: &str) -> Result<Self> {
        let reason = match value.split_once('@') {
            Some((name, domain)) if value.len() <= MAX_LEN => {
                part_problem(name).or_else(|| part_problem(domain))
            }
            _ => part_problem(value),
        };
        match reason {
            Some(reason) => Err(Error::invalid("agent id", value, reason)),
            None => Ok(AgentId(value.to_owned())),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }
}

/// Why one part of an id is not acceptable.
fn part_problem(value: &str) -> Option<&'static str> {
    if value.is_empty() {
        Some("it is empty")
    } else if value.len() > MAX_LEN {
        Some("it is longer than 64 characters")
    } else if !value.starts_with(|c: char| c.is_ascii_alphanumeric()) {
        Some("it must start with a letter or digit")
    } else if value.contains("..") {
        Some("it must not contain `..`")
    } else if !value
        .chars()
        .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-' | '.'))
    {
        Some("only ASCII letters, digits, `_`, `-`, `.` and one `@` between two names are allowed")
    } else {
        None
    }
}

impl fmt::Display for AgentId {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl TryFrom<String> for AgentId {
    type Error = Error;
    fn try_from(value: String) -> Result<Self> {
        AgentId::new(&value)
    }
}

impl From<AgentId> for String {
    fn from(id: AgentId) -> String {
        id.0
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn accepts_agent_names_and_rejects_path_tricks() {
        for ok in ["AI_Tool_A", "qa", "dev-1", "boom.ui", "researcher@Boom_UI"] {
            assert!(AgentId::new(ok).is_ok(), "{ok}");
        }
        for bad in [
            "", "../etc", "a/b", "a\\b", ".hidden", "a..b", "x\ny", "名字", "@all", "a@", "a@b@c",
            "a@../x", "a@.b",
        ] {
            assert!(AgentId::new(bad).is_err(), "{bad:?}");
        }
    }
}
