//! One A2A JSON-RPC call to a remote agent's endpoint (`endpoint.rs`), in the dialect its card
//! names (1.0: `SendMessage`, `A2A-Version: 1.0`; 0.3: `message/send`), `Authorization:
//! Bearer` when the entry has a token, over the hub's one-shot HTTP client with the answer
//! bounded; and whether a failure is the remote's refusal (kept) or its absence (tried again).

use filebox_core::model_text::one_line;
use serde_json::{Value, json};

use super::card::Endpoint;
use crate::a2a::wire::Dialect;
use crate::webhook::post::{self, Call, PastKeep};

/// Why a call got no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Failure {
    /// The remote is down or broken (no connection, no answer in time, 5xx, 408/429):
    /// tried again later with the same `messageId`.
    Unreachable(String),
    /// The remote refused the call, or answered what FileBox does not take (a JSON-RPC error,
    /// another 4xx, a redirect, an answer that is not JSON-RPC or is over its bound): brought
    /// back to the sender.
    Refused(String),
}

/// The two calls FileBox makes.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Method {
    Send,
    GetTask,
}

impl Method {
    fn name(self, dialect: Dialect) -> &'static str {
        match (self, dialect) {
            (Method::Send, Dialect::V1) => "SendMessage",
            (Method::GetTask, Dialect::V1) => "GetTask",
            (Method::Send, Dialect::V03) => "message/send",
            (Method::GetTask, Dialect::V03) => "tasks/get",
        }
    }
}

/// Call `method` with `params` at `endpoint`, keeping at most `limit` bytes of the answer;
/// the JSON-RPC `result`.
pub(super) async fn call(
    endpoint: &Endpoint,
    token: Option<&str>,
    method: Method,
    params: Value,
    limit: usize,
) -> Result<Value, Failure> {
    let name = method.name(endpoint.dialect);
    let mut headers = Vec::new();
    if endpoint.dialect == Dialect::V1 {
        headers.push(("a2a-version".to_owned(), "1.0".to_owned()));
    }
    if let Some(token) = token {
        headers.push(("authorization".to_owned(), format!("Bearer {token}")));
    }
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": name, "params": params });
    let answer = post::request(Call {
        method: hyper::Method::POST,
        endpoint: &endpoint.url,
        headers: &headers,
        body: request.to_string().into_bytes(),
        keep: limit,
        past_keep: PastKeep::Stop,
    })
    .await
    .map_err(|why| Failure::Unreachable(format!("{name} to {}: {why}", endpoint.url)))?;
    if answer.cut {
        return Err(Failure::Refused(format!(
            "the A2A agent's answer to {name} is over {limit} bytes (twice max_body_bytes): \
             none of it was kept"
        )));
    }
    let body: Option<Value> = serde_json::from_slice(&answer.body).ok();
    // A JSON-RPC error is an object; a server's own `{"error": "..."}` beside JSON-RPC is
    // judged by its HTTP status.
    if let Some(error) = body
        .as_ref()
        .and_then(|b| b.get("error"))
        .filter(|e| e.is_object())
    {
        let message = error.get("message").and_then(Value::as_str).unwrap_or("");
        let code = error
            .get("code")
            .and_then(Value::as_i64)
            .unwrap_or_default();
        return Err(Failure::Refused(format!(
            "the A2A agent refused {name}: {} (JSON-RPC error {code})",
            one_line(message, 300)
        )));
    }
    let not_here = || {
        endpoint
            .no_card
            .as_ref()
            .map_or_else(String::new, |why| format!("; {why}"))
    };
    match answer.status {
        200..=299 => body
            .and_then(|mut b| b.get_mut("result").map(Value::take))
            .ok_or_else(|| {
                Failure::Refused(format!(
                    "{} answered {name} with no JSON-RPC result{}",
                    endpoint.url,
                    not_here()
                ))
            }),
        300..=399 => Err(Failure::Refused(format!(
            "{} answered {name} with HTTP {}, a redirect to {} (not followed: name the A2A \
             agent's own URL in the agent entry)",
            endpoint.url,
            answer.status,
            answer
                .location
                .as_deref()
                .map_or_else(|| "nowhere".to_owned(), |l| one_line(l, 300))
        ))),
        408 | 429 => Err(Failure::Unreachable(format!(
            "{name}: HTTP {}",
            answer.status
        ))),
        400..=499 => Err(Failure::Refused(format!(
            "the A2A agent refused {name}: HTTP {}{}",
            answer.status,
            not_here()
        ))),
        status => Err(Failure::Unreachable(format!("{name}: HTTP {status}"))),
    }
}
