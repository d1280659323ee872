//! Who is calling: a bearer token names its agent (only its SHA-256 is in the config);
//! a caller without one may act for agents that have no token, like the CLI.

use filebox_core::{AgentId, Config, Mailroom};
use sha2::{Digest, Sha256};

use crate::rpc::RpcError;
use crate::settings::token_sha256;

/// The caller of one request.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Caller {
    /// No token: may act for any agent that has none.
    Anonymous,
    /// A valid token: acts only as this agent.
    Agent(AgentId),
}

impl Caller {
    /// The caller of a request with this `Authorization` header value (if any).
    pub(crate) fn from_authorization(
        config: &Config,
        header: Option<&str>,
    ) -> Result<Caller, RpcError> {
        let Some(value) = header else {
            return Ok(Caller::Anonymous);
        };
        let token = value
            .strip_prefix("Bearer ")
            .map(str::trim)
            .filter(|t| !t.is_empty())
            .ok_or_else(|| RpcError::unauthorized("Authorization must be `Bearer <token>`"))?;
        Caller::from_token(config, token)
    }

    /// The caller of a token (as `filebox agents token` printed it).
    pub(crate) fn from_token(config: &Config, token: &str) -> Result<Caller, RpcError> {
        let hash = sha256_hex(token);
        config
            .file
            .agents
            .iter()
            .find(|(_, entry)| token_sha256(entry).is_some_and(|h| constant_time_eq(h, &hash)))
            .map(|(id, _)| Caller::Agent(id.clone()))
            .ok_or_else(|| RpcError::unauthorized("unknown token (see `filebox agents token`)"))
    }

    /// The mailroom of `agent`, if this caller may act for it: an agent with a token only with
    /// that token; a token only for its own agent.
    pub(crate) fn act_as(
        &self,
        config: &Config,
        agent: &str,
        field: &str,
    ) -> Result<Mailroom, RpcError> {
        let id = AgentId::new(agent).map_err(|e| RpcError::invalid_params(field, e))?;
        let entry = config.agent(&id)?;
        match self {
            Caller::Agent(mine) if *mine != id => {
                return Err(RpcError::forbidden(format!(
                    "this token acts as {mine}, not as {id}"
                )));
            }
            Caller::Anonymous if token_sha256(entry).is_some() => {
                return Err(RpcError::unauthorized(format!(
                    "{id} has a token: send `Authorization: Bearer <token>`"
                )));
            }
            _ => {}
        }
        Ok(Mailroom::new(config.clone(), Some(&id))?)
    }

    /// The agent of a token, if any.
    pub(crate) fn agent(&self) -> Option<&AgentId> {
        match self {
            Caller::Agent(id) => Some(id),
            Caller::Anonymous => None,
        }
    }
}

/// A new random token: 32 bytes from the OS, hex.
pub fn new_token() -> anyhow::Result<String> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes).map_err(|e| anyhow::anyhow!("no randomness from the OS: {e}"))?;
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
