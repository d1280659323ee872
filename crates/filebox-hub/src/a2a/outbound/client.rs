//! One A2A JSON-RPC call to a remote agent (1.0 binding: `A2A-Version: 1.0`, `Authorization:
//! Bearer` when the entry has a token), over the webhooks' one-shot HTTP client, and whether a
//! failure is the remote's refusal (kept) or its absence (tried again).

use filebox_core::A2aRemote;
use serde_json::{Value, json};

use crate::webhook::post;

/// Why a call got no result.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) enum Failure {
    /// The remote is down or broken (no connection, 5xx, 408/429, an answer that is not
    /// JSON-RPC): tried again later with the same `messageId`.
    Unreachable(String),
    /// The remote refused the call (a JSON-RPC error, another 4xx): brought back to the sender.
    Refused(String),
}

/// Call `method` with `params` at `remote`'s endpoint (its URL); the JSON-RPC `result`.
pub(super) async fn call(
    remote: &A2aRemote,
    method: &str,
    params: Value,
) -> Result<Value, Failure> {
    let mut headers = vec![("a2a-version".to_owned(), "1.0".to_owned())];
    if let Some(token) = &remote.token {
        headers.push(("authorization".to_owned(), format!("Bearer {token}")));
    }
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let answer = post::post(&remote.url, &headers, request.to_string().into_bytes())
        .await
        .map_err(Failure::Unreachable)?;
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
            "the A2A agent refused {method}: {message} (JSON-RPC error {code})"
        )));
    }
    match answer.status {
        200..=299 => body
            .and_then(|mut b| b.get_mut("result").map(Value::take))
            .ok_or_else(|| {
                Failure::Unreachable(format!("{method}: the answer has no JSON-RPC result"))
            }),
        408 | 429 => Err(Failure::Unreachable(format!(
            "{method}: HTTP {}",
            answer.status
        ))),
        400..=499 => Err(Failure::Refused(format!(
            "the A2A agent refused {method}: HTTP {}",
            answer.status
        ))),
        status => Err(Failure::Unreachable(format!("{method}: HTTP {status}"))),
    }
}
