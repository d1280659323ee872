//! Where a remote agent is called: the URL of its entry is what A2A agents publish, its base
//! URL or its card's URL. The card (`<base>/.well-known/agent-card.json`, or the URL itself
//! when it names a card) is read and its JSON-RPC interface called; only when there is no
//! card at the base URL is the URL itself called, and then only an answer in JSON-RPC counts
//! (`client.rs`). What was resolved is kept per agent for [`RESOLVE_EVERY`], and forgotten
//! when a call fails, so a moved agent is found again without a card fetch per send.

use std::collections::HashMap;
use std::time::{Duration, Instant};

use filebox_core::{A2aRemote, AgentId};
use hyper::Method;
use serde_json::Value;
use url::Url;

use super::card::{self, CARD_BYTES, Endpoint};
use super::client::Failure;
use crate::a2a::wire::Dialect;
use crate::webhook::post::{self, Call, PastKeep};

/// How long a resolved endpoint is used before the card is read again.
const RESOLVE_EVERY: Duration = Duration::from_secs(300);

/// The path of a card under an agent's base URL (A2A 1.0 and 0.3), and 0.2's name for it.
const CARD_PATH: &str = ".well-known/agent-card.json";
const OLD_CARD_PATH: &str = ".well-known/agent.json";

/// Where each remote agent was last found.
#[derive(Default)]
pub(super) struct Endpoints {
    known: HashMap<AgentId, (A2aRemote, Endpoint, Instant)>,
}

impl Endpoints {
    /// Where to call `agent` (its entry `remote`): as resolved before, unless the entry
    /// changed or it is [`RESOLVE_EVERY`] old.
    pub(super) async fn of(
        &mut self,
        agent: &AgentId,
        remote: &A2aRemote,
    ) -> Result<Endpoint, Failure> {
        if let Some((known, endpoint, at)) = self.known.get(agent)
            && known == remote
            && at.elapsed() < RESOLVE_EVERY
        {
            return Ok(endpoint.clone());
        }
        let endpoint = resolve(&remote.url).await?;
        self.known.insert(
            agent.clone(),
            (remote.clone(), endpoint.clone(), Instant::now()),
        );
        Ok(endpoint)
    }

    /// A call to `agent` failed: resolve it again before the next one.
    pub(super) fn forget(&mut self, agent: &AgentId) {
        self.known.remove(agent);
    }
}

/// The endpoint the entry's `url` leads to.
async fn resolve(url: &str) -> Result<Endpoint, Failure> {
    let given = post::check_endpoint(url).map_err(|why| {
        Failure::Refused(format!(
            "the agent entry's A2A URL {url:?} is not callable: {why}"
        ))
    })?;
    let names_card = [CARD_PATH, OLD_CARD_PATH]
        .iter()
        .any(|path| given.path().ends_with(&format!("/{path}")));
    if names_card {
        return match fetch(&given).await? {
            Fetched::Card(card) => card::interface(&given, &card).map_err(Failure::Refused),
            Fetched::None(why) => Err(Failure::Refused(format!("no agent card at {given}: {why}"))),
        };
    }
    let mut base = given.clone();
    if !base.path().ends_with('/') {
        base.set_path(&format!("{}/", base.path()));
    }
    let card_url = base
        .join(CARD_PATH)
        .map_err(|e| Failure::Refused(format!("{given}: {e}")))?;
    match fetch(&card_url).await? {
        Fetched::Card(card) => card::interface(&card_url, &card).map_err(Failure::Refused),
        // No card: the URL itself, if it answers JSON-RPC (1.0, which a 0.3-only agent
        // refuses with "method not found").
        Fetched::None(why) => Ok(Endpoint {
            url: given.to_string(),
            dialect: Dialect::V1,
            no_card: Some(format!("no agent card at {card_url} ({why})")),
        }),
    }
}

/// What a card URL answered.
enum Fetched {
    Card(Value),
    /// Not a card, and why.
    None(String),
}

/// GET `url` (at most [`CARD_BYTES`], within the client's time-out): a card, no card (a 4xx,
/// a redirect, which is not followed, or an answer that is not a JSON object), or the host's
/// absence (unreachable, 5xx).
async fn fetch(url: &Url) -> Result<Fetched, Failure> {
    let answer = post::request(Call {
        method: Method::GET,
        endpoint: url.as_str(),
        headers: &[("accept".to_owned(), "application/json".to_owned())],
        body: Vec::new(),
        keep: CARD_BYTES,
        past_keep: PastKeep::Stop,
    })
    .await
    .map_err(|why| Failure::Unreachable(format!("reading the agent card at {url}: {why}")))?;
    match answer.status {
        200..=299 if answer.cut => Err(Failure::Refused(format!(
            "the agent card at {url} is over {} KiB: not read",
            CARD_BYTES / 1024
        ))),
        200..=299 => Ok(match serde_json::from_slice::<Value>(&answer.body) {
            Ok(card) if card.is_object() => Fetched::Card(card),
            _ => Fetched::None("the answer is not a JSON object".into()),
        }),
        300..=399 => Ok(Fetched::None(format!(
            "HTTP {} to {} (redirects are not followed)",
            answer.status,
            answer.location.as_deref().unwrap_or("nowhere")
        ))),
        400..=499 => Ok(Fetched::None(format!("HTTP {}", answer.status))),
        status => Err(Failure::Unreachable(format!(
            "reading the agent card at {url}: HTTP {status}"
        ))),
    }
}
