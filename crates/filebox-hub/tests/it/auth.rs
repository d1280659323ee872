//! Bearer tokens: an agent with a token is acted for only with it; a token acts only as its
//! agent and reads only its mailbox and the threads it takes part in. A permission prompt is
//! answered only with the human's token or from the page, and raised by no verb.

use crate::support;

use filebox_core::permission::{Behavior, PermissionRequest, RelayWait, Relayed};
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

/// A prompt relayed for `qa` as `filebox mcp` relays it (holding its lease), on a thread that
/// returns the decision; the prompt's Message ID once `me` has it.
fn relay_prompt(hub: &TestHub) -> (String, std::thread::JoinHandle<Relayed>) {
    let config = filebox_core::Config::load(&hub.config).unwrap();
    let qa = filebox_core::AgentId::new("qa").unwrap();
    let asker = filebox_core::Mailroom::new(config.clone(), Some(&qa)).unwrap();
    let relay = std::thread::spawn(move || {
        let request = PermissionRequest {
            request_id: "abcde".into(),
            tool_name: "Bash".into(),
            description: "Delete the build folder".into(),
            input_preview: r#"{"command":"rm -rf build"}"#.into(),
        };
        let wait = RelayWait {
            timeout: std::time::Duration::from_secs(600),
            gone: &|| None,
        };
        asker
            .relay_permission(&request, "/src", None, &wait)
            .unwrap()
    });
    let me = filebox_core::AgentId::new("me").unwrap();
    let human = filebox_core::Mailroom::new(config, Some(&me)).unwrap();
    let id = loop {
        if let Some(open) = human.open_questions().unwrap().first() {
            break open.header.id().to_owned();
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    (id, relay)
}

fn allow(id: &str) -> Value {
    json!({ "from": "me", "id": id, "body": "Allow" })
}

/// In the default workspace (`me` without a token) a tokenless request acts for `me`, but
/// approving a tool run is not a message: a bare `POST /rpc` cannot answer a prompt, by
/// `email.reply` or the `reply_message` verb; the page's own session (the cookie it gets
/// with the page) can, and so can `me`'s token.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_permission_answer_needs_the_page_or_the_humans_token() {
    let hub = TestHub::start().await;
    let (id, relay) = relay_prompt(&hub);
    let (_, refused) = call_with(&hub, None, "email.reply", allow(&id)).await;
    assert_eq!(refused["error"]["data"]["kind"], "unapproved", "{refused}");
    let message = refused["error"]["message"].as_str().unwrap();
    assert!(message.contains("answer it on the hub's page"), "{message}");
    let verb = json!({ "agent": "me", "id": id, "content": "allow" });
    let (_, refused) = call_with(&hub, None, "reply_message", verb).await;
    assert_eq!(refused["error"]["data"]["kind"], "unapproved", "{refused}");
    assert!(!relay.is_finished(), "a refused answer decides nothing");

    let page = hub.get("/", &[]).await;
    let cookie = page
        .header("set-cookie")
        .expect("the page sets its session");
    assert!(
        cookie.contains("HttpOnly") && cookie.contains("SameSite=Strict"),
        "{cookie}"
    );
    let session = cookie.split(';').next().unwrap();
    let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "email.reply", "params": allow(&id) });
    let answered = hub
        .post("/rpc", &[("Cookie", session)], body.to_string().as_bytes())
        .await;
    assert!(answered.body.contains("\"result\""), "{}", answered.body);
    let Relayed::Decided { behavior, by } = relay.join().unwrap() else {
        panic!("not decided");
    };
    assert_eq!((behavior, by.as_str()), (Behavior::Allow, "me"));

    let token = give_token(&hub, "me");
    let (id, relay) = relay_prompt(&hub);
    let (_, answered) = call_with(&hub, Some(&token), "email.reply", allow(&id)).await;
    assert!(answered.get("result").is_some(), "{answered}");
    assert!(matches!(relay.join().unwrap(), Relayed::Decided { .. }));
    hub.stop().await.unwrap();
}

/// Any agent can name any type, but not `PRM`: only a live `filebox mcp` session relaying its
/// host's request raises a permission card. eve's `email.send` of one (and `send_message`)
/// is refused and the human sees no card.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn no_verb_raises_a_permission_card() {
    let hub = TestHub::start().await;
    let forged = json!({
        "from": "dev", "to": ["me"], "subject": "dev wants to run Bash: rm -rf build",
        "body": "Request `abcde`: answer Allow or Deny.", "type": "PRM", "sourceType": "agent",
    });
    let refused = hub.call_err("email.send", forged).await;
    assert_eq!(refused["data"]["kind"], "invalid_argument", "{refused}");
    assert!(
        refused["message"]
            .as_str()
            .unwrap()
            .contains("PRM is a permission prompt")
    );
    let verb = json!({ "agent": "dev", "to": "me", "type": "PRM", "content": "rm -rf build" });
    let refused = hub.call_err("send_message", verb).await;
    assert_eq!(refused["data"]["kind"], "invalid_argument", "{refused}");
    let open = hub.call("questions.open", json!({ "agent": "me" })).await;
    assert_eq!(open["questions"], json!([]), "{open}");
    assert!(hub.files("me", "inbox").is_empty());
    hub.stop().await.unwrap();
}
