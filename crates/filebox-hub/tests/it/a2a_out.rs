//! A2A out of a mailbox against an in-process fake A2A agent: what the hub sends (the Message
//! ID as `messageId`, the thread as `contextId`, the bearer token, `A2A-Version: 1.0`, the
//! attachments as file parts), a working task as `processing`, and a task that fails as a
//! failed copy with the reason.

use crate::support;

use std::sync::{Arc, Mutex};

use filebox_core::{
    A2aRemote, AgentEntry, AgentId, Config, Folder, Mailroom, MessageRef, MessageType, SendRequest,
    Status,
};
use serde_json::{Value, json};
use support::TestHub;

/// What the fake agent was called with, and the state `GetTask` answers.
#[derive(Default)]
struct Fake {
    calls: Vec<(axum::http::HeaderMap, Value)>,
    state: String,
}

/// A fake A2A agent: `SendMessage` answers a working task `t-1`, `GetTask` the state kept in
/// `Fake::state` with a status message when it has failed.
async fn fake_agent() -> (String, Arc<Mutex<Fake>>) {
    let fake = Arc::new(Mutex::new(Fake {
        state: "TASK_STATE_WORKING".into(),
        ..Fake::default()
    }));
    let kept = Arc::clone(&fake);
    let app = axum::Router::new().fallback(axum::routing::post(
        move |headers: axum::http::HeaderMap, axum::Json(body): axum::Json<Value>| {
            let fake = Arc::clone(&kept);
            async move {
                let mut fake = fake.lock().unwrap();
                fake.calls.push((headers, body.clone()));
                let task = json!({ "id": "t-1", "contextId": "c", "status": {
                    "state": fake.state,
                    "message": { "messageId": "m", "role": "ROLE_AGENT",
                                 "parts": [{ "text": "out of disk" }] },
                } });
                let result = match body["method"].as_str() {
                    Some("SendMessage") => json!({ "task": task }),
                    _ => task,
                };
                axum::Json(json!({ "jsonrpc": "2.0", "id": body["id"], "result": result }))
            }
        },
    ));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    tokio::spawn(async move { axum::serve(listener, app).await });
    (url, fake)
}

fn mailroom(hub: &TestHub, agent: &str) -> Mailroom {
    Mailroom::new(
        Config::load(&hub.config).unwrap(),
        Some(&AgentId::new(agent).unwrap()),
    )
    .unwrap()
}

/// Wait (up to `support::GIVE_UP`) until dev's message `id` has `status`.
async fn until_status(hub: &TestHub, id: &str, status: Status) {
    let dev = mailroom(hub, "dev");
    let reference = MessageRef::Id(id.to_owned());
    let deadline = tokio::time::Instant::now() + support::GIVE_UP;
    loop {
        let now = dev.status(&reference).unwrap().status;
        if now == status {
            return;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "still {now:?}, never {status:?}"
        );
        tokio::time::sleep(std::time::Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_goes_as_send_message_and_a_failed_task_fails_the_copy_with_the_reason() {
    let (url, fake) = fake_agent().await;
    let dir = tempfile::tempdir().unwrap();
    let config = support::write_config(dir.path(), &[("me", "human"), ("dev", "agent")]);
    let remote = A2aRemote {
        url,
        token: Some("tok".into()),
    };
    Config::update(&config, |file| {
        let planner = AgentId::new("planner")?;
        file.agents.insert(planner, AgentEntry::of_a2a(&remote));
        Ok(())
    })
    .unwrap();
    let hub = TestHub::start_in(dir, config).await;
    let kind = MessageType::new("ER").unwrap();
    let sent = mailroom(&hub, "dev")
        .send(&SendRequest {
            attachments: vec![filebox_core::Attachment {
                name: "notes.txt".into(),
                mime: Some("text/plain".into()),
                bytes: b"ship it".to_vec(),
            }],
            ..SendRequest::new("planner", kind, "plan the release")
        })
        .unwrap();
    assert_eq!(sent.queued_for, [AgentId::new("planner").unwrap()]);

    until_status(&hub, &sent.id, Status::Processing).await;
    {
        let fake = fake.lock().unwrap();
        let (headers, first) = &fake.calls[0];
        assert_eq!(first["method"], "SendMessage");
        let message = &first["params"]["message"];
        assert_eq!(message["messageId"], sent.id.as_str());
        assert_eq!(message["contextId"], sent.id.as_str(), "a new thread's id");
        assert_eq!(message["parts"][0]["text"], "plan the release");
        assert!(message.get("taskId").is_none(), "{message}");
        assert_eq!(
            message["parts"][1],
            json!({ "raw": "c2hpcCBpdA==", "filename": "notes.txt", "mediaType": "text/plain" }),
            "the attachment as an inline file part"
        );
        assert_eq!(headers["authorization"], "Bearer tok");
        assert_eq!(headers["a2a-version"], "1.0");
    }

    fake.lock().unwrap().state = "TASK_STATE_FAILED".into();
    until_status(&hub, &sent.id, Status::Failed).await;
    let stand_in = mailroom(&hub, "planner").my_mailbox().unwrap();
    let copy = stand_in
        .find(&MessageRef::Id(sent.id.clone()), &[Folder::Cancel])
        .unwrap();
    let history = stand_in.read(&copy).unwrap().processing;
    let rejected = history.last().unwrap();
    assert_eq!(rejected.action, "Rejected");
    assert!(
        rejected.details.contains("t-1 failed: out of disk"),
        "{rejected:?}"
    );
    let sends = fake
        .lock()
        .unwrap()
        .calls
        .iter()
        .filter(|(_, body)| body["method"] == "SendMessage")
        .count();
    assert_eq!(sends, 1, "sent once, then followed with GetTask");
    hub.stop().await.unwrap();
}
