//! Runners: an agent that is not running gets its command run for each message (stdin the
//! Markdown, FILEBOX_* in the environment); stdout becomes the reply, a failure or a timeout
//! rejects the message with the stderr tail; mail waiting when the hub starts is run too.

use crate::support;

use std::path::Path;

use filebox_core::{AgentId, Config, Mailroom, MessageType, SendRequest};
use serde_json::{Value, json};
use support::{Events, TestHub, write_config};

/// A hub whose `qa` runs `script` (bash) with `timeout_secs`; `before` runs on the config
/// before the hub starts.
async fn hub_with_runner(script: &str, timeout_secs: u64, before: impl FnOnce(&Path)) -> TestHub {
    let dir = tempfile::tempdir().unwrap();
    let config = write_config(
        dir.path(),
        &[("me", "human"), ("dev", "agent"), ("qa", "agent")],
    );
    let script_path = dir.path().join("runner.sh");
    std::fs::write(&script_path, script).unwrap();
    Config::update(&config, |file| {
        let qa = file.agents.get_mut(&AgentId::new("qa")?).unwrap();
        qa.extra.insert(
            "runner".into(),
            json!({ "command": ["bash", script_path], "timeout_secs": timeout_secs, "max_concurrent": 2 }),
        );
        Ok(())
    })
    .unwrap();
    before(&config);
    TestHub::start_in(dir, config).await
}

/// Wait, event by event, until `done()` holds (checked first, so nothing is missed).
async fn until(events: &mut Events, mut done: impl FnMut() -> bool) {
    while !done() {
        events.next().await;
    }
}

fn send_as_dev(config: &Path, body: &str) -> String {
    let mailroom = Mailroom::new(
        Config::load(config).unwrap(),
        Some(&AgentId::new("dev").unwrap()),
    )
    .unwrap();
    mailroom
        .send(&SendRequest::new(
            "qa",
            MessageType::new("ER").unwrap(),
            body,
        ))
        .unwrap()
        .id
}

