//! `filebox send` with a hub running: handed to it over its Unix socket and written once;
//! refused, and not written behind the hub's back, when the hub does not know the caller as
//! its user; written by the command when no hub answers; and never twice when the hub wrote it
//! but ended before answering, or never took the connection. A relay standing in the socket's
//! place (`Relay`) sees what the command sends and plays the hub that stopped mid-way.

use std::io::{Read, Write};
use std::os::unix::net::{UnixListener, UnixStream};
use std::path::PathBuf;
use std::thread::JoinHandle;

use serde_json::Value;

use crate::serve::Served;
use crate::support::Test;

/// A hub serving `t`'s config, acting by default as dev.
fn hub(t: &Test) -> Served {
    Served::start(
        t.as_agent("dev")
            .args(["serve", "--listen", "127.0.0.1:0"])
            .command(),
    )
}

/// What the relay does with the one connection it takes.
#[derive(Clone, Copy)]
enum Relay {
    /// Pass the request to the hub and its answer back.
    Both,
    /// Pass the request without its `Authorization` line (a caller the hub cannot tell is
    /// its user), and the answer back.
    Unauthenticated,
    /// Pass the request to the hub, let it write and answer, and close without the answer:
    /// the hub that stopped after writing.
    RequestOnly,
}

/// What crossed the relay: the request as the command sent it, the hub's answer.
struct Crossed {
    request: String,
    answer: String,
}

impl Relay {
    /// Put the relay at the hub's socket (the hub's own moved aside) for one connection.
    fn start(self, t: &Test) -> JoinHandle<Crossed> {
        let socket = t.path().join("hub.sock");
        let hub: PathBuf = t.path().join("hub-behind-relay.sock");
        std::fs::rename(&socket, &hub).expect("the hub's socket");
        let listener = UnixListener::bind(&socket).unwrap();
        std::thread::spawn(move || {
            let mut command = accept_in_time(&listener);
            let mut to_hub = UnixStream::connect(&hub).unwrap();
            // The head; the body follows the hub's `100 Continue`.
            let (head, mut body) = read_head(&mut command);
            let passed = match self {
                Relay::Unauthenticated => head
                    .split_inclusive("\r\n")
                    .filter(|line| !line.starts_with("Authorization:"))
                    .collect(),
                Relay::Both | Relay::RequestOnly => head.clone(),
            };
            to_hub.write_all(passed.as_bytes()).unwrap();
            let (go_on, _) = read_head(&mut to_hub);
            assert!(go_on.starts_with("HTTP/1.1 100"), "{go_on}");
            command.write_all(go_on.as_bytes()).unwrap();
            let length: usize = head
                .lines()
                .find_map(|line| line.strip_prefix("Content-Length: "))
                .map_or(0, |n| n.trim().parse().unwrap());
            while body.len() < length {
                let mut buffer = [0u8; 4096];
                let read = command.read(&mut buffer).unwrap();
                assert!(read > 0, "the body ended early");
                body.extend_from_slice(&buffer[..read]);
            }
            to_hub.write_all(&body).unwrap();
            let mut answer = String::new();
            to_hub.read_to_string(&mut answer).unwrap();
            match self {
                Relay::Both | Relay::Unauthenticated => {
                    command.write_all(answer.as_bytes()).unwrap();
                }
                Relay::RequestOnly => drop(command),
            }
            Crossed {
                request: head + &String::from_utf8(body).unwrap(),
                answer,
            }
        })
    }
}

/// The one connection a relay takes; a panic, rather than a wait without end, when no command
/// offers the hub its call.
fn accept_in_time(listener: &UnixListener) -> UnixStream {
    listener.set_nonblocking(true).unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(30);
    loop {
        match listener.accept() {
            Ok((stream, _)) => {
                stream.set_nonblocking(false).unwrap();
                return stream;
            }
            Err(e) if e.kind() == std::io::ErrorKind::WouldBlock => {
                assert!(
                    std::time::Instant::now() < deadline,
                    "no command offered the hub its call"
                );
                std::thread::sleep(std::time::Duration::from_millis(20));
            }
            Err(e) => panic!("accepting: {e}"),
        }
    }
}

