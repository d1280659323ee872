//! Reply routing, one test per source type: `agent` → the sender's inbox; `human` → the
//! person's mailbox, marked done (`done/`); `system` → the `system` mailbox, created on demand;
//! `external` → stored in the sender's inbox (the callback is in `webhook.rs`); and `replyTo`
//! overrides the target in every case. Each answer carries the status and the times
//! (`createdAt`, `deliveredAt`, `repliedAt`).

use crate::support;

use serde_json::{Value, json};
use support::TestHub;

fn request(from: &str, to: &str, source: &str, reply_to: Option<&str>) -> Value {
    let mut params = json!({ "from": from, "to": [to], "subject": format!("{source} request"), "body": "please", "sourceType": source });
    if let Some(target) = reply_to {
        params["replyTo"] = json!(target);
    }
    params
}

/// Send `request`, answer it as `to`, and return (the sent copy, the reply's stored copy).
async fn answered(hub: &TestHub, params: Value) -> (Value, Value) {
    let to = params["to"][0].as_str().unwrap().to_owned();
    let sent = hub.call("email.send", params).await;
    assert_eq!(sent["status"], "delivered", "{sent}");
    assert!(sent["deliveredAt"].is_string() && sent["createdAt"].is_string());
    assert!(sent.get("repliedAt").is_none(), "not replied yet: {sent}");
    let reply = hub
        .call(
            "email.reply",
            json!({ "from": to, "id": sent["id"], "body": "answer" }),
        )
        .await;
    (sent, reply)
}

/// The one message in `agent`'s `folder`, read through `email.inbox`.
async fn only(hub: &TestHub, agent: &str, folder: &str) -> Value {
    let listed = hub
        .call("email.inbox", json!({ "agent": agent, "folder": folder }))
        .await;
    let listed = listed.as_array().unwrap();
    assert_eq!(listed.len(), 1, "{agent}/{folder}: {listed:?}");
    listed[0].clone()
}

fn assert_times(email: &Value) {
    let created = email["createdAt"].as_str().unwrap();
    let delivered = email["deliveredAt"].as_str().unwrap();
    let replied = email["repliedAt"].as_str().unwrap();
    assert!(created <= delivered && delivered <= replied, "{email}");
    assert!(replied.ends_with('Z'));
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agent_a_reply_reaches_the_senders_inbox() {
    let hub = TestHub::start().await;
    let (sent, reply) = answered(&hub, request("dev", "qa", "agent", None)).await;
    assert_eq!(reply["status"], "replied");
    let back = only(&hub, "dev", "inbox").await;
    assert_eq!(back["id"], sent["id"]);
    assert_eq!(back["replies"][0]["body"], "answer");
    assert_eq!(back["status"], "delivered", "it waits in dev's inbox");
    let status = hub.call("email.status", json!({ "id": sent["id"] })).await;
    assert_eq!(status["status"], "replied");
    assert_times(&status);
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn human_a_reply_reaches_the_persons_mailbox_marked_done() {
    let hub = TestHub::start().await;
    let (sent, _) = answered(&hub, request("me", "dev", "human", None)).await;
    assert!(
        hub.files("me", "inbox").is_empty(),
        "nothing left to handle"
    );
    let done = only(&hub, "me", "done").await;
    assert_eq!(done["id"], sent["id"]);
    assert_eq!(done["status"], "replied");
    assert_eq!(done["replies"][0]["from"], "dev");
    assert_times(&done);
    let status = hub.call("email.status", json!({ "id": sent["id"] })).await;
    assert_eq!(status["status"], "replied");
    assert_times(&status);
    // A follow-up from the person is an ordinary reply to the agent's inbox.
    hub.call(
        "email.reply",
        json!({ "from": "me", "id": sent["id"], "body": "thanks, one more thing" }),
    )
    .await;
    let again = only(&hub, "dev", "inbox").await;
    assert_eq!(again["replies"].as_array().unwrap().len(), 2);
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn system_a_reply_reaches_the_system_mailbox_created_on_demand() {
    let hub = TestHub::start().await;
    let agents = hub.call("agents.list", json!({})).await;
    assert!(!agents.to_string().contains("\"system\""), "{agents}");
    let (sent, _) = answered(&hub, request("dev", "qa", "system", None)).await;
    // The hub's own mailbox: read from its files (a caller of the hub may not act for it).
    let back = hub.files_in("system", "inbox");
    assert_eq!(back.len(), 1);
    let text = std::fs::read_to_string(&back[0]).unwrap();
    assert!(text.contains(sent["id"].as_str().unwrap()), "{text}");
    let refused = hub
        .call_err("email.inbox", json!({ "agent": "system" }))
        .await;
    assert_eq!(refused["data"]["kind"], "unauthorized", "{refused}");
    assert!(hub.files("dev", "inbox").is_empty(), "not to the sender");
    let agents = hub.call("agents.list", json!({})).await;
    assert!(agents.to_string().contains("\"system\""), "{agents}");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn external_a_reply_is_stored_in_the_senders_inbox() {
    let hub = TestHub::start().await;
    let (sent, _) = answered(&hub, request("dev", "qa", "external", None)).await;
    let stored = only(&hub, "dev", "inbox").await;
    assert_eq!(stored["id"], sent["id"]);
    assert_eq!(stored["sourceType"], "external");
    assert_eq!(stored["replies"][0]["body"], "answer");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn reply_to_overrides_the_target_for_every_source_type() {
    let hub = TestHub::start().await;
    for (from, source) in [
        ("dev", "agent"),
        ("me", "human"),
        ("dev", "system"),
        ("dev", "external"),
    ] {
        let (sent, _) = answered(&hub, request(from, "qa", source, Some("dev"))).await;
        let copy = hub
            .call("email.read", json!({ "agent": "dev", "id": sent["id"] }))
            .await;
        assert_eq!(copy["folder"], "inbox", "{source}: {copy}");
        assert_eq!(copy["replyTo"], "dev");
        assert_eq!(copy["replies"][0]["to"], "dev", "{source}");
    }
    assert_eq!(hub.files("dev", "inbox").len(), 4);
    assert!(hub.files("me", "inbox").is_empty() && hub.files("me", "done").is_empty());
    assert!(
        !hub.mailbox("system").exists() || hub.files("system", "inbox").is_empty(),
        "replyTo wins over the system mailbox"
    );
    hub.stop().await.unwrap();
}
