//! A symlink planted inside a mailbox (at `attachments/`, `attachments/<id>`, a folder, `tmp/`
//! or `.filebox/`) takes no read and no write of the hub out of the mailbox.

use crate::support;

use std::fs;
use std::os::unix::fs::symlink;
use std::path::{Path, PathBuf};

use serde_json::{Value, json};
use support::TestHub;

/// A folder outside every mailbox, holding `notes.txt` ("secret") and a message file.
fn outside(hub: &TestHub) -> PathBuf {
    let dir = hub
        .mailbox("qa")
        .parent()
        .unwrap()
        .parent()
        .unwrap()
        .join("outside");
    fs::create_dir_all(&dir).unwrap();
    fs::write(dir.join("notes.txt"), "secret").unwrap();
    dir
}

/// Everything under `dir`, so a test can tell nothing was added there.
fn listing(dir: &Path) -> Vec<String> {
    let mut names: Vec<String> = fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .collect();
    names.sort();
    names
}

/// Replace the folder `path` by a link to `target` (its contents moved aside, not lost).
fn plant(path: &Path, target: &Path) {
    if path.exists() {
        fs::rename(path, path.with_extension("moved-aside")).unwrap();
    }
    symlink(target, path).unwrap();
}

async fn send_with_file(hub: &TestHub) -> Value {
    hub.call_raw(
        "email.send",
        json!({
            "from": "dev", "to": ["qa"], "subject": "with a file", "body": "see the file",
            "sourceType": "agent",
            "attachments": [{ "name": "notes.txt", "data": "aGVsbG8=" }],
        }),
    )
    .await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_linked_attachment_folder_is_not_served() {
    let hub = TestHub::start().await;
    let outside = outside(&hub);
    let sent = send_with_file(&hub).await;
    let id = sent["result"]["id"].as_str().unwrap().to_owned();
    let route = format!("/attachments/qa/{id}/notes.txt");
    assert_eq!(hub.get(&route, &[]).await.body, "hello");

    let attachments = hub.mailbox("qa").join("attachments");
    // The message's own folder a link, then the whole `attachments/`.
    plant(&attachments.join(&id), &outside);
    let served = hub.get(&route, &[]).await;
    assert_ne!(served.status, 200, "{}", served.body);
    assert!(!served.body.contains("secret"), "{}", served.body);

    fs::create_dir_all(outside.join(&id)).unwrap();
    fs::write(outside.join(&id).join("notes.txt"), "secret").unwrap();
    plant(&attachments, &outside);
    let served = hub.get(&route, &[]).await;
    assert_ne!(served.status, 200, "{}", served.body);
    assert!(!served.body.contains("secret"), "{}", served.body);
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_attachment_is_never_written_through_a_linked_folder() {
    let hub = TestHub::start().await;
    let outside = outside(&hub);
    let before = listing(&outside);
    // The recipient's `attachments/` is a link out of its mailbox.
    fs::create_dir_all(hub.mailbox("qa")).unwrap();
    plant(&hub.mailbox("qa").join("attachments"), &outside);
    let refused = send_with_file(&hub).await;
    let message = refused["error"]["message"].as_str().unwrap_or_default();
    assert!(message.contains("symlink"), "{refused}");
    assert_eq!(listing(&outside), before);
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn linked_folders_tmp_and_state_are_refused_not_followed() {
    for planted in ["inbox", "tmp", ".filebox"] {
        let hub = TestHub::start().await;
        let outside = outside(&hub);
        // A message from dev makes qa's mailbox; then one of its folders becomes a link.
        hub.call(
            "email.send",
            json!({ "from": "dev", "to": ["qa"], "subject": "first", "body": "b", "sourceType": "agent" }),
        )
        .await;
        let before = listing(&outside);
        plant(&hub.mailbox("qa").join(planted), &outside);

        let sent = hub
            .call_raw(
                "email.send",
                json!({ "from": "dev", "to": ["qa"], "subject": "second", "body": "b", "sourceType": "agent" }),
            )
            .await;
        let inbox = hub.call_raw("email.inbox", json!({ "agent": "qa" })).await;
        for answer in [&sent, &inbox] {
            let message = answer["error"]["message"].as_str().unwrap_or_default();
            assert!(
                message.contains("symlink") || message.contains("not a folder"),
                "{planted}: {answer}"
            );
        }
        assert_eq!(listing(&outside), before, "{planted}: written outside");
        hub.stop().await.unwrap();
    }
}
