//! Callbacks: a real HTTP server (axum on 127.0.0.1:0) receives the signed webhooks and
//! checks every signature the Standard Webhooks way; a failing endpoint is tried again with the
//! same webhook-id until it answers; each try is a processing-history line; a webhook owed
//! while the hub was down is sent at start; endpoints outside `hub.callback_allow` are never
//! called, even when a file names one. A person's request (its answer lands in their done/,
//! beside the outbox record) is followed the same way.

use crate::support;

use std::collections::VecDeque;
use std::sync::{Arc, Mutex};

use axum::body::Bytes;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, Uri};
use base64::Engine;
use base64::engine::general_purpose::STANDARD;
use filebox_core::message::field;
use filebox_core::{AgentId, Config, Mailroom, MessageRef, MessageType, SendRequest, SourceType};
use hmac::{Hmac, KeyInit, Mac};
use serde_json::{Value, json};
use sha2::Sha256;
use support::{Events, GIVE_UP, TestHub, write_config};
use tokio::sync::mpsc;

const KEY: &[u8] = b"a key of the test";

/// One request the receiver got.
#[derive(Debug)]
struct Received {
    /// The request's path, as it came.
    path: String,
    id: String,
    timestamp: String,
    signature: String,
    extra: Option<String>,
    body: Vec<u8>,
}

impl Received {
    /// Verify as a receiver does: HMAC-SHA256 of `id.timestamp.body` with the key.
    fn verified(&self) -> bool {
        let mut mac = <Hmac<Sha256> as KeyInit>::new_from_slice(KEY).unwrap();
        mac.update(format!("{}.{}.", self.id, self.timestamp).as_bytes());
        mac.update(&self.body);
        let expected = format!("v1,{}", STANDARD.encode(mac.finalize().into_bytes()));
        self.signature.split(' ').any(|s| s == expected)
    }

    fn json(&self) -> Value {
        serde_json::from_slice(&self.body).unwrap()
    }
}

/// A webhook receiver answering with the given status codes in turn (then 200).
struct Receiver {
    url: String,
    received: mpsc::UnboundedReceiver<Received>,
}

#[derive(Clone)]
struct Script {
    answers: Arc<Mutex<VecDeque<u16>>>,
    sink: mpsc::UnboundedSender<Received>,
}

