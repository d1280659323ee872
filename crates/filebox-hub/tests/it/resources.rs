//! A hub that holds under attack and faults, connections and resources: half-sent headers,
//! idle connections and stalled bodies are closed; connections, event streams and waiting
//! calls are each bounded (a `/ws` connection takes an event stream's slot only once logged
//! in, and is closed if it never does); a batch is bounded in length and answer size; the
//! event follower comes back after a fault and `/healthz` says when it is down.

use crate::support;

use std::path::Path;
use std::time::Duration;

use filebox_core::{Config, ConfigFile};
use serde_json::{Value, json};
use support::{Events, GIVE_UP, TestHub, ws};
use tokio::io::{AsyncReadExt, AsyncWriteExt};
use tokio::net::TcpStream;

/// A hub whose config has this `hub` section; `me` (human), `dev` and `qa` (agents).
async fn hub_with(section: Value) -> TestHub {
    let dir = tempfile::tempdir().unwrap();
    let config = support::write_config(
        dir.path(),
        &[("me", "human"), ("dev", "agent"), ("qa", "agent")],
    );
    with_section(&config, section);
    TestHub::start_in(dir, config).await
}

fn with_section(config: &Path, section: Value) {
    Config::update(config, |file: &mut ConfigFile| {
        file.extra.insert("hub".into(), section);
        Ok(())
    })
    .unwrap();
}

/// Read until the hub closes the connection: what it sent, or a failed test after
/// [`GIVE_UP`].
async fn until_closed(stream: &mut TcpStream) -> String {
    let mut raw = Vec::new();
    let read = tokio::time::timeout(GIVE_UP, stream.read_to_end(&mut raw)).await;
    assert!(read.is_ok(), "the hub kept the connection open");
    String::from_utf8_lossy(&raw).into_owned()
}