const ANSWERS: &str = r#"input=$(cat)
echo "ran $FILEBOX_MESSAGE_ID as $FILEBOX_AGENT with config $FILEBOX_CONFIG"
echo "first line: $(echo "$input" | head -1)"
"#;

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn stdout_becomes_the_reply_and_waiting_mail_is_run_at_start() {
    let mut waiting = String::new();
    let hub = hub_with_runner(ANSWERS, 60, |config| {
        waiting = send_as_dev(config, "sent while the hub was down");
    })
    .await;
    let mut dev = Events::open(&hub, "?agent=dev", None).await;
    until(&mut dev, || hub.files("dev", "inbox").len() == 1).await;
    let answered = hub
        .call("email.read", json!({ "agent": "dev", "id": waiting }))
        .await;
    let reply = &answered["replies"][0];
    assert_eq!(reply["from"], "qa");
    let body = reply["body"].as_str().unwrap();
    assert!(
        body.contains(&format!("ran {waiting} as qa with config ")),
        "{body}"
    );
    assert!(
        body.contains("first line: # "),
        "the Markdown came on stdin: {body}"
    );
    assert_eq!(answered["history"][0]["details"], "runner: started");

    let sent = hub
        .call(
            "email.send",
            json!({ "from": "dev", "to": ["qa"], "subject": "live", "body": "live", "sourceType": "agent" }),
        )
        .await;
    until(&mut dev, || hub.files("dev", "inbox").len() == 2).await;
    let status = hub.call("email.status", json!({ "id": sent["id"] })).await;
    assert_eq!(status["status"], "replied", "{status}");
    assert!(hub.files("qa", "inbox").is_empty() && hub.files("qa", "hold").is_empty());
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_failing_command_fails_the_message_with_the_stderr_tail() {
    let script = "cat > /dev/null\necho 'something went wrong: boom' >&2\nexit 3\n";
    let hub = hub_with_runner(script, 60, |_| {}).await;
    let mut qa = Events::open(&hub, "?agent=qa", None).await;
    let sent = hub
        .call(
            "email.send",
            json!({ "from": "dev", "to": ["qa"], "subject": "fail", "body": "x", "sourceType": "agent" }),
        )
        .await;
    until(&mut qa, || hub.files("qa", "cancel").len() == 1).await;
    let failed = hub
        .call("email.read", json!({ "agent": "qa", "id": sent["id"] }))
        .await;
    assert_eq!(failed["status"], "failed");
    let last: &Value = failed["history"].as_array().unwrap().last().unwrap();
    let details = last["details"].as_str().unwrap();
    assert!(details.contains("exit status: 3"), "{details}");
    assert!(details.contains("something went wrong: boom"), "{details}");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_command_over_its_time_is_stopped_and_fails_the_message() {
    let hub = hub_with_runner("sleep 30\n", 1, |_| {}).await;
    let mut qa = Events::open(&hub, "?agent=qa", None).await;
    hub.call(
        "email.send",
        json!({ "from": "dev", "to": ["qa"], "subject": "slow", "body": "x", "sourceType": "agent" }),
    )
    .await;
    until(&mut qa, || hub.files("qa", "cancel").len() == 1).await;
    let name = &hub.files("qa", "cancel")[0];
    let text = std::fs::read_to_string(hub.mailbox("qa").join("cancel").join(name)).unwrap();
    assert!(text.contains("runner: timed out after 1 s"), "{text}");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_run_cut_off_by_a_killed_hub_is_run_again_at_start() {
    let mut claimed = String::new();
    let mut held_by_hand = String::new();
    let hub = hub_with_runner(ANSWERS, 60, |config| {
        // As a hub killed mid-run leaves it: on hold, claimed by the runner.
        claimed = send_as_dev(config, "claimed before the kill");
        held_by_hand = send_as_dev(config, "held by a person");
        let qa = Mailroom::new(
            Config::load(config).unwrap(),
            Some(&AgentId::new("qa").unwrap()),
        )
        .unwrap();
        for (id, details) in [(&claimed, "runner: started"), (&held_by_hand, "later")] {
            let reference = filebox_core::MessageRef::parse(id).unwrap();
            qa.transition(filebox_core::Transition::Hold, &reference, details)
                .unwrap();
        }
    })
    .await;
    let mut dev = Events::open(&hub, "?agent=dev", None).await;
    until(&mut dev, || hub.files("dev", "inbox").len() == 1).await;
    let answered = hub
        .call("email.read", json!({ "agent": "dev", "id": claimed }))
        .await;
    assert_eq!(answered["replies"][0]["from"], "qa");
    assert_eq!(
        hub.files("qa", "hold").len(),
        1,
        "a hold by a person is left alone"
    );
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_runner_added_to_the_config_takes_effect_without_a_restart() {
    let hub = TestHub::start().await;
    let mut dev = Events::open(&hub, "?agent=dev", None).await;
    let scripts = tempfile::tempdir().unwrap();
    let script = scripts.path().join("runner.sh");
    std::fs::write(&script, ANSWERS).unwrap();
    Config::update(&hub.config, |file| {
        let qa = file.agents.get_mut(&AgentId::new("qa")?).unwrap();
        qa.extra
            .insert("runner".into(), json!({ "command": ["bash", script] }));
        Ok(())
    })
    .unwrap();
    let sent = hub
        .call(
            "email.send",
            json!({ "from": "dev", "to": ["qa"], "subject": "added", "body": "x", "sourceType": "agent" }),
        )
        .await;
    until(&mut dev, || hub.files("dev", "inbox").len() == 1).await;
    let status = hub.call("email.status", json!({ "id": sent["id"] })).await;
    assert_eq!(status["status"], "replied", "{status}");
    hub.stop().await.unwrap();
}