async fn hook(
    State(script): State<Script>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> StatusCode {
    let header = |name: &str| {
        headers
            .get(name)
            .and_then(|v| v.to_str().ok())
            .map(str::to_owned)
    };
    let _ = script.sink.send(Received {
        path: uri.path().to_owned(),
        id: header("webhook-id").unwrap_or_default(),
        timestamp: header("webhook-timestamp").unwrap_or_default(),
        signature: header("webhook-signature").unwrap_or_default(),
        extra: header("x-app"),
        body: body.to_vec(),
    });
    let code = script.answers.lock().unwrap().pop_front().unwrap_or(200);
    StatusCode::from_u16(code).unwrap()
}

/// A JSON-RPC endpoint: records the call like [`hook`], then answers it with a JSON-RPC error
/// for each scripted answer left, else with a result.
async fn rpc_endpoint(
    State(script): State<Script>,
    uri: Uri,
    headers: HeaderMap,
    body: Bytes,
) -> axum::Json<Value> {
    let call: Value = serde_json::from_slice(&body).unwrap_or_default();
    let failing = script.answers.lock().unwrap().pop_front();
    hook(State(script), uri, headers, body).await;
    axum::Json(match failing {
        Some(code) => {
            json!({"jsonrpc": "2.0", "id": call["id"], "error": {"code": -32000 - i64::from(code), "message": "busy"}})
        }
        None => json!({"jsonrpc": "2.0", "id": call["id"], "result": {"ok": true}}),
    })
}

impl Receiver {
    async fn start(answers: &[u16]) -> Receiver {
        let (sink, received) = mpsc::unbounded_channel();
        let script = Script {
            answers: Arc::new(Mutex::new(answers.iter().copied().collect())),
            sink,
        };
        let app = axum::Router::new()
            .route("/hook", axum::routing::post(hook))
            .route("/rpc", axum::routing::post(rpc_endpoint))
            // Every other path is recorded too, so a post that goes astray is seen.
            .fallback(hook)
            .with_state(script);
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        let url = format!("http://{}/", listener.local_addr().unwrap());
        tokio::spawn(async move { axum::serve(listener, app).await });
        Receiver { url, received }
    }

    async fn next(&mut self) -> Received {
        tokio::time::timeout(GIVE_UP, self.received.recv())
            .await
            .expect("no webhook came")
            .unwrap()
    }
}

/// `app` (external), `dev`, `me` (a person); `hub` section allowing `allow`, signing with
/// [`KEY`].
fn config_in(dir: &std::path::Path, allow: &str, attempts: u32) -> std::path::PathBuf {
    let config = write_config(dir, &[("app", "agent"), ("dev", "agent"), ("me", "human")]);
    Config::update(&config, |file| {
        file.extra.insert(
            "hub".into(),
            json!({
                "callback_allow": [allow],
                "webhook_secret": format!("whsec_{}", STANDARD.encode(KEY)),
                "webhook_attempts": attempts,
                "webhook_first_retry_ms": 10,
            }),
        );
        Ok(())
    })
    .unwrap();
    config
}

fn callback(url: &str) -> Value {
    callback_to(&format!("{url}hook"))
}

fn callback_to(endpoint: &str) -> Value {
    json!({ "type": "webhook", "endpoint": endpoint, "headers": { "X-App": "crm" } })
}

/// `app` asks `dev` with a callback, and `dev` answers: the message id.
async fn ask_and_answer(hub: &TestHub, url: &str) -> String {
    let sent = hub
        .call(
            "email.send",
            json!({ "from": "app", "to": ["dev"], "subject": "Quote", "body": "price?", "sourceType": "external", "callback": callback(url) }),
        )
        .await;
    let id = sent["id"].as_str().unwrap().to_owned();
    hub.call(
        "email.reply",
        json!({ "from": "dev", "id": id, "body": "42 EUR" }),
    )
    .await;
    id
}

/// The `webhooks` of `email.status`, once `done` holds for them (checked on every change to
/// `app`'s mailbox).
async fn webhooks_when(
    hub: &TestHub,
    events: &mut Events,
    id: &str,
    done: impl Fn(&Value) -> bool,
) -> Value {
    loop {
        let status = hub.call("email.status", json!({ "id": id })).await;
        if done(&status["webhooks"]) {
            return status["webhooks"].clone();
        }
        events.next().await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_is_posted_signed_to_the_callback_and_recorded() {
    let mut receiver = Receiver::start(&[]).await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(dir.path(), &receiver.url, 5);
    let hub = TestHub::start_in(dir, config).await;
    let mut app = Events::open(&hub, "?agent=app", None).await;
    let id = ask_and_answer(&hub, &receiver.url).await;

    let got = receiver.next().await;
    assert_eq!(got.id, format!("{id}#1"), "the reply's place names it");
    assert!(
        got.verified(),
        "signature {} does not verify",
        got.signature
    );
    let now = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .unwrap()
        .as_secs();
    let at: u64 = got.timestamp.parse().unwrap();
    assert!(now.abs_diff(at) < 300, "a fresh timestamp: {at} vs {now}");
    assert_eq!(got.extra.as_deref(), Some("crm"), "the callback's headers");
    let email = got.json();
    assert_eq!(email["id"], id.as_str());
    assert_eq!(email["replies"][0]["body"], "42 EUR");
    assert_eq!(email["mailbox"], "app", "the stored reply");

    let webhooks = webhooks_when(&hub, &mut app, &id, |w| w[0]["state"] == "delivered").await;
    assert_eq!(webhooks[0]["attempts"], 1);
    assert!(
        webhooks[0]["lastOutcome"]
            .as_str()
            .unwrap()
            .ends_with(": HTTP 200")
    );
    let stored = hub
        .call("email.read", json!({ "agent": "app", "id": id }))
        .await;
    let lines = stored["history"].as_array().unwrap();
    assert_eq!(lines.len(), 1, "{lines:?}");
    assert_eq!(lines[0]["action"], "Webhook Delivered");
    assert_eq!(lines[0]["by"], "hub");
    assert_eq!(hub.files("app", "inbox").len(), 1, "annotated in place");
    hub.stop().await.unwrap();
    assert!(receiver.received.try_recv().is_err(), "sent once");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_rpc_callback_calls_its_method_signed_until_it_returns_a_result() {
    // The first call is answered with a JSON-RPC error (HTTP 200): a failed try, tried again.
    let mut receiver = Receiver::start(&[1]).await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(dir.path(), &receiver.url, 5);
    let hub = TestHub::start_in(dir, config).await;
    let mut app = Events::open(&hub, "?agent=app", None).await;
    let rpc = json!({ "type": "rpc", "endpoint": "crm.replyArrived", "url": format!("{}rpc", receiver.url) });
    let sent = hub
        .call(
            "email.send",
            json!({ "from": "app", "to": ["dev"], "subject": "Quote", "body": "price?", "sourceType": "external", "callback": rpc }),
        )
        .await;
    let id = sent["id"].as_str().unwrap().to_owned();
    hub.call(
        "email.reply",
        json!({ "from": "dev", "id": id, "body": "42 EUR" }),
    )
    .await;
    for _ in 0..2 {
        let got = receiver.next().await;
        assert!(
            got.verified(),
            "signature {} does not verify",
            got.signature
        );
        let call = got.json();
        assert_eq!(call["jsonrpc"], "2.0");
        assert_eq!(call["method"], "crm.replyArrived");
        assert_eq!(
            call["id"],
            got.id.as_str(),
            "the call's id is the webhook id"
        );
        assert_eq!(call["params"]["email"]["replies"][0]["body"], "42 EUR");
    }
    let webhooks = webhooks_when(&hub, &mut app, &id, |w| w[0]["state"] == "delivered").await;
    assert_eq!(webhooks[0]["attempts"], 2);
    let outcome = webhooks[0]["lastOutcome"].as_str().unwrap();
    assert!(
        outcome.ends_with("crm.replyArrived returned a result"),
        "{outcome}"
    );

    // Without a url, or outside the allow-list, an rpc callback is refused when sent.
    for (callback, field) in [
        (
            json!({ "type": "rpc", "endpoint": "crm.replyArrived" }),
            "callback.url",
        ),
        (
            json!({ "type": "rpc", "endpoint": "crm.replyArrived", "url": "http://169.254.169.254/rpc" }),
            "callback.url",
        ),
        (
            json!({ "type": "rpc", "endpoint": "two words", "url": format!("{}rpc", receiver.url) }),
            "callback.endpoint",
        ),
    ] {
        let refused = hub
            .call_err(
                "email.send",
                json!({ "from": "app", "to": ["dev"], "subject": "s", "body": "b", "sourceType": "external", "callback": callback }),
            )
            .await;
        assert_eq!(refused["data"]["field"], field, "{refused}");
    }
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_endpoint_is_tried_again_with_the_same_id_until_it_answers() {
    let mut receiver = Receiver::start(&[500, 503]).await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(dir.path(), &receiver.url, 5);
    let hub = TestHub::start_in(dir, config).await;
    let mut app = Events::open(&hub, "?agent=app", None).await;
    let id = ask_and_answer(&hub, &receiver.url).await;
    let tries = [
        receiver.next().await,
        receiver.next().await,
        receiver.next().await,
    ];
    for got in &tries {
        assert_eq!(got.id, format!("{id}#1"));
        assert!(got.verified());
    }
    let webhooks = webhooks_when(&hub, &mut app, &id, |w| w[0]["state"] == "delivered").await;
    assert_eq!(webhooks[0]["attempts"], 3);
    let stored = hub
        .call("email.read", json!({ "agent": "app", "id": id }))
        .await;
    let actions: Vec<&str> = stored["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["action"].as_str().unwrap())
        .collect();
    assert_eq!(
        actions,
        ["Webhook Failed", "Webhook Failed", "Webhook Delivered"]
    );
    let first = stored["history"][0]["details"].as_str().unwrap();
    assert!(
        first.contains("attempt 1") && first.contains("HTTP 500"),
        "{first}"
    );
    assert!(first.contains("next try in 10 ms"), "{first}");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_that_never_answers_is_given_up_and_status_says_failed() {
    let mut receiver = Receiver::start(&[500, 500, 500]).await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(dir.path(), &receiver.url, 2);
    let hub = TestHub::start_in(dir, config).await;
    let mut app = Events::open(&hub, "?agent=app", None).await;
    let id = ask_and_answer(&hub, &receiver.url).await;
    let failing = webhooks_when(&hub, &mut app, &id, |w| {
        w[0]["state"].is_string() && w[0]["state"] != "pending"
    })
    .await;
    assert!(
        ["failing", "failed"].contains(&failing[0]["state"].as_str().unwrap()),
        "{failing}"
    );
    let webhooks = webhooks_when(&hub, &mut app, &id, |w| w[0]["state"] == "failed").await;
    assert_eq!(webhooks[0]["attempts"], 2);
    assert!(
        webhooks[0]["lastOutcome"]
            .as_str()
            .unwrap()
            .contains("gave up after 2 tries"),
        "{webhooks}"
    );
    receiver.next().await;
    receiver.next().await;
    hub.stop().await.unwrap();
    assert!(receiver.received.try_recv().is_err(), "no third try");
}

/// Write, with the hub down, a message from `app` with `callback` and `dev`'s reply to it.
fn answered_while_down(config: &std::path::Path, callback: &Value) -> String {
    let config = Config::load(config).unwrap();
    let open = |id: &str| Mailroom::new(config.clone(), Some(&AgentId::new(id).unwrap())).unwrap();
    let request = SendRequest {
        source_type: Some(SourceType::External),
        ..SendRequest::new("dev", MessageType::new("DIS").unwrap(), "price?")
    };
    let callback = callback.to_string();
    let sent = open("app")
        .send_new_with(&request, &[(field::CALLBACK, callback.as_str())])
        .unwrap();
    let reply = SendRequest {
        reply_to: Some(MessageRef::parse(&sent.id).unwrap()),
        ..SendRequest::new("app", MessageType::new("DIS").unwrap(), "42 EUR")
    };
    open("dev").send(&reply).unwrap();
    sent.id
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_webhook_owed_while_the_hub_was_down_is_sent_at_start() {
    let mut receiver = Receiver::start(&[]).await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(dir.path(), &receiver.url, 5);
    let id = answered_while_down(&config, &callback(&receiver.url));
    let hub = TestHub::start_in(dir, config).await;
    let got = receiver.next().await;
    assert_eq!(got.id, format!("{id}#1"));
    assert!(got.verified());
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_outside_the_allow_list_is_never_called() {
    let mut receiver = Receiver::start(&[]).await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(dir.path(), "http://allowed.example/", 5);
    // A file that names the receiver anyway, as anyone able to write a mailbox could.
    let id = answered_while_down(&config, &callback(&receiver.url));
    let hub = TestHub::start_in(dir, config).await;
    let refused = hub
        .call_err(
            "email.send",
            json!({ "from": "app", "to": ["dev"], "subject": "s", "body": "b", "sourceType": "external", "callback": callback(&receiver.url) }),
        )
        .await;
    assert_eq!(refused["data"]["field"], "callback.endpoint", "{refused}");
    let mut app = Events::open(&hub, "?agent=app", None).await;
    let webhooks = webhooks_when(&hub, &mut app, &id, |w| w[0]["state"] == "failed").await;
    let outcome = webhooks[0]["lastOutcome"].as_str().unwrap();
    assert!(outcome.starts_with("refused: "), "{outcome}");
    assert!(outcome.contains("hub.callback_allow"), "{outcome}");
    assert_eq!(webhooks[0]["attempts"], 0);
    hub.stop().await.unwrap();
    assert!(receiver.received.try_recv().is_err(), "never called");
}

/// An entry of the allow list is a URL, not a string prefix. With `http://127.0.0.1:<the
/// receiver's port without its last digit>` allowed, the receiver's port, which starts with it,
/// is another port, and `http://<allowed>@<receiver>/` names the receiver behind a user name:
/// `email.send` refuses both, and files that name them anyway are refused at every try and
/// never called.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_endpoint_that_only_starts_like_an_allowed_one_is_refused() {
    let mut receiver = Receiver::start(&[]).await;
    let authority = receiver
        .url
        .trim_start_matches("http://")
        .trim_end_matches('/')
        .to_owned();
    let allowed = format!("http://{}", &authority[..authority.len() - 1]);
    let lookalikes = [receiver.url.clone(), format!("{allowed}@{authority}/")];
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(dir.path(), &allowed, 5);
    let written: Vec<String> = lookalikes
        .iter()
        .map(|url| answered_while_down(&config, &callback(url)))
        .collect();
    let hub = TestHub::start_in(dir, config).await;
    for url in &lookalikes {
        let refused = hub
            .call_err(
                "email.send",
                json!({ "from": "app", "to": ["dev"], "subject": "s", "body": "b", "sourceType": "external", "callback": callback(url) }),
            )
            .await;
        assert_eq!(
            refused["data"]["field"], "callback.endpoint",
            "{url}: {refused}"
        );
    }
    let mut app = Events::open(&hub, "?agent=app", None).await;
    for id in &written {
        let webhooks = webhooks_when(&hub, &mut app, id, |w| w[0]["state"] == "failed").await;
        let outcome = webhooks[0]["lastOutcome"].as_str().unwrap();
        assert!(outcome.contains("hub.callback_allow"), "{outcome}");
        assert_eq!(webhooks[0]["attempts"], 0);
    }
    hub.stop().await.unwrap();
    assert!(receiver.received.try_recv().is_err(), "never called");
}

/// `me`, a person, asks `dev` with a callback and `dev` answers: the answer lands in `me`'s
/// done/, beside `me`'s outbox record of the request. The attempts are recorded in, and read
/// back from, the same copy (the one that speaks for the message), so a failure is retried and
/// `email.status` lists the webhook.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persons_request_is_retried_and_its_webhook_listed() {
    let mut receiver = Receiver::start(&[500]).await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(dir.path(), &receiver.url, 5);
    let hub = TestHub::start_in(dir, config).await;
    let mut me = Events::open(&hub, "?agent=me", None).await;
    let sent = hub
        .call(
            "email.send",
            json!({ "from": "me", "to": ["dev"], "subject": "Quote", "body": "price?", "sourceType": "human", "callback": callback(&receiver.url) }),
        )
        .await;
    let id = sent["id"].as_str().unwrap().to_owned();
    hub.call(
        "email.reply",
        json!({ "from": "dev", "id": id, "body": "42 EUR" }),
    )
    .await;
    for _ in 0..2 {
        assert_eq!(receiver.next().await.id, format!("{id}#1"));
    }
    let webhooks = webhooks_when(&hub, &mut me, &id, |w| w[0]["state"] == "delivered").await;
    assert_eq!(webhooks[0]["attempts"], 2, "{webhooks}");
    assert_eq!(webhooks[0]["mailbox"], "me", "{webhooks}");
    let stored = hub
        .call("email.read", json!({ "agent": "me", "id": id }))
        .await;
    assert_eq!(stored["folder"], "done", "{stored}");
    let actions: Vec<&str> = stored["history"]
        .as_array()
        .unwrap()
        .iter()
        .map(|l| l["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["Webhook Failed", "Webhook Delivered"]);
    hub.stop().await.unwrap();
}

/// A hub killed after a failed try of a person's request's webhook: the next hub tries it again
/// at start, as the second attempt.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_persons_failed_webhook_is_tried_again_after_a_restart() {
    let mut receiver = Receiver::start(&[]).await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(dir.path(), &receiver.url, 5);
    let loaded = Config::load(&config).unwrap();
    let open = |id: &str| Mailroom::new(loaded.clone(), Some(&AgentId::new(id).unwrap())).unwrap();
    let request = SendRequest {
        source_type: Some(SourceType::Human),
        ..SendRequest::new("dev", MessageType::new("DIS").unwrap(), "price?")
    };
    let hook = callback(&receiver.url).to_string();
    let sent = open("me")
        .send_new_with(&request, &[(field::CALLBACK, hook.as_str())])
        .unwrap();
    let reference = MessageRef::parse(&sent.id).unwrap();
    let reply = SendRequest {
        reply_to: Some(reference.clone()),
        ..SendRequest::new("me", MessageType::new("DIS").unwrap(), "42 EUR")
    };
    open("dev").send(&reply).unwrap();
    // What the killed hub wrote after its first try.
    let webhook_id = format!("{}#1", sent.id);
    open("me")
        .annotate(
            &reference,
            "Webhook Failed",
            "hub",
            &format!(
                "{webhook_id} attempt 1 to {}hook: HTTP 500; next try in 10 ms",
                receiver.url
            ),
        )
        .unwrap();
    let hub = TestHub::start_in(dir, config).await;
    let got = receiver.next().await;
    assert_eq!(got.id, webhook_id);
    let mut me = Events::open(&hub, "?agent=me", None).await;
    let webhooks = webhooks_when(&hub, &mut me, &sent.id, |w| w[0]["state"] == "delivered").await;
    assert_eq!(webhooks[0]["attempts"], 2, "{webhooks}");
    hub.stop().await.unwrap();
}

/// With only `<receiver>/hooks/` allowed, callbacks whose path climbs out and back in
/// (`/admin/../hooks/dots`, also percent-encoded) are checked and posted as the one URL they
/// resolve to, whether `email.send` took them or a file named them: the receiver, which records
/// the path of every request it gets, is sent `/hooks/dots` each time and nothing outside
/// `/hooks/`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_callback_with_dot_segments_is_posted_where_the_allow_list_looked() {
    let mut receiver = Receiver::start(&[]).await;
    let dir = tempfile::tempdir().unwrap();
    let config = config_in(dir.path(), &format!("{}hooks/", receiver.url), 5);
    let climbing = [
        "admin/../hooks/dots",
        "admin/%2e%2e/hooks/dots",
        "admin/.%2E/hooks/./dots",
    ];
    let endpoint = |path: &str| format!("{}{path}", receiver.url);
    for path in climbing {
        answered_while_down(&config, &callback_to(&endpoint(path)));
    }
    let hub = TestHub::start_in(dir, config).await;
    for path in climbing {
        let sent = hub
            .call(
                "email.send",
                json!({ "from": "app", "to": ["dev"], "subject": "s", "body": "b", "sourceType": "external", "callback": callback_to(&endpoint(path)) }),
            )
            .await;
        hub.call(
            "email.reply",
            json!({ "from": "dev", "id": sent["id"], "body": "done" }),
        )
        .await;
    }
    let mut paths = Vec::new();
    for _ in 0..2 * climbing.len() {
        paths.push(receiver.next().await.path);
    }
    hub.stop().await.unwrap();
    while let Ok(more) = receiver.received.try_recv() {
        paths.push(more.path);
    }
    assert!(paths.iter().all(|p| p == "/hooks/dots"), "{paths:?}");
}
