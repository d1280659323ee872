//! Who may do what: the one access policy every surface asks (JSON-RPC, SSE, `/mcp` and stdio
//! MCP, Connect, the page and its attachments, the Unix socket). A surface turns its
//! credentials into a [`Caller`], asks it for a mailroom to act in ([`Caller::act_as`]) or
//! whether a mailbox is within its reach, and turns a [`Denied`] into its own wire form; no
//! surface checks a token or a mailbox's visibility by itself.
//!
//! The rule: a bearer token names its agent (only the token's SHA-256 is in the config) and
//! then acts as, and looks into, that agent's mailbox only; a caller without a token acts as,
//! and looks into, the mailboxes that have no token; the owner of the files (a command run by
//! the user, the hub's own runners, webhooks and federation) reaches everything. What a caller
//! looks into bounds the core's [`Reach`]: threads, search, forks and agent counts keep to it.

use filebox_core::{AgentEntry, AgentId, Config, Mailroom, Reach};
use sha2::{Digest, Sha256};

/// The agent entry field that holds the SHA-256 (hex) of its token.
pub const TOKEN_FIELD: &str = "token_sha256";

/// Who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// The owner of the files: acts for anyone, looks into every mailbox.
    Owner,
    /// No token: acts for, and looks into, the agents that have no token.
    Anonymous,
    /// A valid token: acts for, and looks into, its agent only.
    Agent(AgentId),
}

/// Why a caller may not do what it asked.
#[derive(Debug, thiserror::Error)]
pub enum Denied {
    /// An `Authorization` header that is not `Bearer <token>`.
    #[error("Authorization must be `Bearer <token>`")]
    MalformedAuthorization,
    /// A token no agent of the config has.
    #[error("unknown token (see `filebox agents token`)")]
    UnknownToken,
    /// No token, for an agent that has one.
    #[error("{0} has a token: send `Authorization: Bearer <token>`")]
    TokenRequired(AgentId),
    /// A token used for another agent.
    #[error("this token acts as {mine}, not as {wanted}")]
    OtherAgent { mine: AgentId, wanted: AgentId },
    /// The agent named is not valid or not in the config.
    #[error(transparent)]
    Agent(#[from] filebox_core::Error),
}

impl Denied {
    /// Whether the caller did not prove who it is (HTTP 401), rather than proving it is
    /// someone else (403).
    pub fn is_unauthenticated(&self) -> bool {
        matches!(
            self,
            Denied::MalformedAuthorization | Denied::UnknownToken | Denied::TokenRequired(_)
        )
    }
}

impl Caller {
    /// The caller of a request with this `Authorization` header value, if any.
    pub fn from_authorization(config: &Config, header: Option<&str>) -> Result<Caller, Denied> {
        let Some(value) = header else {
            return Ok(Caller::Anonymous);
        };
        let token = value
            .strip_prefix("Bearer ")
            .map(str::trim)
            .filter(|token| !token.is_empty())
            .ok_or(Denied::MalformedAuthorization)?;
        Caller::from_token(config, token)
    }

    /// The caller of a token (as `filebox agents token` printed it).
    pub fn from_token(config: &Config, token: &str) -> Result<Caller, Denied> {
        let hash = sha256_hex(token);
        config
            .file
            .agents
            .iter()
            .find(|(_, entry)| token_sha256(entry).is_some_and(|h| constant_time_eq(h, &hash)))
            .map(|(id, _)| Caller::Agent(id.clone()))
            .ok_or(Denied::UnknownToken)
    }

    /// The caller a server that serves one agent speaks for (stdio MCP, the hub's `/mcp`
    /// once its token check passed): that agent when it has a token, else a caller without one.
    pub fn serving(config: &Config, agent: &AgentId) -> Caller {
        match config.file.agents.get(agent).and_then(token_sha256) {
            Some(_) => Caller::Agent(agent.clone()),
            None => Caller::Anonymous,
        }
    }

    /// The mailroom of a server that serves one agent: acting as it, reaching what it may.
    pub fn serve(config: &Config, agent: &AgentId) -> Result<Mailroom, Denied> {
        Caller::serving(config, agent).act_as(config, agent)
    }

    /// The agent of a token, if any.
    pub fn agent(&self) -> Option<&AgentId> {
        match self {
            Caller::Agent(id) => Some(id),
            Caller::Owner | Caller::Anonymous => None,
        }
    }

    /// Whether this caller may act as `agent` and look into its mailbox.
    pub fn check(&self, config: &Config, agent: &AgentId) -> Result<(), Denied> {
        let entry = config.agent(agent)?;
        match self {
            Caller::Agent(mine) if mine != agent => Err(Denied::OtherAgent {
                mine: mine.clone(),
                wanted: agent.clone(),
            }),
            Caller::Anonymous if token_sha256(entry).is_some() => {
                Err(Denied::TokenRequired(agent.clone()))
            }
            _ => Ok(()),
        }
    }

    /// The mailroom of `agent`, bounded to this caller's reach, if it may act as `agent`.
    pub fn act_as(&self, config: &Config, agent: &AgentId) -> Result<Mailroom, Denied> {
        self.check(config, agent)?;
        Ok(Mailroom::new(config.clone(), Some(agent))?.within(self.reach(config)))
    }

    /// The mailboxes this caller looks into.
    pub fn reach(&self, config: &Config) -> Reach {
        match self {
            Caller::Owner => Reach::Everywhere,
            Caller::Anonymous | Caller::Agent(_) => Reach::Only(self.visible(config).collect()),
        }
    }

    /// The agents of the config whose mailboxes this caller looks into.
    pub fn visible<'c>(&'c self, config: &'c Config) -> impl Iterator<Item = AgentId> + 'c {
        config
            .file
            .agents
            .keys()
            .filter(|agent| self.check(config, agent).is_ok())
            .cloned()
    }
}

/// The SHA-256 (hex) of an agent's bearer token, when it has one.
pub fn token_sha256(entry: &AgentEntry) -> Option<&str> {
    entry
        .extra
        .get(TOKEN_FIELD)
        .and_then(serde_json::Value::as_str)
        .filter(|hash| !hash.is_empty())
}

/// A new random token: 32 bytes from the OS, hex.
pub fn new_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(hex(&bytes))
}

/// The SHA-256 of a token, hex, as the config keeps it.
pub fn sha256_hex(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compare without an early exit, so timing tells nothing about how much of a hash matched.
fn constant_time_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tokens_are_random_and_hash_to_hex() {
        let a = new_token().unwrap();
        assert_eq!(a.len(), 64);
        assert_ne!(a, new_token().unwrap());
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(constant_time_eq("ab", "ab"));
        assert!(!constant_time_eq("ab", "ac"));
        assert!(!constant_time_eq("ab", "abc"));
    }
}
