//! The Origin check on every route group: a page of another web server on this machine (another
//! port of `localhost`, `127.0.0.1` or `[::1]`, or `https://` on the hub's port) is refused with
//! 403 before any route runs, so it can neither send mail nor answer the human's questions;
//! the hub's own origins (its port on the loopback names, an `--allow-host` on its port or the
//! default ones) pass.

use crate::support;

use serde_json::{Value, json};
use support::{Events, TestHub, write_config};

/// One request to a route group (`filebox_hub::routes::GROUPS`) and the status the hub's own
/// origin gets.
struct Row {
    method: &'static str,
    path: String,
    headers: &'static [(&'static str, &'static str)],
    body: String,
    own_status: u16,
}

/// A request to each route group.
fn rows() -> Vec<Row> {
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "origin", "version": "1" } } });
    let row = |method, path: &str, headers, body: String, own_status| Row {
        method,
        path: path.to_owned(),
        headers,
        body,
        own_status,
    };
    vec![
        row("GET", "/healthz", &[], String::new(), 200),
        row("POST", "/rpc", &[], send("dev", "qa").to_string(), 200),
        row("GET", "/events", &[], String::new(), 200),
        row(
            "POST",
            "/mcp",
            &[
                ("Accept", "application/json, text/event-stream"),
                ("MCP-Protocol-Version", "2025-06-18"),
            ],
            initialize.to_string(),
            200,
        ),
        row("GET", "/", &[], String::new(), 200),
        row(
            "GET",
            "/attachments/dev/00000000/none.txt",
            &[],
            String::new(),
            404,
        ),
        // A malformed Connect call: the route's own refusal (400), past the guard.
        row(
            "POST",
            "/agentassistproto.SrvAgentAssist/TaskFinish",
            &[("Connect-Protocol-Version", "1")],
            "{".into(),
            400,
        ),
    ]
}

fn send(from: &str, to: &str) -> Value {
    json!({ "jsonrpc": "2.0", "id": 1, "method": "email.send", "params": { "from": from, "to": [to], "subject": "from a page", "body": "b", "sourceType": "agent" } })
}

/// The origins of pages that are not the hub's, for a hub on `port`.
fn foreign_origins(port: u16) -> Vec<String> {
    let other = port ^ 1;
    vec![
        "http://localhost:3000".into(),
        format!("http://localhost:{other}"),
        format!("http://127.0.0.1:{other}"),
        format!("http://[::1]:{other}"),
        format!("https://localhost:{port}"),
        "http://localhost".into(),
        "null".into(),
    ]
}

fn own_origins(port: u16) -> Vec<String> {
    vec![
        format!("http://127.0.0.1:{port}"),
        format!("http://localhost:{port}"),
        format!("http://[::1]:{port}"),
    ]
}

/// The status `row` gets with `Origin: origin`.
async fn status(hub: &TestHub, row: &Row, origin: &str) -> u16 {
    let mut headers: Vec<(&str, &str)> = row.headers.to_vec();
    headers.push(("Origin", origin));
    match row.method {
        // A stream never ends: only its status line is read.
        "GET" if row.path == "/events" => Events::status(hub, &row.path, &headers).await,
        "GET" => hub.get(&row.path, &headers).await.status,
        _ => {
            hub.post(&row.path, &headers, row.body.as_bytes())
                .await
                .status
        }
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_route_group_refuses_another_ports_origin_and_serves_its_own() {
    let hub = TestHub::start().await;
    let port = hub.addr.port();
    for row in rows() {
        for origin in foreign_origins(port) {
            let got = status(&hub, &row, &origin).await;
            assert_eq!(got, 403, "{} {} from {origin}", row.method, row.path);
        }
        for origin in own_origins(port) {
            let got = status(&hub, &row, &origin).await;
            assert_eq!(
                got, row.own_status,
                "{} {} from {origin}",
                row.method, row.path
            );
        }
    }
    assert_eq!(
        hub.files("qa", "inbox").len(),
        own_origins(port).len(),
        "only the hub's own pages sent mail"
    );
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_on_another_port_can_neither_send_nor_reply() {
    let hub = TestHub::start().await;
    let question = hub
        .call(
            "email.send",
            json!({ "from": "dev", "to": ["me"], "subject": "Deploy?", "body": "yes or no", "sourceType": "agent" }),
        )
        .await;
    let reply = json!({ "jsonrpc": "2.0", "id": 1, "method": "email.reply", "params": { "from": "me", "id": question["id"], "body": "yes" } });
    let dev_server = [("Origin", "http://localhost:3000")];
    for call in [send("me", "dev"), reply.clone()] {
        let response = hub
            .post("/rpc", &dev_server, call.to_string().as_bytes())
            .await;
        assert_eq!(response.status, 403, "{call}: {}", response.body);
        assert!(response.body.contains("not this hub"), "{}", response.body);
    }
    assert!(
        hub.files("dev", "inbox").is_empty(),
        "nothing sent, no answer"
    );
    assert_eq!(
        hub.files("me", "inbox").len(),
        1,
        "the question still waits"
    );

    let own = format!("http://localhost:{}", hub.addr.port());
    let response = hub
        .post("/rpc", &[("Origin", &own)], reply.to_string().as_bytes())
        .await;
    let answer: Value = serde_json::from_str(&response.body).unwrap();
    assert!(answer.get("result").is_some(), "{answer}");
    assert_eq!(hub.files("dev", "inbox").len(), 1, "the page's own answer");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_allowed_host_is_an_origin_on_the_hubs_port_or_the_default_ones() {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(dir.path(), &[("me", "human"), ("dev", "agent")]);
    let options = filebox_hub::Options {
        allowed_hosts: vec!["hub.example".into(), "other.example:8443".into()],
        ..Default::default()
    };
    let hub = TestHub::start_with(dir, config, options).await;
    let port = hub.addr.port();
    let cases = [
        ("https://hub.example".to_owned(), 200),
        ("http://hub.example".to_owned(), 200),
        (format!("http://hub.example:{port}"), 200),
        ("http://hub.example:3000".to_owned(), 403),
        ("https://other.example:8443".to_owned(), 200),
        ("https://other.example".to_owned(), 403),
        (format!("http://other.example:{port}"), 403),
    ];
    for (origin, expected) in cases {
        let response = support::request(
            hub.addr,
            "GET",
            "/healthz",
            &[("Host", "hub.example"), ("Origin", &origin)],
            b"",
        )
        .await;
        assert_eq!(response.status, expected, "{origin}");
    }
    hub.stop().await.unwrap();
}
