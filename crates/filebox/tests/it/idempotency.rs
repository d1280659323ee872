//! Retries without duplicates: a send or reply repeated with its idempotency key, by a fresh
//! process after the first one finished, by processes racing each other, or after the hub that
//! wrote it was killed before answering, leaves one message and returns its first Message ID.

use std::collections::BTreeSet;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, mpsc};
use std::time::Duration;

use serde_json::{Value, json};

use crate::serve::Served;
use crate::support::Test;

/// Only for a failing test: how long an acknowledgement may take.
const DEADLINE: Duration = Duration::from_secs(60);

/// `filebox send qa ER BODY --idempotency-key KEY` as dev: the whole output.
fn keyed_send(t: &Test, key: &str, body: &str) -> std::process::Output {
    t.as_agent("dev")
        .args(["send", "qa", "ER", body, "--idempotency-key", key])
        .output()
}

fn stdout(output: &std::process::Output) -> String {
    String::from_utf8_lossy(&output.stdout).trim().to_owned()
}

/// The answer was lost: the command that wrote the message ended before anyone read its
/// output, and the caller tries again from a new process. Same Message ID, one file each.
#[test]
fn a_send_repeated_by_a_fresh_process_returns_the_first_id_and_writes_nothing() {
    let t = Test::new().agents(["dev", "qa"]);
    let first = stdout(&keyed_send(&t, "order-7", "ship it"));
    let again = keyed_send(&t, "order-7", "ship it");
    assert!(again.status.success(), "{again:?}");
    assert_eq!(stdout(&again), first);
    assert_eq!(t.files("qa", "inbox").len(), 1);
    assert_eq!(t.files("dev", "outbox").len(), 1);

    // The same key with other content: refused, naming the key, nothing written.
    let stderr = t
        .as_agent("dev")
        .args([
            "send",
            "qa",
            "ER",
            "ship the other thing",
            "--idempotency-key",
            "order-7",
        ])
        .failure();
    assert!(stderr.contains("\"order-7\""), "{stderr}");
    assert!(stderr.contains(&first), "{stderr}");
    assert_eq!(t.files("qa", "inbox").len(), 1);

    // A reply too: `filebox reply` with a key, twice, is one conversation entry.
    for _ in 0..2 {
        t.as_agent("qa")
            .args(["reply", &first, "shipped", "--idempotency-key", "ack-7"])
            .success();
    }
    let read = t.read_json("dev", "inbox", &first);
    assert_eq!(read["conversation"].as_array().unwrap().len(), 1, "{read}");
}

/// Eight processes started at once with one key: exactly one message, and every one of them
/// prints its Message ID.
#[test]
fn processes_racing_with_one_key_make_exactly_one_message() {
    let t = Test::new().agents(["dev", "qa"]);
    let children: Vec<_> = (0..8)
        .map(|_| {
            t.as_agent("dev")
                .args(["send", "qa", "ER", "once", "--idempotency-key", "race"])
                .command()
                .spawn()
                .expect("start filebox")
        })
        .collect();
    let ids: BTreeSet<String> = children
        .into_iter()
        .map(|child| {
            let output = child.wait_with_output().expect("wait for filebox");
            assert!(output.status.success(), "{output:?}");
            stdout(&output)
        })
        .collect();
    assert_eq!(ids.len(), 1, "{ids:?}");
    assert_eq!(t.files("qa", "inbox").len(), 1);
    assert_eq!(t.files("dev", "outbox").len(), 1);
}

/// Issue "a hub that holds under attack and faults": sends acknowledged by the hub but whose
/// answer a killed hub never gave are retried with their keys against a new hub; every key is
/// one message, and an acknowledged one keeps its first Message ID.
#[test]
fn sends_retried_with_their_keys_after_the_hub_was_killed_are_one_message_each() {
    let t = Test::new().agents(["dev", "qa"]);
    let params = |n: usize| json!({ "from": "dev", "to": ["qa"], "subject": format!("n{n}"), "body": "x", "sourceType": "agent", "idempotencyKey": format!("key-{n}") });
    let hub = Served::start(
        t.as_agent("dev")
            .args(["serve", "--listen", "127.0.0.1:0"])
            .command(),
    );
    let url = hub.url.clone();
    let attempted = Arc::new(AtomicUsize::new(0));
    let (acked, acks) = mpsc::channel::<(usize, String)>();
    let sender = {
        let attempted = Arc::clone(&attempted);
        std::thread::spawn(move || {
            for n in 0.. {
                attempted.store(n + 1, Ordering::SeqCst);
                let call = json!({ "jsonrpc": "2.0", "id": n, "method": "email.send", "params": params(n) });
                let Some((200, body)) =
                    crate::serve::post(&url, "/rpc", call.to_string().as_bytes())
                else {
                    return;
                };
                let answer: Value = serde_json::from_str(&body).unwrap();
                let Some(id) = answer["result"]["id"].as_str() else {
                    return;
                };
                if acked.send((n, id.to_owned())).is_err() {
                    return;
                }
            }
        })
    };
    let mut acknowledged = Vec::new();
    while acknowledged.len() < 10 {
        acknowledged.push(acks.recv_timeout(DEADLINE).expect("sends are acknowledged"));
    }
    hub.kill();
    sender.join().unwrap();
    acknowledged.extend(acks.try_iter());

    let hub = Served::start(
        t.as_agent("dev")
            .args(["serve", "--listen", "127.0.0.1:0"])
            .command(),
    );
    let attempted = attempted.load(Ordering::SeqCst);
    let retried: Vec<String> = (0..attempted)
        .map(|n| {
            let answer = hub.rpc("email.send", params(n));
            answer["result"]["id"]
                .as_str()
                .unwrap_or_else(|| panic!("retry {n}: {answer}"))
                .to_owned()
        })
        .collect();
    for (n, id) in &acknowledged {
        assert_eq!(&retried[*n], id, "send {n} was acknowledged as {id}");
    }
    let distinct: BTreeSet<&String> = retried.iter().collect();
    assert_eq!(distinct.len(), attempted, "{retried:?}");
    assert_eq!(t.files("qa", "inbox").len(), attempted);
    assert_eq!(t.files("dev", "outbox").len(), attempted);
    let (status, stderr) = hub.terminate();
    assert!(status.success(), "{stderr}");
}