/// An HTTP head read whole from `stream`, and the bytes read after it.
fn read_head(stream: &mut UnixStream) -> (String, Vec<u8>) {
    let mut bytes = Vec::new();
    let mut buffer = [0u8; 4096];
    loop {
        if let Some(end) = bytes.windows(4).position(|w| w == b"\r\n\r\n") {
            let rest = bytes.split_off(end + 4);
            return (String::from_utf8(bytes).unwrap(), rest);
        }
        let read = stream.read(&mut buffer).unwrap();
        assert!(read > 0, "the head ended early");
        bytes.extend_from_slice(&buffer[..read]);
    }
}

/// The JSON body of an HTTP message.
fn json_body(http: &str) -> Value {
    let (_, body) = http.split_once("\r\n\r\n").expect("an HTTP message");
    serde_json::from_str(body).unwrap()
}

#[test]
fn a_send_with_a_hub_running_is_written_by_the_hub_once() {
    let t = Test::new().agents(["dev", "qa"]);
    let _hub = hub(&t);
    let relay = Relay::Both.start(&t);
    let body = t.path().join("body.md");
    std::fs::write(&body, "from a file the hub cannot see\n").unwrap();
    let id = t
        .as_agent("dev")
        .args(["send", "qa", "ER", "--title", "Through the hub", "--file"])
        .args([&body])
        .success();
    let crossed = relay.join().unwrap();
    assert!(
        crossed.request.contains("Authorization: Peer\r\n"),
        "{}",
        crossed.request
    );
    let call = json_body(&crossed.request);
    assert_eq!(call["method"], "send_message", "{call}");
    assert_eq!(call["params"]["agent"], "dev", "{call}");
    assert_eq!(
        call["params"]["content"], "from a file the hub cannot see\n",
        "--file is read by the command: {call}"
    );
    let answer = json_body(&crossed.answer);
    assert_eq!(answer["result"]["id"].as_str(), Some(id.trim()), "{answer}");
    assert_eq!(t.files("qa", "inbox").len(), 1);
    assert_eq!(t.files("dev", "outbox").len(), 1);
    let read = t.read_json("qa", "inbox", id.trim());
    assert_eq!(read["title"], "Through the hub", "{read}");
}

/// Any verb that writes mail goes to the hub by its table entry, not `send` alone: a reply and a
/// resolution are the hub's calls of those verbs, answered as the command answers them.
#[test]
fn every_writing_verb_with_a_hub_running_is_handed_to_the_hub() {
    let t = Test::new().agents(["dev", "qa"]);
    let id = t
        .as_agent("qa")
        .args(["send", "dev", "ER", "first"])
        .success();
    let id = id.trim();
    let _hub = hub(&t);
    let through_relay = |args: &[&str]| {
        let relay = Relay::Both.start(&t);
        let printed = t.as_agent("dev").args(args).success();
        let crossed = relay.join().unwrap();
        std::fs::rename(
            t.path().join("hub-behind-relay.sock"),
            t.path().join("hub.sock"),
        )
        .unwrap();
        (
            printed,
            json_body(&crossed.request),
            json_body(&crossed.answer),
        )
    };

    let (printed, call, answer) = through_relay(&["reply", id, "an answer"]);
    assert_eq!(call["method"], "reply_message", "{call}");
    assert_eq!(call["params"]["agent"], "dev", "{call}");
    assert_eq!(printed.trim(), format!("{id} -> qa"), "rendered as here");
    assert_eq!(answer["result"]["delivered_to"], serde_json::json!(["qa"]));

    let id = t
        .as_agent("qa")
        .args(["send", "dev", "ER", "second"])
        .success();
    let id = id.trim();
    let (printed, call, _) = through_relay(&["--json", "resolved", id, "done here"]);
    assert_eq!(call["method"], "resolve_message", "{call}");
    assert_eq!(call["params"]["id"], id, "{call}");
    let printed: Value = serde_json::from_str(&printed).unwrap();
    assert_eq!(printed["folder"], "done", "{printed}");
    assert_eq!(t.files("dev", "done").len(), 1);
}

#[test]
fn a_send_the_hub_refuses_is_refused_and_not_written_by_the_command() {
    let t = Test::new().agents(["dev", "qa"]);
    // dev has a token: without proof of being the hub's user, a caller may not act as dev.
    t.run().args(["agents", "token", "dev"]).success();
    let _hub = hub(&t);
    let relay = Relay::Unauthenticated.start(&t);
    let stderr = t
        .as_agent("dev")
        .args(["--json", "send", "qa", "ER", "not without proof"])
        .failure();
    relay.join().unwrap();
    let error: Value = serde_json::from_str(stderr.trim()).unwrap();
    assert_eq!(error["error"]["kind"], "unauthorized", "{stderr}");
    assert!(
        error["error"]["message"]
            .as_str()
            .unwrap()
            .contains("dev has a token"),
        "{stderr}"
    );
    assert!(t.files("qa", "inbox").is_empty());
    assert!(t.files("dev", "outbox").is_empty());
}

