//! Agent cards: one per FileBox agent the hub serves (`/a2a/<agent>/.well-known/agent-card.json`),
//! and the hub's own at `/.well-known/agent-card.json`, whose skills lead to each agent's
//! card. A card names the endpoint, the skills, the capabilities and, where the agent has a
//! token, the bearer scheme: never a token, a hash or a mailbox path.

use filebox_api::access::token_sha256;
use filebox_core::{AgentId, Config};
use serde_json::{Value, json};

use super::methods::serves;

/// The version of A2A the hub speaks first, and the one its 0.3 method names keep.
pub(crate) const PROTOCOL_VERSION: &str = "1.0";
pub(crate) const LEGACY_VERSION: &str = "0.3";
/// The name of the bearer scheme in a card that has one.
const BEARER: &str = "bearer";

/// The path of an agent's endpoint; its card is under it, at `/.well-known/agent-card.json`.
pub(crate) fn endpoint_path(agent: &AgentId) -> String {
    format!("/a2a/{agent}")
}

/// What an agent's card offers: the kinds of mail FileBox knows.
fn skills() -> Value {
    json!([
        skill(
            "request",
            "A request",
            "Work for the agent: it answers, asks back, or resolves it.",
            &["request", "ER"]
        ),
        skill(
            "bug-report",
            "A bug report",
            "A defect for the agent to look into.",
            &["bug", "BR"]
        ),
        skill(
            "question",
            "A question",
            "A question the agent answers.",
            &["question", "DIS"]
        ),
        skill(
            "status-update",
            "A status update",
            "News the agent should know of.",
            &["status", "SU"]
        ),
    ])
}

fn skill(id: &str, name: &str, description: &str, tags: &[&str]) -> Value {
    json!({ "id": id, "name": name, "description": description, "tags": tags })
}

/// `agent`'s card, its endpoint under `base` (`http://host:port`, as the request named it).
pub(crate) fn agent_card(config: &Config, agent: &AgentId, base: &str) -> Option<Value> {
    if !serves(config, agent) {
        return None;
    }
    let url = format!("{base}{}", endpoint_path(agent));
    let mut card = json!({
        "name": agent.as_str(),
        "description": format!(
            "{agent}'s FileBox mailbox: a message is delivered to its inbox and kept there until \
             {agent} handles it; the task follows the message's state."
        ),
        "supportedInterfaces": [
            { "url": url, "protocolBinding": "JSONRPC", "protocolVersion": PROTOCOL_VERSION },
            { "url": url, "protocolBinding": "JSONRPC", "protocolVersion": LEGACY_VERSION },
        ],
        "provider": { "organization": "FileBox", "url": base },
        "version": env!("CARGO_PKG_VERSION"),
        "capabilities": { "streaming": true, "pushNotifications": true },
        "defaultInputModes": ["text/plain", "application/json", "application/octet-stream"],
        "defaultOutputModes": ["text/plain"],
        "skills": skills(),
    });
    let has_token = config.agent(agent).ok().and_then(token_sha256).is_some();
    if has_token {
        card["securitySchemes"] = json!({
            BEARER: { "httpAuthSecurityScheme": {
                "scheme": "Bearer",
                "description": format!("{agent}'s token (`filebox agents token {agent}`)"),
            } }
        });
        card["securityRequirements"] = json!([{ "schemes": { BEARER: { "list": [] } } }]);
    }
    Some(card)
}

/// The hub's card: its endpoint is the config's current agent's (when it has one the hub
/// serves), and one skill per agent names where that agent's card is.
pub(crate) fn hub_card(config: &Config, base: &str) -> Value {
    let agents: Vec<&AgentId> = config
        .file
        .agents
        .keys()
        .filter(|agent| serves(config, agent))
        .collect();
    let skills: Vec<Value> = agents
        .iter()
        .map(|agent| {
            json!({
                "id": agent.as_str(),
                "name": agent.as_str(),
                "description": format!(
                    "Mail for {agent}: its card is {base}{}/.well-known/agent-card.json",
                    endpoint_path(agent)
                ),
                "tags": ["mailbox"],
            })
        })
        .collect();
    let current = config
        .file
        .current_agent_id
        .as_ref()
        .filter(|agent| serves(config, agent))
        .or(agents.first().copied());
    let mut card = match current.and_then(|agent| agent_card(config, agent, base)) {
        Some(card) => card,
        None => json!({
            "supportedInterfaces": [],
            "capabilities": { "streaming": true, "pushNotifications": true },
            "defaultInputModes": ["text/plain"],
            "defaultOutputModes": ["text/plain"],
            "version": env!("CARGO_PKG_VERSION"),
        }),
    };
    card["name"] = json!("FileBox hub");
    card["description"] = json!(
        "Durable FileBox mailboxes as A2A agents: each skill is one agent, and names its card. \
         This card's endpoint is the hub's current agent."
    );
    card["skills"] = Value::Array(skills);
    card
}
