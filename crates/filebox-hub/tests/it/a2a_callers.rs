//! Who may call an agent's A2A endpoint, each method: a page of another origin, a token for
//! another agent, `Authorization: Peer` over TCP, a caller reaching for another agent's task,
//! a messageId another agent's client used, and a thousand-and-one subscriptions against the
//! hub's bound on streams.

use crate::a2a::{a2a_call, call, call_err, next_data, stream, text_message};
use crate::support::{self, TestHub, give_token, request};

use filebox_core::Config;
use serde_json::{Value, json};

fn body(method: &str, params: Value) -> Vec<u8> {
    json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params })
        .to_string()
        .into_bytes()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_page_of_another_origin_cannot_post_a_simple_request() {
    let hub = TestHub::start().await;
    let host = hub.addr.to_string();
    let send = body("SendMessage", text_message("c-1", "from a page"));
    for origin in ["http://localhost:3000", "http://127.0.0.1:1", "null"] {
        let answer = request(
            hub.addr,
            "POST",
            "/a2a/dev",
            &[
                ("Host", host.as_str()),
                ("Origin", origin),
                ("Content-Type", "text/plain"),
            ],
            &send,
        )
        .await;
        assert_eq!(answer.status, 403, "{origin}: {}", answer.body);
    }
    assert!(hub.files("dev", "inbox").is_empty(), "a page's post wrote");
    // The hub's own origin is not refused.
    let own = format!("http://{}", hub.addr);
    let (status, answer) = a2a_call(&hub, "dev", &[("Origin", own.as_str())], &send).await;
    assert_eq!(status, 200, "{answer}");
    assert!(answer.get("result").is_some(), "{answer}");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn only_the_agents_own_token_reaches_its_tasks_by_any_method() {
    let hub = TestHub::start().await;
    let sent = call(&hub, "dev", "SendMessage", text_message("w-1", "mine")).await;
    let id = sent["task"]["id"].as_str().unwrap().to_owned();
    let dev_token = give_token(&hub, "dev");
    let qa_token = give_token(&hub, "qa");
    // The person's token: the hub's human is not the agent either.
    let me_token = give_token(&hub, "me");
    let dev = format!("Bearer {dev_token}");
    let qa = format!("Bearer {qa_token}");
    let me = format!("Bearer {me_token}");
    let calls = [
        ("GetTask", json!({ "id": id })),
        ("CancelTask", json!({ "id": id })),
        ("ListTasks", json!({})),
        ("SendMessage", text_message("w-2", "more")),
        (
            "CreateTaskPushNotificationConfig",
            json!({ "taskId": id, "url": "http://127.0.0.1:9/" }),
        ),
        ("ListTaskPushNotificationConfigs", json!({ "taskId": id })),
    ];
    for (method, params) in &calls {
        let call = body(method, params.clone());
        for (who, headers, status, kind) in [
            ("no token", vec![], 401, "unauthorized"),
            (
                "qa's token",
                vec![("Authorization", qa.as_str())],
                200,
                "forbidden",
            ),
            (
                "me's token",
                vec![("Authorization", me.as_str())],
                200,
                "forbidden",
            ),
            (
                "a wrong token",
                vec![("Authorization", "Bearer nope")],
                401,
                "unauthorized",
            ),
            (
                "Peer over TCP",
                vec![("Authorization", "Peer")],
                401,
                "unauthorized",
            ),
        ] {
            let (got, answer) = a2a_call(&hub, "dev", &headers, &call).await;
            assert_eq!(
                (got, answer["error"]["data"]["kind"].as_str()),
                (status, Some(kind)),
                "{method} with {who}: {answer}"
            );
        }
    }
    // qa's own endpoint does not know dev's task.
    let qa_auth = [("Authorization", qa.as_str())];
    for (method, params) in [
        ("GetTask", json!({ "id": id })),
        ("CancelTask", json!({ "id": id })),
        ("ListTaskPushNotificationConfigs", json!({ "taskId": id })),
    ] {
        let (_, answer) = a2a_call(&hub, "qa", &qa_auth, &body(method, params)).await;
        assert_eq!(answer["error"]["code"], -32001, "{method} on qa: {answer}");
    }
    let mut events = stream(
        &hub,
        "qa",
        json!({ "jsonrpc": "2.0", "id": 2, "method": "SubscribeToTask", "params": { "id": id } }),
    )
    .await;
    let refused = next_data(&mut events).await.unwrap();
    assert!(refused["error"].is_object(), "{refused}");
    // Nothing above touched the task: dev's own token still sees it submitted.
    let (_, got) = a2a_call(
        &hub,
        "dev",
        &[("Authorization", dev.as_str())],
        &body("GetTask", json!({ "id": id })),
    )
    .await;
    assert_eq!(
        got["result"]["status"]["state"], "TASK_STATE_SUBMITTED",
        "{got}"
    );
    assert_eq!(hub.files("dev", "inbox").len(), 1);
    assert!(!hub.dir.path().join(".filebox/a2a/push").exists());
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_id_is_one_clients_key_at_one_agent() {
    let hub = TestHub::start().await;
    let to_dev = call(
        &hub,
        "dev",
        "SendMessage",
        text_message("same-id", "for dev"),
    )
    .await;
    // Another agent's client happens to use the same messageId: its own message, not a refusal.
    let to_qa = call(&hub, "qa", "SendMessage", text_message("same-id", "for qa")).await;
    assert_ne!(to_dev["task"]["id"], to_qa["task"]["id"]);
    assert_eq!(hub.files("qa", "inbox").len(), 1);
    // Each client's retry is still harmless.
    let again = call(&hub, "qa", "SendMessage", text_message("same-id", "for qa")).await;
    assert_eq!(again["task"]["id"], to_qa["task"]["id"]);
    assert_eq!(hub.files("qa", "inbox").len(), 1);
    assert_eq!(hub.files("dev", "inbox").len(), 1);
    // A different message under a key already used is refused, writing nothing.
    let error = call_err(
        &hub,
        "dev",
        "SendMessage",
        text_message("same-id", "other words"),
    )
    .await;
    assert_eq!(error["code"], -32602, "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("new messageId"),
        "{error}"
    );
    assert_eq!(hub.files("dev", "inbox").len(), 1);
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn subscriptions_past_the_stream_bound_are_refused_and_calls_still_answered() {
    let dir = tempfile::tempdir().unwrap();
    let config = support::write_config(dir.path(), &[("me", "human"), ("dev", "agent")]);
    Config::update(&config, |file| {
        file.extra
            .insert("hub".into(), json!({ "max_event_streams": 2 }));
        Ok(())
    })
    .unwrap();
    let hub = TestHub::start_in(dir, config).await;
    let sent = call(&hub, "dev", "SendMessage", text_message("s-1", "follow me")).await;
    let id = sent["task"]["id"].clone();
    let subscribe =
        json!({ "jsonrpc": "2.0", "id": 5, "method": "SubscribeToTask", "params": { "id": id } });
    let mut held = Vec::new();
    for _ in 0..2 {
        let mut events = stream(&hub, "dev", subscribe.clone()).await;
        let first = next_data(&mut events).await.unwrap();
        assert_eq!(first["result"]["task"]["id"], id, "{first}");
        held.push(events);
    }
    for _ in 0..3 {
        let mut events = stream(&hub, "dev", subscribe.clone()).await;
        let refused = next_data(&mut events).await.unwrap();
        assert!(
            refused["error"]["message"]
                .as_str()
                .is_some_and(|m| m.contains("max_event_streams")),
            "{refused}"
        );
    }
    let got = call(&hub, "dev", "GetTask", json!({ "id": id })).await;
    assert_eq!(got["status"]["state"], "TASK_STATE_SUBMITTED");
    assert_eq!(hub.get("/healthz", &[]).await.status, 200);
    drop(held);
    hub.stop().await.unwrap();
}
