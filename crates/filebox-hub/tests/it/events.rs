//! `GET /events`: deliveries, replies and moves made by anyone (this hub or another process
//! writing through the core) arrive as Server-Sent Events; `Last-Event-ID` resumes, and an id
//! the hub cannot resume from gets a `resync` first.

use crate::support;

use filebox_core::{Config, Mailroom, MessageType, SendRequest};
use serde_json::{Value, json};
use support::{Events, TestHub};

fn send(from: &str, to: &str, subject: &str) -> Value {
    json!({ "from": from, "to": [to], "subject": subject, "body": subject, "sourceType": "agent" })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_change_by_anyone_becomes_an_event_and_streams_resume() {
    let hub = TestHub::start().await;
    let mut qa = Events::open(&hub, "?agent=qa", None).await;

    let sent = hub
        .call("email.send", send("dev", "qa", "by the hub"))
        .await;
    let delivered = qa.next_named("delivered").await;
    assert_eq!(delivered.data["agent"], "qa");
    assert_eq!(delivered.data["messageId"], sent["id"]);
    assert_eq!(delivered.data["folder"], "inbox");
    let first_id = delivered.id.clone().unwrap();

    // Another process writing through the core (as the CLI or an MCP server does).
    let other = Mailroom::new(
        Config::load(&hub.config).unwrap(),
        Some(&filebox_core::AgentId::new("dev").unwrap()),
    )
    .unwrap();
    let receipt = other
        .send(&SendRequest::new(
            "qa",
            MessageType::new("ER").unwrap(),
            "by another process",
        ))
        .unwrap();
    let delivered = qa.next_named("delivered").await;
    assert_eq!(delivered.data["messageId"], receipt.id.as_str());

    hub.call(
        "email.reply",
        json!({ "from": "qa", "id": sent["id"], "body": "answer" }),
    )
    .await;
    let left = qa.next_named("left").await;
    assert_eq!(left.data["folder"], "inbox");
    drop(qa);

    // dev's stream: the reply arrived; resuming from the first event replays what qa missed.
    let mut resumed = Events::open(&hub, "?agent=qa", Some(&first_id)).await;
    let replayed = resumed.next().await;
    assert_eq!(
        replayed.data["messageId"],
        receipt.id.as_str(),
        "{replayed:?}"
    );
    let mut stale = Events::open(&hub, "?agent=qa", Some("1-1")).await;
    assert_eq!(stale.next().await.name, "resync");

    let mut dev = Events::open(&hub, "?agent=dev", None).await;
    hub.call(
        "email.resolve",
        json!({ "agent": "qa", "id": receipt.id, "details": "done" }),
    )
    .await;
    hub.call("email.send", send("qa", "dev", "to dev")).await;
    let event = dev.next().await;
    assert_eq!(event.data["agent"], "dev", "the filter holds: {event:?}");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_token_agent_streams_only_with_its_token() {
    let hub = TestHub::start().await;
    let token = filebox_hub::new_token().unwrap();
    let hash = filebox_hub::sha256_hex(&token);
    Config::update(&hub.config, |file| {
        let entry = file
            .agents
            .get_mut(&filebox_core::AgentId::new("qa")?)
            .unwrap();
        entry
            .extra
            .insert(filebox_hub::TOKEN_FIELD.into(), hash.clone().into());
        Ok(())
    })
    .unwrap();
    let refused = hub.get("/events?agent=qa", &[]).await;
    assert_eq!(refused.status, 401, "no token for an agent that has one");
    hub.stop().await.unwrap();
}

/// A read receipt rewrites the reader's copy in place: one `read` event naming the reader,
/// not a left/arrived pair. The page (no token) opening an agent's mail is not that agent
/// reading: it writes none.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_read_receipt_is_one_read_event() {
    let hub = TestHub::start().await;
    let mut qa = Events::open(&hub, "?agent=qa", None).await;
    let sent = hub.call("email.send", send("dev", "qa", "read me")).await;
    qa.next_named("delivered").await;
    let id = sent["id"].as_str().unwrap();
    let recipient = |status: &Value| status["recipients"][0]["status"].clone();

    hub.call("email.read", json!({ "agent": "qa", "id": id }))
        .await;
    let status = hub
        .call("email.status", json!({ "agent": "dev", "id": id }))
        .await;
    assert_eq!(recipient(&status), "delivered", "{status}");

    // qa's own process reads it.
    let qa_id = filebox_core::AgentId::new("qa").unwrap();
    let reader = Mailroom::new(Config::load(&hub.config).unwrap(), Some(&qa_id)).unwrap();
    let reference = filebox_core::MessageRef::parse(id).unwrap();
    reader
        .mark_read(&qa_id, &[reference], "qa", "read")
        .unwrap();
    let event = qa.next().await;
    assert_eq!(event.name, "read", "{event:?}");
    assert_eq!(event.data["messageId"], id);
    assert_eq!(event.data["from"], "qa");
    let status = hub
        .call("email.status", json!({ "agent": "dev", "id": id }))
        .await;
    assert_eq!(recipient(&status), "read", "{status}");
    hub.stop().await.unwrap();
}

/// Mail its reader reads at once (a wait beside the hub), before the hub looks at the inbox,
/// is still delivered: a `delivered` event, then its `read`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn mail_read_before_the_hub_looks_is_still_delivered() {
    let hub = TestHub::start().await;
    let mut qa = Events::open(&hub, "?agent=qa", None).await;
    let qa_id = filebox_core::AgentId::new("qa").unwrap();
    let config = Config::load(&hub.config).unwrap();
    let dev_id = filebox_core::AgentId::new("dev").unwrap();
    let dev = Mailroom::new(config.clone(), Some(&dev_id)).unwrap();
    let reader = Mailroom::new(config, Some(&qa_id)).unwrap();
    let mut ids = Vec::new();
    for n in 0..50 {
        let subject = format!("read at once {n}");
        let request = SendRequest::new("qa", MessageType::new("DIS").unwrap(), &subject);
        let id = dev.send(&request).unwrap().id;
        let reference = filebox_core::MessageRef::parse(id.as_str()).unwrap();
        reader
            .mark_read(&qa_id, &[reference], "qa", "wait")
            .unwrap();
        ids.push(id.as_str().to_owned());
    }
    let mut delivered = Vec::new();
    let mut read = Vec::new();
    while read.len() < ids.len() {
        let event = qa.next().await;
        let id = event.data["messageId"].as_str().unwrap().to_owned();
        match event.name.as_str() {
            "delivered" => delivered.push(id),
            "read" => {
                assert!(delivered.contains(&id), "read before delivered: {event:?}");
                read.push(id);
            }
            other => panic!("unexpected {other} event: {event:?}"),
        }
    }
    // One look may take in several messages, which come in the order of their file names.
    for seen in [&mut delivered, &mut read, &mut ids] {
        seen.sort();
    }
    assert_eq!(delivered, ids);
    assert_eq!(read, ids);
    hub.stop().await.unwrap();
}
