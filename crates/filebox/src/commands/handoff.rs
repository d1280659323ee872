//! A verb that writes mail (`VerbInfo::through_hub`: `send`, `reply`, `resolved`, ...) handed
//! to a running hub over its Unix socket (`.filebox/hub.sock` beside the config): the hub runs
//! the same verb as the owner of the files (`Authorization: Peer`: the kernel tells it this
//! process runs as its user) and answers once the change is durable. When no hub answers the
//! socket, the command runs the verb itself.
//!
//! Never done twice for one command: the command runs it itself only when the hub cannot have
//! the request (nothing listens; the hub did not say within 2 s that it reads it, so its body
//! was never sent; the request was not sent whole; or it was refused unread as too large). A
//! hub that took the whole request and ended without an answer may have run it; then the
//! command runs it itself only with the caller's idempotency key, which finds the hub's copy
//! if there is one, and otherwise says it does not know.

use std::io::{self, Read, Write};
use std::os::unix::net::UnixStream;
use std::time::Duration;

use anyhow::Context;
use filebox_api::VerbInfo;
use filebox_api::access::PEER_SCHEME;
use filebox_core::Mailroom;
use serde_json::{Value, json};

/// The argument that makes a retry of a write safe, in the verbs that take one (`send`,
/// `reply`): a second call with the key finds the first one's work.
const IDEMPOTENCY_KEY: &str = "idempotency_key";

/// How long the hub may take to say it reads a request (`100 Continue`): past it, the command
/// writes the message itself, having sent the hub nothing it could act on.
const CONTINUE_TIMEOUT: Duration = Duration::from_secs(2);

/// How long the hub may take to answer a send it has whole (it waits for its fsyncs): past it,
/// the command stops waiting and reports what it knows.
const ANSWER_TIMEOUT: Duration = Duration::from_secs(120);

/// What became of a call offered to the hub.
pub(crate) enum Handoff {
    /// The hub answered: the verb's outcome as JSON.
    Answered(Value),
    /// No hub has the request: the command must run the verb itself.
    NoHub,
    /// The hub took the whole request and ended without answering, and the call has an
    /// idempotency key: running it again with that key does it once either way.
    Unanswered,
}

/// A refusal or failure the hub answered: shown like the command's own error, with the kind
/// and next step the hub gave.
#[derive(Debug)]
pub(crate) struct HubError {
    pub(crate) kind: String,
    pub(crate) message: String,
    pub(crate) advice: Option<String>,
}

impl std::fmt::Display for HubError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.message)
    }
}

impl std::error::Error for HubError {}

/// Offer a call of `verb` to the hub serving `mailroom`'s config, as `mailroom`'s agent, with
/// the `arguments` (as JSON, self-contained) the command line gave.
pub(crate) fn offer(
    mailroom: &Mailroom,
    verb: &VerbInfo,
    arguments: impl FnOnce() -> anyhow::Result<Value>,
) -> anyhow::Result<Handoff> {
    let socket = filebox_hub::socket_path(mailroom.config());
    // Connected first: without a hub, nothing else is done here.
    let Ok(mut stream) = UnixStream::connect(&socket) else {
        return Ok(Handoff::NoHub);
    };
    let arguments = arguments()?;
    let keyed = arguments
        .get(IDEMPOTENCY_KEY)
        .is_some_and(|key| !key.is_null());
    let request = request_body(mailroom, verb, arguments)?;
    let answer = match post(&mut stream, &request) {
        Ok(answer) => answer,
        Err(Unsent) => return Ok(Handoff::NoHub),
    };
    match answer {
        Answer::Json(status, body) => outcome(status, body),
        Answer::TooLarge => Ok(Handoff::NoHub),
        Answer::Lost(_) if keyed => Ok(Handoff::Unanswered),
        Answer::Lost(error) => Err(error).with_context(|| {
            format!(
                "the hub at {} took `filebox {}` and stopped before answering: it may or may \
                 not have been written (look with `filebox list outbox` or `filebox status ID`; \
                 send or reply with --idempotency-key KEY to make a retry safe)",
                socket.display(),
                verb.cli
            )
        }),
    }
}

/// The JSON-RPC call: the verb by its own name, its arguments, and whom to act as.
fn request_body(
    mailroom: &Mailroom,
    verb: &VerbInfo,
    mut params: Value,
) -> anyhow::Result<Vec<u8>> {
    params["agent"] = json!(mailroom.me().as_str());
    let call = json!({
        "jsonrpc": "2.0",
        "id": 1,
        "method": verb.name,
        "params": params,
    });
    Ok(serde_json::to_vec(&call)?)
}