/// Whether the hub has closed `stream` already: one read that does not wait.
fn closed_now(stream: TcpStream) -> bool {
    use std::io::Read;
    let mut stream = stream.into_std().unwrap();
    stream.set_nonblocking(true).unwrap();
    !matches!(stream.read(&mut [0u8; 1]), Err(e) if e.kind() == std::io::ErrorKind::WouldBlock)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn half_sent_headers_and_idle_kept_alive_connections_are_closed() {
    let hub = hub_with(json!({ "header_read_timeout_secs": 1 })).await;
    let mut slow = Vec::new();
    for _ in 0..300 {
        let mut stream = TcpStream::connect(hub.addr).await.unwrap();
        let half = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\nX-Slow: ", hub.addr);
        stream.write_all(half.as_bytes()).await.unwrap();
        slow.push(stream);
    }
    // A kept-alive connection: one request answered, then nothing.
    let mut idle = TcpStream::connect(hub.addr).await.unwrap();
    let request = format!("GET /healthz HTTP/1.1\r\nHost: {}\r\n\r\n", hub.addr);
    idle.write_all(request.as_bytes()).await.unwrap();

    let mut closed = 0;
    for stream in &mut slow {
        until_closed(stream).await;
        closed += 1;
    }
    assert_eq!(closed, 300, "every half-sent header is closed");
    let answered = until_closed(&mut idle).await;
    assert!(answered.starts_with("HTTP/1.1 200"), "{answered}");
    assert!(
        answered.ends_with("ok\n"),
        "one answer, then closed: {answered}"
    );
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_request_body_that_stops_coming_is_cut_off() {
    let hub = hub_with(json!({ "idle_timeout_secs": 1 })).await;
    let mut stream = TcpStream::connect(hub.addr).await.unwrap();
    let head = format!(
        "POST /rpc HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\nContent-Length: 1000\r\n\r\n{{\"jsonrpc\":",
        hub.addr
    );
    stream.write_all(head.as_bytes()).await.unwrap();
    let answer = until_closed(&mut stream).await;
    assert!(answer.starts_with("HTTP/1.1 408"), "{answer}");
    assert!(
        answer.contains("no byte of the request body came"),
        "{answer}"
    );
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_the_client_stops_taking_is_cut_off() {
    let hub = hub_with(json!({ "idle_timeout_secs": 1 })).await;
    // An answer far larger than the socket buffers on both sides can hold.
    const SIZE: usize = 64 << 20;
    let folder = hub.mailbox("qa").join("attachments").join("big-1");
    std::fs::create_dir_all(&folder).unwrap();
    std::fs::write(folder.join("big.bin"), vec![b'x'; SIZE]).unwrap();
    let socket = tokio::net::TcpSocket::new_v4().unwrap();
    socket.set_recv_buffer_size(4096).unwrap();
    let mut stream = socket.connect(hub.addr).await.unwrap();
    let request = format!(
        "GET /attachments/qa/big-1/big.bin HTTP/1.1\r\nHost: {}\r\n\r\n",
        hub.addr
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    // The client takes nothing for longer than the idle timeout ...
    tokio::time::sleep(Duration::from_secs(3)).await;
    // ... and then finds the connection closed before the answer's end.
    let mut taken = Vec::new();
    let read = tokio::time::timeout(GIVE_UP, stream.read_to_end(&mut taken)).await;
    assert!(read.is_ok(), "the hub kept the connection open");
    assert!(
        taken.len() < SIZE,
        "the whole answer was sent: {} bytes",
        taken.len()
    );
    // The hub serves others meanwhile and after.
    assert_eq!(hub.get("/healthz", &[]).await.status, 200);
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn past_the_connection_cap_a_client_is_served_once_another_closed() {
    // Two slots, both held by clients that send nothing: a third is served only after the
    // header timeout closed one of them (without the cap it would be served at once).
    let hub = hub_with(json!({ "max_connections": 2, "header_read_timeout_secs": 2 })).await;
    let first = TcpStream::connect(hub.addr).await.unwrap();
    let second = TcpStream::connect(hub.addr).await.unwrap();
    let answer = tokio::time::timeout(GIVE_UP, hub.get("/healthz", &[]))
        .await
        .expect("the third client is served in the end");
    assert_eq!(answer.status, 200);
    assert!(
        closed_now(first) || closed_now(second),
        "the third client was served while both slots were held"
    );
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn event_streams_past_their_bound_are_refused_and_requests_still_served() {
    let hub = hub_with(json!({ "max_event_streams": 2 })).await;
    let _first = Events::open(&hub, "", None).await;
    let _second = Events::open(&hub, "", None).await;
    assert_eq!(Events::status(&hub, "/events", &[]).await, 503);
    let refused = hub.get("/events", &[]).await;
    assert_eq!(refused.header("retry-after"), Some("5"));
    assert!(
        refused.body.contains("hub.max_event_streams"),
        "{}",
        refused.body
    );
    assert!(refused.body.contains("retry later"), "{}", refused.body);
    // Ordinary requests are not starved by the streams.
    assert_eq!(hub.get("/healthz", &[]).await.status, 200);
    hub.call("email.inbox", json!({ "agent": "qa" })).await;
    hub.stop().await.unwrap();
}

/// `/ws` connections that never log in hold no slot of the event-stream bound, and the hub
/// closes them: with the bound at 2, three idle upgrades leave a token holder's `/events`
/// answered 200, and the human's login served; the two take the two slots (a second login is
/// refused, and so is `/events`); each idle socket is told to log in first and closed.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn websockets_that_do_not_log_in_hold_no_event_stream_and_are_closed() {
    let hub = hub_with(json!({ "max_event_streams": 2 })).await;
    let qa = support::give_token(&hub, "qa");
    let me = support::give_token(&hub, "me");
    let mut idle = Vec::new();
    for _ in 0..3 {
        idle.push(ws::connect(hub.addr).await);
    }
    let bearer = format!("Bearer {qa}");
    let with_token = [("Authorization", bearer.as_str())];
    let (status, _stream) = Events::held(&hub, "/events?agent=qa", &with_token).await;
    assert_eq!(status, 200);

    let mut logged_in = ws::connect(hub.addr).await;
    let login = ws::log_in(&mut logged_in, &me).await;
    assert!(login.success, "{}", login.error_message);
    let mut second = ws::connect(hub.addr).await;
    let refused = ws::log_in(&mut second, &me).await;
    assert!(!refused.success);
    assert!(
        refused.error_message.contains("hub.max_event_streams"),
        "{}",
        refused.error_message
    );
    assert_eq!(
        Events::status(&hub, "/events?agent=qa", &with_token).await,
        503
    );

    for mut socket in idle {
        let told = tokio::time::timeout(GIVE_UP, ws::next_login_response(&mut socket))
            .await
            .expect("the hub kept an idle /ws connection open");
        let told = told.expect("the hub says why it closes");
        assert!(!told.success);
        assert!(
            told.error_message.contains("UserLogin"),
            "{}",
            told.error_message
        );
        assert!(
            tokio::time::timeout(GIVE_UP, ws::next_login_response(&mut socket))
                .await
                .expect("closed after saying why")
                .is_none()
        );
    }
    drop(logged_in);
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn waiting_calls_past_their_bound_answer_busy_on_json_rpc_and_connect() {
    let hub = hub_with(json!({ "max_waiting_calls": 1 })).await;
    let mut human = Events::open(&hub, "?agent=me", None).await;
    // One question waits: its message reaching the human's inbox shows it holds the slot.
    let ask =
        json!({ "agent": "dev", "project_directory": "/src", "question": "ok?", "timeout": 60 });
    let asking = {
        let (addr, host) = (hub.addr, hub.addr.to_string());
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": "ask_question", "params": ask });
        tokio::spawn(async move {
            let headers = [
                ("Host", host.as_str()),
                ("Content-Type", "application/json"),
            ];
            support::request(addr, "POST", "/rpc", &headers, body.to_string().as_bytes()).await
        })
    };
    let question = human.next_named("delivered").await;

    let busy = hub
        .call_err("wait_for_messages", json!({ "agent": "qa", "timeout": 1 }))
        .await;
    assert_eq!(busy["code"], 1022, "{busy}");
    assert_eq!(busy["data"]["kind"], "busy");
    assert!(
        busy["message"].as_str().unwrap().contains("retry later"),
        "{busy}"
    );
    assert_eq!(
        hub.call_err("ask_question", ask.clone()).await["code"],
        1022
    );
    let connect = hub
        .post(
            "/agentassistproto.SrvAgentAssist/AskQuestion",
            &[],
            json!({ "ID": "1", "Request": { "Question": "ok?" } })
                .to_string()
                .as_bytes(),
        )
        .await;
    assert_eq!(connect.status, 429, "{}", connect.body);
    let error: Value = serde_json::from_str(&connect.body).unwrap();
    assert_eq!(error["code"], "resource_exhausted", "{error}");
    // A tool that waits, called at `/mcp`, counts against the same bound.
    let mcp = mcp_call(&hub, "wait_for_messages", json!({ "timeout": 1 })).await;
    assert_eq!(mcp["error"]["code"], 1022, "{mcp}");
    assert_eq!(mcp["id"], 7, "{mcp}");
    // Calls that do not wait are served meanwhile.
    hub.call("email.inbox", json!({ "agent": "qa" })).await;

    // The answer ends the wait and gives the slot back.
    hub.call(
        "email.reply",
        json!({ "from": "me", "id": question.data["messageId"], "body": "yes" }),
    )
    .await;
    let answered = tokio::time::timeout(GIVE_UP, asking)
        .await
        .unwrap()
        .unwrap();
    assert!(answered.body.contains("yes"), "{}", answered.body);
    let waited = hub
        .call("wait_for_messages", json!({ "agent": "qa", "timeout": 0 }))
        .await;
    assert!(waited["messages"].is_array(), "{waited}");
    hub.stop().await.unwrap();
}

/// One `tools/call` in a new MCP session at `/mcp`: the JSON-RPC answer (id 7).
async fn mcp_call(hub: &TestHub, tool: &str, arguments: Value) -> Value {
    let mut headers = vec![
        ("Accept", "application/json, text/event-stream"),
        ("MCP-Protocol-Version", "2025-06-18"),
    ];
    let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "bound", "version": "1" } } });
    let opened = hub
        .post("/mcp", &headers, initialize.to_string().as_bytes())
        .await;
    let session = opened.header("mcp-session-id").unwrap().to_owned();
    headers.push(("Mcp-Session-Id", &session));
    let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
    hub.post("/mcp", &headers, initialized.to_string().as_bytes())
        .await;
    let call = json!({ "jsonrpc": "2.0", "id": 7, "method": "tools/call", "params": { "name": tool, "arguments": arguments } });
    let answer = hub
        .post("/mcp", &headers, call.to_string().as_bytes())
        .await;
    // A JSON body, or an event stream whose data line holds it.
    let json = answer
        .body
        .lines()
        .map(|line| line.strip_prefix("data:").unwrap_or(line).trim())
        .find(|line| line.starts_with('{'))
        .unwrap_or_else(|| panic!("no answer in {}", answer.body));
    serde_json::from_str(json).unwrap()
}

/// A JSON-RPC batch of `count` calls of `method`.
fn batch(method: &str, count: usize) -> Vec<u8> {
    let calls: Vec<Value> = (0..count)
        .map(|id| json!({ "jsonrpc": "2.0", "id": id, "method": method }))
        .collect();
    serde_json::to_vec(&calls).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_batch_is_bounded_in_length_and_in_answer_size() {
    let hub = TestHub::start().await;
    // The body of the report: 2,000 rpc.discover calls (it drew a 51 MiB answer).
    let body = batch("rpc.discover", 2000);
    let refused = hub.post("/rpc", &[], &body).await;
    assert_eq!(refused.status, 200);
    let answer: Value = serde_json::from_str(&refused.body).unwrap();
    let start = &refused.body[..refused.body.len().min(300)];
    assert_eq!(
        answer["error"]["code"],
        -32600,
        "{} bytes: {start}",
        refused.body.len()
    );
    assert!(
        answer["error"]["message"]
            .as_str()
            .unwrap()
            .contains("at most 100"),
        "{answer}"
    );
    eprintln!(
        "a batch of 2,000 rpc.discover ({} bytes): an answer of {} bytes",
        body.len(),
        refused.body.len()
    );

    // 100 calls are taken; once the answers hold 2 MiB, the rest are not run.
    let answer = hub.post("/rpc", &[], &batch("rpc.discover", 100)).await;
    let answers: Vec<Value> = serde_json::from_str(&answer.body).unwrap();
    assert_eq!(answers.len(), 100, "one answer per call");
    let run = answers.iter().filter(|a| a.get("result").is_some()).count();
    let refused: Vec<&Value> = answers
        .iter()
        .filter(|a| a.get("error").is_some())
        .collect();
    assert!(
        run > 0 && !refused.is_empty(),
        "{run} run, {} refused",
        refused.len()
    );
    assert_eq!(run + refused.len(), 100);
    assert!(
        answers[..run].iter().all(|a| a.get("result").is_some()),
        "the first ones run"
    );
    assert_eq!(refused[0]["error"]["code"], 1023);
    assert_eq!(refused[0]["error"]["data"]["kind"], "answer_too_large");
    assert_eq!(refused[0]["id"], run, "each refusal carries its call's id");
    let document = serde_json::to_vec(&answers[0]).unwrap().len();
    assert!(
        answer.body.len() < (2 << 20) + 2 * document,
        "{} bytes",
        answer.body.len()
    );
    eprintln!(
        "a batch of 100 rpc.discover: {run} answered ({} bytes each), {} refused, {} bytes in all",
        document,
        refused.len(),
        answer.body.len()
    );
    hub.stop().await.unwrap();
}

/// Poll `/healthz` until its status is `status`; its body then (a failed test after
/// [`GIVE_UP`]).
async fn health_becomes(hub: &TestHub, status: u16) -> String {
    let deadline = tokio::time::Instant::now() + GIVE_UP;
    loop {
        let answer = hub.get("/healthz", &[]).await;
        if answer.status == status {
            return answer.body;
        }
        assert!(
            tokio::time::Instant::now() < deadline,
            "/healthz stayed {}: {}",
            answer.status,
            answer.body
        );
        tokio::time::sleep(Duration::from_millis(50)).await;
    }
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_event_follower_comes_back_after_a_fault_and_healthz_says_while_it_is_down() {
    let hub = TestHub::start().await;
    assert_eq!(health_becomes(&hub, 200).await, "ok\n");
    let mut qa = Events::open(&hub, "?agent=qa", None).await;

    // A fault the follower cannot get past: qa's inbox is no longer a folder.
    let inbox = hub.mailbox("qa").join("inbox");
    let away = hub.mailbox("qa").join("inbox.away");
    std::fs::rename(&inbox, &away).unwrap();
    std::fs::write(&inbox, "not a folder").unwrap();
    let down = health_becomes(&hub, 503).await;
    assert!(down.starts_with("events is down (retrying): "), "{down}");
    assert!(down.contains("inbox"), "the error names the folder: {down}");

    // Put right: the follower is started again, says events may have been missed, and
    // follows the mailboxes as before.
    std::fs::remove_file(&inbox).unwrap();
    std::fs::rename(&away, &inbox).unwrap();
    assert_eq!(health_becomes(&hub, 200).await, "ok\n");
    assert_eq!(qa.next().await.name, "resync");
    let sent = hub
        .call(
            "email.send",
            json!({ "from": "dev", "to": ["qa"], "subject": "after", "body": "b", "sourceType": "agent" }),
        )
        .await;
    let delivered = qa.next_named("delivered").await;
    assert_eq!(delivered.data["messageId"], sent["id"]);
    hub.stop().await.unwrap();
}

#[test]
fn a_zero_bound_refuses_the_start() {
    let dir = tempfile::tempdir().unwrap();
    let config = support::write_config(dir.path(), &[("me", "human")]);
    with_section(&config, json!({ "max_connections": 0 }));
    let runtime = tokio::runtime::Runtime::new().unwrap();
    let refused = runtime.block_on(async {
        let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
        filebox_hub::Server::bind(
            Config::load(&config).unwrap(),
            listener,
            filebox_hub::Options::default(),
        )
        .err()
        .expect("refused")
    });
    assert!(
        refused
            .to_string()
            .contains("max_connections must be at least 1"),
        "{refused}"
    );
}