#[test]
fn peer_authentication_is_refused_over_tcp() {
    let t = Test::new().agents(["dev", "qa"]);
    t.run().args(["agents", "token", "dev"]).success();
    let hub = hub(&t);
    let authority = hub.url.trim_start_matches("http://").trim_end_matches('/');
    let body = r#"{"jsonrpc":"2.0","id":1,"method":"send_message","params":{"agent":"dev","to":"qa","type":"ER","content":"x"}}"#;
    let mut stream = std::net::TcpStream::connect(authority).unwrap();
    write!(
        stream,
        "POST /rpc HTTP/1.1\r\nHost: {authority}\r\nAuthorization: Peer\r\nContent-Type: application/json\r\nContent-Length: {}\r\nConnection: close\r\n\r\n{body}",
        body.len()
    )
    .unwrap();
    let mut answer = String::new();
    stream.read_to_string(&mut answer).unwrap();
    assert!(answer.starts_with("HTTP/1.1 401"), "{answer}");
    assert!(
        answer.contains("only for the hub's Unix socket"),
        "{answer}"
    );
    assert!(t.files("qa", "inbox").is_empty());
}

#[test]
fn a_send_with_no_hub_answering_is_written_by_the_command() {
    let t = Test::new().agents(["dev", "qa"]);
    // A hub killed outright leaves its socket behind, and nothing answers it.
    hub(&t).kill();
    assert!(t.path().join("hub.sock").exists());
    let id = t
        .as_agent("dev")
        .args(["send", "qa", "ER", "no hub"])
        .success();
    assert_eq!(t.files("qa", "inbox").len(), 1);
    assert_eq!(t.read_json("qa", "inbox", id.trim())["title"], "no hub");
}

#[test]
fn a_hub_that_wrote_and_ended_before_answering_leaves_one_message() {
    let t = Test::new().agents(["dev", "qa"]);
    let _hub = hub(&t);

    // With a key: the command writes again with it, which finds the hub's message.
    let relay = Relay::RequestOnly.start(&t);
    let output = t
        .as_agent("dev")
        .args(["send", "qa", "ER", "keyed", "--idempotency-key", "k-1"])
        .output();
    let crossed = relay.join().unwrap();
    assert!(output.status.success(), "{output:?}");
    let hub_id = json_body(&crossed.answer)["result"]["id"]
        .as_str()
        .unwrap()
        .to_owned();
    assert_eq!(String::from_utf8_lossy(&output.stdout).trim(), hub_id);
    assert!(
        String::from_utf8_lossy(&output.stderr).contains("same idempotency key"),
        "{output:?}"
    );
    assert_eq!(t.files("qa", "inbox").len(), 1);
    assert_eq!(t.files("dev", "outbox").len(), 1);

    // Without one: the command cannot tell, says so, and writes nothing itself.
    std::fs::rename(
        t.path().join("hub-behind-relay.sock"),
        t.path().join("hub.sock"),
    )
    .unwrap();
    let relay = Relay::RequestOnly.start(&t);
    let stderr = t
        .as_agent("dev")
        .args(["send", "qa", "ER", "unkeyed"])
        .failure();
    relay.join().unwrap();
    assert!(
        stderr.contains("may or may not have been written"),
        "{stderr}"
    );
    assert_eq!(t.files("qa", "inbox").len(), 2, "the hub's, and no second");
    assert_eq!(t.files("dev", "outbox").len(), 2);
}

#[test]
fn a_hub_that_never_takes_the_connection_gets_nothing_and_the_command_writes() {
    let t = Test::new().agents(["dev", "qa"]);
    // Listening, but never accepting: the connection waits in the kernel's queue, as with a
    // hub out of file descriptors.
    let _stuck = UnixListener::bind(t.path().join("hub.sock")).unwrap();
    let id = t
        .as_agent("dev")
        .args(["send", "qa", "ER", "written here"])
        .success();
    assert_eq!(t.files("qa", "inbox").len(), 1);
    assert_eq!(
        t.read_json("qa", "inbox", id.trim())["title"],
        "written here"
    );
}
