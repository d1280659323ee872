//! A2A into a mailbox: the cards, each method on an agent's endpoint (`/a2a/<agent>`), the
//! task state as the files say it, the SSE stream, the 0.3 method names, and every bad input
//! answered with its JSON-RPC or A2A error and nothing written.

use crate::support;

use filebox_core::{AgentId, Config, Mailroom, MessageRef, MessageType, SendRequest, Transition};
use serde_json::{Value, json};
use support::{TestHub, give_token};
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};

/// One A2A call to `agent`'s endpoint; the whole JSON-RPC answer and the HTTP status.
pub(crate) async fn a2a_call(
    hub: &TestHub,
    agent: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> (u16, Value) {
    let response = hub.post(&format!("/a2a/{agent}"), headers, body).await;
    let answer = serde_json::from_str(&response.body)
        .unwrap_or_else(|e| panic!("not JSON ({e}): {}", response.body));
    (response.status, answer)
}

pub(crate) async fn call(hub: &TestHub, agent: &str, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": "1", "method": method, "params": params });
    let (_, answer) = a2a_call(hub, agent, &[], body.to_string().as_bytes()).await;
    match answer.get("result") {
        Some(result) => result.clone(),
        None => panic!("{method} failed: {answer}"),
    }
}

pub(crate) async fn call_err(hub: &TestHub, agent: &str, method: &str, params: Value) -> Value {
    let body = json!({ "jsonrpc": "2.0", "id": 7, "method": method, "params": params });
    let (_, answer) = a2a_call(hub, agent, &[], body.to_string().as_bytes()).await;
    assert_eq!(answer["id"], 7, "{answer}");
    answer
        .get("error")
        .cloned()
        .unwrap_or_else(|| panic!("{method} succeeded: {answer}"))
}

pub(crate) fn text_message(message_id: &str, text: &str) -> Value {
    json!({ "message": {
        "messageId": message_id, "role": "ROLE_USER", "parts": [{ "text": text }],
    } })
}

pub(crate) fn mailroom(hub: &TestHub, agent: &str) -> Mailroom {
    Mailroom::new(
        Config::load(&hub.config).unwrap(),
        Some(&AgentId::new(agent).unwrap()),
    )
    .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cards_lead_to_every_agent_and_reveal_no_secret_or_path() {
    let hub = TestHub::start().await;
    let token = give_token(&hub, "qa");
    let base = format!("http://{}", hub.addr);

    let hub_card: Value =
        serde_json::from_str(&hub.get("/.well-known/agent-card.json", &[]).await.body).unwrap();
    let skills: Vec<&str> = hub_card["skills"]
        .as_array()
        .unwrap()
        .iter()
        .map(|s| s["id"].as_str().unwrap())
        .collect();
    assert_eq!(skills, ["dev", "me", "qa"]);
    assert!(
        hub_card["skills"][0]["description"]
            .as_str()
            .unwrap()
            .contains(&format!("{base}/a2a/dev/.well-known/agent-card.json"))
    );

    let dev: Value = serde_json::from_str(
        &hub.get("/a2a/dev/.well-known/agent-card.json", &[])
            .await
            .body,
    )
    .unwrap();
    assert_eq!(dev["name"], "dev");
    assert_eq!(
        dev["supportedInterfaces"][0],
        json!({ "url": format!("{base}/a2a/dev"), "protocolBinding": "JSONRPC", "protocolVersion": "1.0" })
    );
    assert_eq!(dev["capabilities"]["streaming"], true);
    assert!(
        dev.get("securitySchemes").is_none(),
        "dev has no token: {dev}"
    );
    let qa_text = hub
        .get("/a2a/qa/.well-known/agent-card.json", &[])
        .await
        .body;
    let qa: Value = serde_json::from_str(&qa_text).unwrap();
    assert_eq!(
        qa["securitySchemes"]["bearer"]["httpAuthSecurityScheme"]["scheme"],
        "Bearer"
    );
    let hash = filebox_hub::sha256_hex(&token);
    let mailboxes = hub.dir.path().to_string_lossy().into_owned();
    for text in [
        qa_text,
        hub.get("/.well-known/agent-card.json", &[]).await.body,
    ] {
        assert!(
            !text.contains(&token) && !text.contains(&hash) && !text.contains(&mailboxes),
            "{text}"
        );
    }
    for (path, why) in [
        ("/a2a/nobody/.well-known/agent-card.json", "unknown"),
        ("/a2a/system/.well-known/agent-card.json", "the hub's own"),
    ] {
        assert_eq!(hub.get(path, &[]).await.status, 404, "{why}");
    }
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_becomes_a_file_whose_state_is_the_task() {
    let hub = TestHub::start().await;
    let params = json!({ "message": {
        "messageId": "m-1", "contextId": "ctx-1", "role": "ROLE_USER",
        "parts": [
            { "text": "Please fix the build." },
            { "raw": "aGVsbG8=", "filename": "log.txt", "mediaType": "text/plain" },
            { "data": { "branch": "main" } },
        ],
    } });
    let sent = call(&hub, "dev", "SendMessage", params.clone()).await;
    let task = &sent["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_SUBMITTED");
    assert_eq!(task["contextId"], "ctx-1");
    let id = task["id"].as_str().unwrap().to_owned();
    // The same messageId again: the same task, one file.
    let again = call(&hub, "dev", "SendMessage", params).await;
    assert_eq!(again["task"]["id"], id.as_str());
    let inbox = hub.files_in("dev", "inbox");
    assert_eq!(inbox.len(), 1, "{inbox:?}");
    let text = std::fs::read_to_string(&inbox[0]).unwrap();
    for expected in [
        "Please fix the build.",
        "\"branch\": \"main\"",
        "**Source Type:** external",
        "**Thread ID:** ctx-1",
        "**A2A Caller:**",
        "log.txt",
    ] {
        assert!(text.contains(expected), "{expected} missing from\n{text}");
    }
    let attachment = hub
        .mailbox("dev")
        .join("attachments")
        .join(&id)
        .join("log.txt");
    assert_eq!(std::fs::read(attachment).unwrap(), b"hello");

    let dev = mailroom(&hub, "dev");
    let reference = MessageRef::Id(id.clone());
    dev.transition(Transition::Hold, &reference, "looking")
        .unwrap();
    let state = |task: &Value| task["status"]["state"].as_str().unwrap().to_owned();
    assert_eq!(
        state(&call(&hub, "dev", "GetTask", json!({ "id": id })).await),
        "TASK_STATE_WORKING"
    );
    dev.transition(Transition::Resolve, &reference, "fixed in 1a2b3c")
        .unwrap();
    let done = call(&hub, "dev", "GetTask", json!({ "id": id })).await;
    assert_eq!(state(&done), "TASK_STATE_COMPLETED");
    assert_eq!(done["artifacts"][0]["parts"][0]["text"], "fixed in 1a2b3c");
    assert_eq!(done["history"][0]["role"], "ROLE_USER");

    // Another task, canceled: the copy leaves the inbox with a Processing History line.
    let other = call(
        &hub,
        "dev",
        "SendMessage",
        text_message("m-2", "and the docs"),
    )
    .await;
    let other_id = other["task"]["id"].as_str().unwrap().to_owned();
    let canceled = call(&hub, "dev", "CancelTask", json!({ "id": other_id })).await;
    assert_eq!(state(&canceled), "TASK_STATE_CANCELED");
    assert!(hub.files("dev", "inbox").is_empty());
    let cancel = hub.files_in("dev", "cancel");
    assert!(
        std::fs::read_to_string(&cancel[0])
            .unwrap()
            .contains("canceled by the A2A client")
    );
    let error = call_err(&hub, "dev", "CancelTask", json!({ "id": other_id })).await;
    assert_eq!(error["code"], -32002, "{error}");

    let listed = call(&hub, "dev", "ListTasks", json!({})).await;
    assert_eq!(listed["totalSize"], 2, "{listed}");
    let completed = call(
        &hub,
        "dev",
        "ListTasks",
        json!({ "status": "TASK_STATE_COMPLETED" }),
    )
    .await;
    assert_eq!(completed["tasks"].as_array().unwrap().len(), 1);
    assert_eq!(completed["tasks"][0]["id"], id.as_str());
    let in_context = call(
        &hub,
        "dev",
        "ListTasks",
        json!({ "contextId": "ctx-1", "pageSize": 1 }),
    )
    .await;
    assert_eq!(in_context["totalSize"], 1);
    assert_eq!(
        call(&hub, "qa", "ListTasks", json!({})).await["totalSize"],
        0,
        "qa's tasks are its own"
    );
    hub.stop().await.unwrap();
}

/// `SendMessage` answers from the copy its send wrote, not read back: that answer is the task
/// `GetTask` reads from the files, whole, in both dialects, and so is a repeat's.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_answers_the_task_the_files_hold() {
    let hub = TestHub::start().await;
    for (send, get, message_id) in [
        ("SendMessage", "GetTask", "m-1"),
        ("message/send", "tasks/get", "m-2"),
    ] {
        let params = json!({ "message": {
            "messageId": message_id, "contextId": "ctx-1", "role": "ROLE_USER",
            "parts": [
                { "text": "Line one.\n\n## Looks like a heading\n---\n**Sender:** not me\r\n" },
                { "raw": "aGVsbG8=", "filename": "log.txt", "mediaType": "text/plain" },
                { "data": { "branch": "main" } },
            ],
        } });
        let answer = call(&hub, "dev", send, params.clone()).await;
        let sent = answer.get("task").unwrap_or(&answer).clone();
        let id = sent["id"].as_str().unwrap();
        let got = call(&hub, "dev", get, json!({ "id": id })).await;
        assert_eq!(sent, got, "{send} answered other than the files hold");
        let again = call(&hub, "dev", send, params).await;
        assert_eq!(
            again.get("task").unwrap_or(&again),
            &got,
            "a repeat of {send}"
        );
    }
    assert_eq!(hub.files_in("dev", "inbox").len(), 2);
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_agent_that_asks_back_gets_the_answer_in_the_same_task() {
    let hub = TestHub::start().await;
    let sent = call(&hub, "dev", "SendMessage", text_message("m-1", "Deploy it")).await;
    let id = sent["task"]["id"].as_str().unwrap().to_owned();
    let dev = mailroom(&hub, "dev");
    let reference = MessageRef::Id(id.clone());
    let target = dev.reply_target(&reference).unwrap();
    dev.send(&SendRequest {
        reply_to: Some(reference.clone()),
        ..SendRequest::new(
            target.as_str(),
            MessageType::new("DIS").unwrap(),
            "Which environment?",
        )
    })
    .unwrap();
    let asked = call(&hub, "dev", "GetTask", json!({ "id": id })).await;
    assert_eq!(
        asked["status"]["state"], "TASK_STATE_INPUT_REQUIRED",
        "{asked}"
    );
    assert_eq!(
        asked["status"]["message"]["parts"][0]["text"],
        "Which environment?"
    );
    assert_eq!(asked["status"]["message"]["role"], "ROLE_AGENT");

    let mut answer = text_message("m-2", "staging");
    answer["message"]["taskId"] = json!(id);
    let followed = call(&hub, "dev", "SendMessage", answer.clone()).await;
    assert_eq!(followed["task"]["id"], id.as_str());
    assert_eq!(followed["task"]["status"]["state"], "TASK_STATE_SUBMITTED");
    let inbox = hub.files_in("dev", "inbox");
    assert!(
        std::fs::read_to_string(&inbox[0])
            .unwrap()
            .contains("staging")
    );
    // Not waiting for the client any more: a second answer is refused, writing nothing.
    answer["message"]["messageId"] = json!("m-3");
    let error = call_err(&hub, "dev", "SendMessage", answer).await;
    assert_eq!(error["code"], -32004, "{error}");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_0_3_method_names_answer_in_the_0_3_shapes() {
    let hub = TestHub::start().await;
    let params = json!({ "message": {
        "kind": "message", "messageId": "old-1", "role": "user",
        "parts": [{ "kind": "text", "text": "hello from 0.3" }, { "kind": "file", "file": { "bytes": "aGk=", "name": "a.txt" } }],
    } });
    let task = call(&hub, "dev", "message/send", params).await;
    assert_eq!(task["kind"], "task");
    assert_eq!(task["status"]["state"], "submitted");
    let first = &task["history"][0]["parts"][0];
    assert_eq!(first["kind"], "text");
    // The body as delivered: the text, then the link the core wrote to the attachment.
    let text = first["text"].as_str().unwrap();
    assert!(
        text.starts_with("hello from 0.3") && text.contains("a.txt"),
        "{text}"
    );
    let id = task["id"].as_str().unwrap();
    let got = call(&hub, "dev", "tasks/get", json!({ "id": id })).await;
    assert_eq!(got["id"], id);
    let canceled = call(&hub, "dev", "tasks/cancel", json!({ "id": id })).await;
    assert_eq!(canceled["status"]["state"], "canceled");
    hub.stop().await.unwrap();
}

/// `SendStreamingMessage` over HTTP/1.0 (the body is the bare SSE text): each `data:` line.
pub(crate) async fn stream(
    hub: &TestHub,
    agent: &str,
    body: Value,
) -> tokio::io::Lines<BufReader<tokio::net::TcpStream>> {
    let mut stream = tokio::net::TcpStream::connect(hub.addr).await.unwrap();
    let body = body.to_string();
    let head = format!(
        "POST /a2a/{agent} HTTP/1.0\r\nHost: {}\r\nContent-Type: application/json\r\nAccept: text/event-stream\r\nContent-Length: {}\r\n\r\n{body}",
        hub.addr,
        body.len()
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    BufReader::new(stream).lines()
}

pub(crate) async fn next_data(
    lines: &mut tokio::io::Lines<BufReader<tokio::net::TcpStream>>,
) -> Option<Value> {
    let read = async {
        while let Some(line) = lines.next_line().await.unwrap() {
            if let Some(data) = line.strip_prefix("data: ") {
                return Some(serde_json::from_str::<Value>(data).unwrap());
            }
        }
        None
    };
    tokio::time::timeout(support::GIVE_UP, read)
        .await
        .expect("an event in time")
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_stream_follows_the_files_in_order_until_the_task_is_done() {
    let hub = TestHub::start().await;
    let body = json!({ "jsonrpc": "2.0", "id": 3, "method": "SendStreamingMessage", "params": text_message("s-1", "Stream me") });
    let mut events = stream(&hub, "dev", body).await;
    let first = next_data(&mut events).await.unwrap();
    assert_eq!(first["id"], 3);
    let task = &first["result"]["task"];
    assert_eq!(task["status"]["state"], "TASK_STATE_SUBMITTED");
    let reference = MessageRef::Id(task["id"].as_str().unwrap().to_owned());
    let dev = mailroom(&hub, "dev");
    dev.transition(Transition::Hold, &reference, "on it")
        .unwrap();
    let working = next_data(&mut events).await.unwrap();
    assert_eq!(
        working["result"]["statusUpdate"]["status"]["state"], "TASK_STATE_WORKING",
        "{working}"
    );
    dev.transition(Transition::Resolve, &reference, "streamed")
        .unwrap();
    let artifact = next_data(&mut events).await.unwrap();
    assert_eq!(
        artifact["result"]["artifactUpdate"]["artifact"]["parts"][0]["text"],
        "streamed"
    );
    let done = next_data(&mut events).await.unwrap();
    assert_eq!(
        done["result"]["statusUpdate"]["status"]["state"],
        "TASK_STATE_COMPLETED"
    );
    assert!(
        next_data(&mut events).await.is_none(),
        "the stream ends with the task"
    );

    // A finished task has nothing left to follow.
    let body = json!({ "jsonrpc": "2.0", "id": 4, "method": "SubscribeToTask", "params": { "id": task["id"] } });
    let mut events = stream(&hub, "dev", body).await;
    let refused = next_data(&mut events).await.unwrap();
    assert_eq!(refused["error"]["code"], -32004, "{refused}");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn bad_input_gets_its_error_and_writes_nothing() {
    let hub = small_hub().await;
    let qa_token = give_token(&hub, "qa");
    let dev_token = give_token(&hub, "dev");

    let (_, parse) = a2a_call(&hub, "dev", &[], b"{not json").await;
    assert_eq!(parse["error"]["code"], -32700);
    let (_, no_version) = a2a_call(&hub, "dev", &[], br#"{"id":1,"method":"GetTask"}"#).await;
    assert_eq!(no_version["error"]["code"], -32600);
    let (_, batch) = a2a_call(&hub, "dev", &[], b"[]").await;
    assert_eq!(batch["error"]["code"], -32600);
    let auth = format!("Bearer {dev_token}");
    let dev_auth = [("Authorization", auth.as_str())];
    let unknown_method = json!({ "jsonrpc": "2.0", "id": 1, "method": "email.send", "params": {} });
    let (_, unknown) = a2a_call(
        &hub,
        "dev",
        &dev_auth,
        unknown_method.to_string().as_bytes(),
    )
    .await;
    assert_eq!(unknown["error"]["code"], -32601);

    let send = |id: &str, text: &str| json!({ "jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": text_message(id, text) });
    let (_, task) = a2a_call(&hub, "dev", &dev_auth, json!({ "jsonrpc": "2.0", "id": 1, "method": "GetTask", "params": { "id": "no-such-task" } }).to_string().as_bytes()).await;
    assert_eq!(task["error"]["code"], -32001, "{task}");
    let (_, nobody) = a2a_call(
        &hub,
        "nobody",
        &[],
        send("x-1", "hi").to_string().as_bytes(),
    )
    .await;
    assert_eq!(nobody["error"]["data"]["kind"], "unknown_agent", "{nobody}");
    let (_, system) = a2a_call(
        &hub,
        "system",
        &[],
        send("x-2", "hi").to_string().as_bytes(),
    )
    .await;
    assert_eq!(system["error"]["data"]["kind"], "unknown_agent", "{system}");
    let (status, no_token) =
        a2a_call(&hub, "dev", &[], send("x-3", "hi").to_string().as_bytes()).await;
    assert_eq!(
        (status, no_token["error"]["data"]["kind"].as_str()),
        (401, Some("unauthorized")),
        "{no_token}"
    );
    let other = format!("Bearer {qa_token}");
    let (_, forbidden) = a2a_call(
        &hub,
        "dev",
        &[("Authorization", other.as_str())],
        send("x-4", "hi").to_string().as_bytes(),
    )
    .await;
    assert_eq!(
        forbidden["error"]["data"]["kind"], "forbidden",
        "{forbidden}"
    );
    let (_, too_large) = a2a_call(
        &hub,
        "dev",
        &dev_auth,
        send("x-5", &"x".repeat(2000)).to_string().as_bytes(),
    )
    .await;
    assert_eq!(too_large["error"]["code"], -32602, "{too_large}");
    let big_file = json!({ "jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": { "message": {
        "messageId": "x-6", "role": "ROLE_USER",
        "parts": [{ "text": "see file" }, { "raw": base64_of(&[7u8; 3000]), "filename": "big.bin" }],
    } } });
    let (_, too_large) = a2a_call(&hub, "dev", &dev_auth, big_file.to_string().as_bytes()).await;
    assert_eq!(too_large["error"]["code"], -32602, "{too_large}");
    let no_parts = json!({ "jsonrpc": "2.0", "id": 1, "method": "SendMessage", "params": { "message": { "messageId": "x-7", "role": "ROLE_USER", "parts": [] } } });
    let (_, empty) = a2a_call(&hub, "dev", &dev_auth, no_parts.to_string().as_bytes()).await;
    assert_eq!(empty["error"]["code"], -32602, "{empty}");
    // A push URL the config's `hub.callback_allow` does not name: refused before the send.
    let mut pushed = send("x-8", "with a push");
    pushed["params"]["configuration"] =
        json!({ "taskPushNotificationConfig": { "url": "http://127.0.0.1:9/hook" } });
    let (_, push) = a2a_call(&hub, "dev", &dev_auth, pushed.to_string().as_bytes()).await;
    assert_eq!(push["error"]["code"], -32602, "{push}");
    assert!(
        push["error"]["message"]
            .as_str()
            .unwrap()
            .contains("callback_allow"),
        "{push}"
    );
    assert!(
        !hub.dir.path().join(".filebox/a2a/push").exists(),
        "a refused push config was kept"
    );

    for agent in ["dev", "qa", "me"] {
        for folder in ["inbox", "outbox"] {
            assert!(
                hub.files(agent, folder).is_empty(),
                "{agent}/{folder}: a refused call wrote"
            );
        }
    }
    hub.stop().await.unwrap();
}

pub(crate) fn base64_of(bytes: &[u8]) -> String {
    use std::fmt::Write as _;
    // A tiny encoder keeps the test free of a base64 dev-dependency.
    const ALPHABET: &[u8; 64] = b"ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
    let mut out = String::new();
    for chunk in bytes.chunks(3) {
        let n = chunk
            .iter()
            .enumerate()
            .fold(0u32, |n, (i, b)| n | (u32::from(*b) << (16 - 8 * i)));
        for i in 0..4 {
            if i <= chunk.len() {
                let _ = out.write_char(ALPHABET[((n >> (18 - 6 * i)) & 63) as usize] as char);
            } else {
                out.push('=');
            }
        }
    }
    out
}

/// A local receiver of push notifications: each POST's headers and JSON body.
pub(crate) async fn push_receiver() -> (
    String,
    tokio::sync::mpsc::UnboundedReceiver<(axum::http::HeaderMap, Value)>,
) {
    let (sink, received) = tokio::sync::mpsc::unbounded_channel();
    let app = axum::Router::new().fallback(axum::routing::post(
        move |headers: axum::http::HeaderMap, axum::Json(body): axum::Json<Value>| {
            let sink = sink.clone();
            async move {
                let _ = sink.send((headers, body));
                "ok"
            }
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, received)
}

/// A hub with `me` and `dev` whose `hub.callback_allow` names `url`.
pub(crate) async fn hub_allowing(url: &str) -> TestHub {
    let dir = tempfile::tempdir().unwrap();
    let config = support::write_config(dir.path(), &[("me", "human"), ("dev", "agent")]);
    Config::update(&config, |file| {
        file.extra
            .insert("hub".into(), json!({ "callback_allow": [url] }));
        Ok(())
    })
    .unwrap();
    TestHub::start_in(dir, config).await
}

/// A hub of `me`, `dev` and `qa` whose bodies and attachments are bounded at 1,000 bytes (its
/// requests at 1 MiB and 2,000 bytes).
pub(crate) async fn small_hub() -> TestHub {
    let dir = tempfile::tempdir().unwrap();
    let config = support::write_config(
        dir.path(),
        &[("me", "human"), ("dev", "agent"), ("qa", "agent")],
    );
    Config::update(&config, |file| {
        file.max_body_bytes = Some(1000);
        Ok(())
    })
    .unwrap();
    TestHub::start_in(dir, config).await
}

/// `ListTaskPushNotificationConfigs` of dev's task `id`: its answer.
pub(crate) async fn push_configs(hub: &TestHub, id: &str) -> Value {
    call(
        hub,
        "dev",
        "ListTaskPushNotificationConfigs",
        json!({ "taskId": id }),
    )
    .await
}

pub(crate) async fn next_push(
    received: &mut tokio::sync::mpsc::UnboundedReceiver<(axum::http::HeaderMap, Value)>,
) -> (axum::http::HeaderMap, Value) {
    tokio::time::timeout(support::GIVE_UP, received.recv())
        .await
        .expect("a push in time")
        .unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_configs_are_kept_and_each_state_is_delivered_to_the_allowed_url() {
    let (url, mut received) = push_receiver().await;
    let hub = hub_allowing(&url).await;
    let sent = call(
        &hub,
        "dev",
        "SendMessage",
        text_message("p-1", "Tell me when done"),
    )
    .await;
    let id = sent["task"]["id"].as_str().unwrap().to_owned();
    let hook = format!("{url}a2a-hook");
    let created = call(
        &hub,
        "dev",
        "CreateTaskPushNotificationConfig",
        json!({
            "taskId": id, "id": "cfg-1", "url": hook, "token": "secret-1",
            "authentication": { "scheme": "Bearer", "credentials": "push-cred" },
        }),
    )
    .await;
    assert_eq!(
        created,
        json!({ "id": "cfg-1", "taskId": id, "url": hook, "token": "secret-1", "authentication": { "scheme": "Bearer" } })
    );
    let listed = push_configs(&hub, &id).await;
    assert_eq!(listed["configs"][0]["id"], "cfg-1");
    let got = call(
        &hub,
        "dev",
        "GetTaskPushNotificationConfig",
        json!({ "taskId": id, "id": "cfg-1" }),
    )
    .await;
    assert_eq!(got["url"], hook.as_str());

    let (headers, first): (axum::http::HeaderMap, Value) = next_push(&mut received).await;
    assert_eq!(
        first["task"]["status"]["state"], "TASK_STATE_SUBMITTED",
        "{first}"
    );
    assert_eq!(headers["x-a2a-notification-token"], "secret-1");
    assert_eq!(headers["authorization"], "Bearer push-cred");
    mailroom(&hub, "dev")
        .transition(Transition::Resolve, &MessageRef::Id(id.clone()), "all done")
        .unwrap();
    let (_, done): (axum::http::HeaderMap, Value) = next_push(&mut received).await;
    assert_eq!(
        done["task"]["status"]["state"], "TASK_STATE_COMPLETED",
        "{done}"
    );
    assert_eq!(done["task"]["artifacts"][0]["parts"][0]["text"], "all done");

    call(
        &hub,
        "dev",
        "DeleteTaskPushNotificationConfig",
        json!({ "taskId": id, "id": "cfg-1" }),
    )
    .await;
    let listed = push_configs(&hub, &id).await;
    assert_eq!(listed["configs"], json!([]));
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_s_history_length_is_read_from_its_configuration() {
    let hub = TestHub::start().await;
    let whole = call(
        &hub,
        "dev",
        "SendMessage",
        text_message("h-1", "with history"),
    )
    .await;
    let history = |answer: &Value| answer["task"]["history"].as_array().map_or(0, Vec::len);
    assert!(history(&whole) > 0, "{whole}");
    let mut params = text_message("h-2", "without history");
    params["configuration"] = json!({ "historyLength": 0 });
    let none = call(&hub, "dev", "SendMessage", params).await;
    assert_eq!(history(&none), 0, "{none}");
    hub.stop().await.unwrap();
}