/// The hub's JSON-RPC answer: the verb's outcome, or its error.
fn outcome(status: u16, body: Value) -> anyhow::Result<Handoff> {
    if let Some(result) = body.get("result") {
        return Ok(Handoff::Answered(result.clone()));
    }
    let error = body.get("error").cloned().unwrap_or(Value::Null);
    let text = |value: &Value| value.as_str().map(str::to_owned);
    Err(HubError {
        kind: error["data"]["kind"]
            .as_str()
            .unwrap_or("failed")
            .to_owned(),
        message: text(&error["message"])
            .unwrap_or_else(|| format!("the hub answered HTTP {status} without a result: {body}")),
        advice: text(&error["data"]["advice"]),
    }
    .into())
}

/// The request's body was not sent whole (the hub did not say in time that it reads it, or the
/// connection broke while sending): no hub can have acted on it.
struct Unsent;

/// What came back for a request sent whole.
enum Answer {
    /// An HTTP status and a JSON body.
    Json(u16, Value),
    /// 413: the hub refused the body unread.
    TooLarge,
    /// No whole answer: the hub may or may not have acted.
    Lost(io::Error),
}

/// `POST /rpc` on `stream`, HTTP/1.1, one request, the connection closed after. The body goes
/// only once the hub says it reads it (`Expect: 100-continue`): a connection the kernel queued
/// for a hub that does not accept it (stuck, out of file descriptors) gets no `100 Continue`,
/// and a request without its body is one the hub cannot act on.
fn post(stream: &mut UnixStream, body: &[u8]) -> Result<Answer, Unsent> {
    let head = format!(
        "POST /rpc HTTP/1.1\r\nHost: localhost\r\nAuthorization: {PEER_SCHEME}\r\n\
         Content-Type: application/json\r\nContent-Length: {}\r\nExpect: 100-continue\r\n\
         Connection: close\r\n\r\n",
        body.len()
    );
    stream.write_all(head.as_bytes()).map_err(|_| Unsent)?;
    stream
        .set_read_timeout(Some(CONTINUE_TIMEOUT))
        .map_err(|_| Unsent)?;
    let mut bytes = Vec::new();
    let first = read_head(stream, &mut bytes).map_err(|_| Unsent)?;
    if first.status != 100 {
        // Answered without the body (refused before reading it, or 413).
        return Ok(answer(&first, &bytes[first.end..]).unwrap_or_else(Answer::Lost));
    }
    stream.write_all(body).map_err(|_| Unsent)?;
    bytes.drain(..first.end);
    Ok(read_final(stream, bytes).unwrap_or_else(Answer::Lost))
}

/// The final answer on `stream`, after `bytes` already read, to the connection's end.
fn read_final(stream: &mut UnixStream, mut bytes: Vec<u8>) -> io::Result<Answer> {
    stream.set_read_timeout(Some(ANSWER_TIMEOUT))?;
    stream.read_to_end(&mut bytes)?;
    let head = parse_head(&bytes)?;
    answer(&head, &bytes[head.end..])
}

/// The answer of a final response's `status` and `body`.
fn answer(head: &Head, body: &[u8]) -> io::Result<Answer> {
    if head.status == 413 {
        return Ok(Answer::TooLarge);
    }
    let body = serde_json::from_slice(body)
        .map_err(|e| malformed(&format!("an answer that is not JSON: {e}")))?;
    Ok(Answer::Json(head.status, body))
}

/// A response's status, and where its head ends in the bytes read.
struct Head {
    status: u16,
    end: usize,
}

/// Read from `stream` into `bytes` until they hold a whole response head.
fn read_head(stream: &mut UnixStream, bytes: &mut Vec<u8>) -> io::Result<Head> {
    let mut buffer = [0u8; 1024];
    loop {
        if let Ok(head) = parse_head(bytes) {
            return Ok(head);
        }
        let read = stream.read(&mut buffer)?;
        if read == 0 {
            return Err(malformed("no whole HTTP answer"));
        }
        bytes.extend_from_slice(&buffer[..read]);
    }
}

/// The first response head in `bytes`.
fn parse_head(bytes: &[u8]) -> io::Result<Head> {
    let split = bytes
        .windows(4)
        .position(|window| window == b"\r\n\r\n")
        .ok_or_else(|| malformed("no whole HTTP answer"))?;
    let head = std::str::from_utf8(&bytes[..split]).map_err(|_| malformed("a non-UTF-8 head"))?;
    let status = head
        .split(' ')
        .nth(1)
        .and_then(|code| code.parse().ok())
        .ok_or_else(|| malformed("no HTTP status"))?;
    Ok(Head {
        status,
        end: split + 4,
    })
}

fn malformed(what: &str) -> io::Error {
    io::Error::new(io::ErrorKind::InvalidData, what.to_owned())
}
