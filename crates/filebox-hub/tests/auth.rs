//! Bearer tokens: an agent with a token is acted for only with it; a token acts only as its
//! agent and reads only its mailbox and the threads it takes part in.

mod support;

use serde_json::{Value, json};
use support::{TestHub, give_token};

async fn call_with(
    hub: &TestHub,
    token: Option<&str>,
    method: &str,
    params: Value,
) -> (u16, Value) {
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }).to_string();
    let bearer = token.map(|t| format!("Bearer {t}"));
    let headers: Vec<(&str, &str)> = bearer
        .iter()
        .map(|b| ("Authorization", b.as_str()))
        .collect();
    let response = hub.post("/rpc", &headers, body.as_bytes()).await;
    (
        response.status,
        serde_json::from_str(&response.body).unwrap(),
    )
}

fn send(from: &str, to: &str) -> Value {
    json!({ "from": from, "to": [to], "subject": "s", "body": "b", "sourceType": "agent" })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_acts_only_as_its_agent() {
    let hub = TestHub::start().await;
    let dev = give_token(&hub, "dev");

    let (status, answer) = call_with(&hub, None, "email.send", send("dev", "qa")).await;
    assert_eq!(status, 200);
    assert_eq!(answer["error"]["data"]["kind"], "unauthorized", "{answer}");
    let (status, answer) = call_with(&hub, Some("wrong"), "agents.list", json!({})).await;
    assert_eq!(status, 401);
    assert_eq!(answer["error"]["data"]["kind"], "unauthorized");
    let (_, answer) = call_with(&hub, Some(&dev), "email.send", send("qa", "dev")).await;
    assert_eq!(answer["error"]["data"]["kind"], "forbidden", "{answer}");
    let (_, answer) = call_with(&hub, Some(&dev), "email.inbox", json!({ "agent": "qa" })).await;
    assert_eq!(answer["error"]["data"]["kind"], "forbidden");
    assert!(hub.files("dev", "inbox").is_empty() && hub.files("qa", "inbox").is_empty());

    let (_, sent) = call_with(&hub, Some(&dev), "email.send", send("dev", "qa")).await;
    let id = sent["result"]["id"].as_str().unwrap().to_owned();
    assert_eq!(hub.files("qa", "inbox").len(), 1);

    // An agent without a token is still acted for without one (on loopback).
    let other = hub.call("email.send", send("qa", "me")).await;
    let (_, answer) = call_with(
        &hub,
        Some(&dev),
        "email.thread",
        json!({ "id": other["id"] }),
    )
    .await;
    assert_eq!(
        answer["error"]["data"]["kind"], "not_found",
        "dev holds no copy, so its token shows nothing of that thread: {answer}"
    );
    let (_, answer) = call_with(&hub, Some(&dev), "email.thread", json!({ "id": id })).await;
    assert_eq!(answer["result"]["thread"], id.as_str());

    // Without a token, a search of every mailbox leaves out the mailboxes that have one.
    let found = hub.call("email.search", json!({ "query": "" })).await;
    assert!(
        found["hits"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["mailbox"] != "dev"),
        "{found}"
    );
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mcp_needs_the_served_agents_token_when_it_has_one() {
    let hub = TestHub::start().await;
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } }).to_string();
    let accept = ("Accept", "application/json, text/event-stream");
    let open = hub.post("/mcp", &[accept], initialize.as_bytes()).await;
    assert_eq!(open.status, 200, "{}", open.body);
    let token = give_token(&hub, "me");
    let refused = hub.post("/mcp", &[accept], initialize.as_bytes()).await;
    assert_eq!(refused.status, 401);
    let bearer = format!("Bearer {token}");
    let allowed = hub
        .post(
            "/mcp",
            &[accept, ("Authorization", &bearer)],
            initialize.as_bytes(),
        )
        .await;
    assert_eq!(allowed.status, 200, "{}", allowed.body);
    hub.stop().await.unwrap();
}

/// A client that ends its session with `DELETE /mcp` is told it ended: 204, not rmcp's 202
/// Accepted, which the Python SDK reports as `Session termination failed: 202` (issue 36).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn ending_an_mcp_session_answers_204() {
    let hub = TestHub::start().await;
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-11-25", "capabilities": {}, "clientInfo": { "name": "t", "version": "1" } } }).to_string();
    let accept = ("Accept", "application/json, text/event-stream");
    let open = hub.post("/mcp", &[accept], initialize.as_bytes()).await;
    assert_eq!(open.status, 200, "{}", open.body);
    let session = open
        .header("mcp-session-id")
        .expect("a session id")
        .to_owned();
    let host = hub.addr.to_string();
    let headers = [
        ("Host", host.as_str()),
        ("Mcp-Session-Id", session.as_str()),
        ("MCP-Protocol-Version", "2025-11-25"),
    ];
    let ended = support::request(hub.addr, "DELETE", "/mcp", &headers, b"").await;
    assert_eq!(ended.status, 204, "{}", ended.body);
    hub.stop().await.unwrap();
}
