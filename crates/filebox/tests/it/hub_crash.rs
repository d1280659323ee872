//! `filebox serve` killed with SIGKILL mid-send, mid-runner and mid-webhook, then started
//! again: nothing acknowledged is lost or listed twice, the runner's message is answered once,
//! the webhook is sent again under the same id; and bad input over HTTP gets a JSON-RPC error
//! and changes no file. Synchronisation is on what the hub prints, writes or sends, polled
//! with a deadline, never on sleeps.

use std::collections::{BTreeMap, BTreeSet};
use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpListener;
use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::serve::Served;
use crate::support::{FOLDERS, Test};

/// Only for a failing test: how long a condition may take to become true.
const DEADLINE: Duration = Duration::from_secs(60);

/// Poll `condition` until it holds; panic naming `what` after [`DEADLINE`].
fn until(what: &str, mut condition: impl FnMut() -> bool) {
    let start = Instant::now();
    while !condition() {
        assert!(start.elapsed() < DEADLINE, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn serve(t: &Test) -> Served {
    Served::start(
        t.as_agent("dev")
            .args(["serve", "--listen", "127.0.0.1:0"])
            .command(),
    )
}

/// The Message IDs of every file in `agent`'s `folder`, with how many files carry each.
fn ids_in(t: &Test, agent: &str, folder: &str) -> BTreeMap<String, usize> {
    let mut ids = BTreeMap::new();
    for name in t.files(agent, folder) {
        let text = std::fs::read_to_string(t.folder(agent, folder).join(&name)).unwrap();
        let id = text
            .lines()
            .find_map(|l| l.strip_prefix("**Message ID:** "))
            .unwrap_or_else(|| panic!("{name} has no Message ID: {text}"))
            .trim()
            .to_owned();
        *ids.entry(id).or_default() += 1;
    }
    ids
}

#[test]
fn a_hub_killed_mid_send_loses_no_acknowledged_message_and_lists_none_twice() {
    let t = Test::new().agents(["dev", "qa"]);
    let hub = serve(&t);
    let url = hub.url.clone();
    let (acked, acks) = mpsc::channel::<String>();
    let sender = std::thread::spawn(move || {
        for n in 0.. {
            let call = json!({ "jsonrpc": "2.0", "id": n, "method": "email.send", "params": { "from": "dev", "to": ["qa"], "subject": format!("n{n}"), "body": "x", "sourceType": "agent" } });
            let Some((200, body)) = crate::serve::post(&url, "/rpc", call.to_string().as_bytes())
            else {
                return;
            };
            let answer: Value = serde_json::from_str(&body).unwrap();
            let Some(id) = answer["result"]["id"].as_str() else {
                return;
            };
            if acked.send(id.to_owned()).is_err() {
                return;
            }
        }
    });
    let mut acknowledged = Vec::new();
    while acknowledged.len() < 25 {
        acknowledged.push(acks.recv_timeout(DEADLINE).expect("sends are acknowledged"));
    }
    hub.kill();
    sender.join().unwrap();
    acknowledged.extend(acks.try_iter());

    let hub = serve(&t);
    let inbox = hub.rpc("email.inbox", json!({ "agent": "qa" }));
    let listed: Vec<&str> = inbox["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    let distinct: BTreeSet<&str> = listed.iter().copied().collect();
    assert_eq!(distinct.len(), listed.len(), "listed twice: {listed:?}");
    for id in &acknowledged {
        assert!(distinct.contains(id.as_str()), "acknowledged {id} is lost");
    }
    // At most the one send in flight at the kill is there unacknowledged, whole.
    assert!(listed.len() <= acknowledged.len() + 1);
    let files = ids_in(&t, "qa", "inbox");
    assert!(files.values().all(|&n| n == 1), "{files:?}");
    assert_eq!(files.len(), listed.len(), "every file is listed");
    let sent = ids_in(&t, "dev", "outbox");
    assert!(acknowledged.iter().all(|id| sent.get(id) == Some(&1)));
    let (status, stderr) = hub.terminate();
    assert!(status.success(), "{stderr}");
}

/// A runner that parks the first message (writing its pid to `$MARK`) and answers later ones.
const PARKS_THEN_ANSWERS: &str = r#"cat > /dev/null
if [ -e "$MARK" ]; then echo "answer to $FILEBOX_MESSAGE_ID"; exit 0; fi
echo $$ > "$MARK.tmp" && mv "$MARK.tmp" "$MARK"
exec sleep 600
"#;

#[test]
fn a_hub_killed_mid_runner_runs_the_message_again_at_start_and_answers_it_once() {
    let t = Test::new().agents(["dev", "qa"]);
    let script = t.path().join("runner.sh");
    std::fs::write(&script, PARKS_THEN_ANSWERS).unwrap();
    let mut config: Value =
        serde_json::from_str(&std::fs::read_to_string(t.config_path()).unwrap()).unwrap();
    config["agents"]["qa"]["runner"] = json!({ "command": ["bash", script] });
    std::fs::write(t.config_path(), config.to_string()).unwrap();
    let mark = t.path().join("parked");
    let start = || {
        let mut command = t
            .as_agent("dev")
            .args(["serve", "--listen", "127.0.0.1:0"])
            .command();
        command.env("MARK", &mark);
        Served::start(command)
    };

    let hub = start();
    let sent = hub.rpc(
        "email.send",
        json!({ "from": "dev", "to": ["qa"], "subject": "work", "body": "do it", "sourceType": "agent" }),
    );
    let id = sent["result"]["id"].as_str().unwrap().to_owned();
    until("the runner to start", || mark.exists());
    hub.kill();
    // The parked command outlives a SIGKILLed hub (nothing could stop it); end it here.
    let pid = std::fs::read_to_string(&mark).unwrap();
    let _ = std::process::Command::new("kill")
        .args(["-KILL", pid.trim()])
        .status();
    assert_eq!(t.files("qa", "hold").len(), 1, "claimed: on hold");

    let hub = start();
    until("the answer", || t.files("dev", "inbox").len() == 1);
    let answered = hub.rpc("email.read", json!({ "agent": "dev", "id": id }));
    let replies = answered["result"]["replies"].as_array().unwrap();
    assert_eq!(replies.len(), 1, "answered once: {replies:?}");
    assert_eq!(replies[0]["body"], format!("answer to {id}\n"));
    assert!(t.files("qa", "hold").is_empty() && t.files("qa", "inbox").is_empty());
    let (status, stderr) = hub.terminate();
    assert!(status.success(), "{stderr}");
}

/// A receiver on 127.0.0.1:0 that reports each request's `webhook-id`, keeps the first
/// connection open without answering, and answers the later ones 200.
fn stalling_receiver() -> (String, mpsc::Receiver<String>) {
    let listener = TcpListener::bind("127.0.0.1:0").unwrap();
    let url = format!("http://{}/", listener.local_addr().unwrap());
    let (report, reports) = mpsc::channel();
    std::thread::spawn(move || {
        let mut held = Vec::new();
        for stream in listener.incoming() {
            let Ok(stream) = stream else { return };
            let mut reader = BufReader::new(stream);
            let (mut id, mut length) = (String::new(), 0usize);
            loop {
                let mut line = String::new();
                if reader.read_line(&mut line).unwrap_or(0) == 0 {
                    break;
                }
                let line = line.trim_end();
                if line.is_empty() {
                    break;
                }
                if let Some((name, value)) = line.split_once(": ") {
                    match name.to_ascii_lowercase().as_str() {
                        "webhook-id" => id = value.to_owned(),
                        "content-length" => length = value.parse().unwrap_or(0),
                        _ => {}
                    }
                }
            }
            let mut body = vec![0; length];
            let _ = reader.read_exact(&mut body);
            let first = held.is_empty();
            if report.send(id).is_err() {
                return;
            }
            let mut stream = reader.into_inner();
            if first {
                held.push(stream);
            } else {
                let _ = stream.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n");
            }
        }
    });
    (url, reports)
}

#[test]
fn a_hub_killed_mid_webhook_sends_it_again_at_start_under_the_same_id() {
    let (url, requests) = stalling_receiver();
    let t = Test::new().agents(["dev", "app"]).config(
        "hub",
        json!({ "callback_allow": [url], "webhook_secret": "whsec_c2VjcmV0" }),
    );
    let hub = serve(&t);
    let sent = hub.rpc(
        "email.send",
        json!({ "from": "app", "to": ["dev"], "subject": "Quote", "body": "price?", "sourceType": "external", "callback": { "type": "webhook", "endpoint": format!("{url}hook") } }),
    );
    let id = sent["result"]["id"].as_str().unwrap().to_owned();
    hub.rpc(
        "email.reply",
        json!({ "from": "dev", "id": id, "body": "42" }),
    );
    let first = requests
        .recv_timeout(DEADLINE)
        .expect("the webhook is sent");
    assert_eq!(first, format!("{id}#1"));
    hub.kill();

    let hub = serve(&t);
    let again = requests
        .recv_timeout(DEADLINE)
        .expect("sent again at start");
    assert_eq!(again, first, "the same webhook-id");
    until("the delivery to be recorded", || {
        let status = hub.rpc("email.status", json!({ "id": id }));
        status["result"]["webhooks"][0]["state"] == "delivered"
    });
    let status = hub.rpc("email.status", json!({ "id": id }));
    assert_eq!(status["result"]["webhooks"][0]["attempts"], 1, "{status}");
    let (status, stderr) = hub.terminate();
    assert!(status.success(), "{stderr}");
}

/// Every message file of every mailbox, and the config: what bad input must not change.
fn snapshot(t: &Test, agents: &[&str]) -> BTreeMap<String, Vec<u8>> {
    let mut files = BTreeMap::new();
    for agent in agents {
        for folder in FOLDERS {
            let dir = t.folder(agent, folder);
            for name in t.files(agent, folder) {
                files.insert(
                    format!("{agent}/{folder}/{name}"),
                    std::fs::read(dir.join(&name)).unwrap(),
                );
            }
        }
    }
    files.insert(
        "config".into(),
        std::fs::read(Path::new(&t.config_path())).unwrap(),
    );
    files
}

#[test]
fn bad_input_gets_a_json_rpc_error_and_changes_nothing() {
    let t = Test::new().agents(["dev", "qa"]);
    let hub = serve(&t);
    let sent = hub.rpc(
        "email.send",
        json!({ "from": "dev", "to": ["qa"], "subject": "s", "body": "b", "sourceType": "agent" }),
    );
    assert!(sent["result"]["id"].is_string());
    let before = snapshot(&t, &["dev", "qa"]);

    let call = |method: &str, params: Value| {
        json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }).to_string()
    };
    let bad: Vec<(&str, Vec<u8>)> = vec![
        ("malformed JSON", b"{\"jsonrpc\": \"2.0\", \"id\": 1, \"method\"".to_vec()),
        ("not an object", b"42".to_vec()),
        (
            "wrong type",
            call("email.send", json!({ "from": "dev", "to": "qa", "subject": 1, "body": "b", "sourceType": "agent" })).into_bytes(),
        ),
        (
            "unknown source type",
            call("email.send", json!({ "from": "dev", "to": ["qa"], "subject": "s", "body": "b", "sourceType": "robot" })).into_bytes(),
        ),
        (
            "unknown agent",
            call("email.send", json!({ "from": "dev", "to": ["nobody"], "subject": "s", "body": "b", "sourceType": "agent" })).into_bytes(),
        ),
        (
            "unknown sender",
            call("email.send", json!({ "from": "nobody", "to": ["qa"], "subject": "s", "body": "b", "sourceType": "agent" })).into_bytes(),
        ),
        (
            "../ in an agent",
            call("email.inbox", json!({ "agent": "../qa" })).into_bytes(),
        ),
        (
            "../ in an id",
            call("email.resolve", json!({ "agent": "qa", "id": "../../dev/outbox/x.md", "details": "d" })).into_bytes(),
        ),
        (
            "../ in a reply",
            call("email.reply", json!({ "from": "qa", "id": "../inbox", "body": "b" })).into_bytes(),
        ),
        ("unknown method", call("email.delete", json!({})).into_bytes()),
        ("100 MB body", vec![b' '; 100 * 1024 * 1024]),
    ];
    for (what, body) in bad {
        let (status, answer) = hub
            .post("/rpc", &body)
            .unwrap_or_else(|| panic!("{what}: no answer"));
        let answer: Value = serde_json::from_str(&answer)
            .unwrap_or_else(|e| panic!("{what}: not JSON ({e}): {answer}"));
        assert_eq!(answer["jsonrpc"], "2.0", "{what}: {answer}");
        assert!(answer["error"]["code"].is_i64(), "{what}: {answer}");
        assert!(answer["error"]["message"].is_string(), "{what}: {answer}");
        assert!(
            status == 200 || (what == "100 MB body" && status == 413),
            "{what}: {status}"
        );
    }
    assert_eq!(
        snapshot(&t, &["dev", "qa"]),
        before,
        "bad input changed files"
    );
    let alive = hub.rpc("agents.list", json!({}));
    assert!(alive["result"].is_array(), "the hub still answers");
    let (status, stderr) = hub.terminate();
    assert!(status.success(), "{stderr}");
}
