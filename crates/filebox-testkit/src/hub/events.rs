//! An SSE client of the hub's `/events`.

use serde_json::Value;
use tokio::io::{AsyncBufReadExt, AsyncWriteExt, BufReader};
use tokio::net::TcpStream;

use super::TestHub;

/// Only for a failing test: how long to wait for an event that should come at once.
pub const GIVE_UP: std::time::Duration = std::time::Duration::from_secs(20);

/// An open event stream (HTTP/1.0, so the body is the bare SSE text).
pub struct Events {
    lines: tokio::io::Lines<BufReader<TcpStream>>,
}

/// One SSE event.
#[derive(Debug)]
pub struct SseEvent {
    pub id: Option<String>,
    pub name: String,
    pub data: Value,
}

impl Events {
    /// The status code of `GET path` (an `/events` stream), read from its status line alone.
    pub async fn status(hub: &TestHub, path: &str, headers: &[(&str, &str)]) -> u16 {
        Events::held(hub, path, headers).await.0
    }

    /// `GET path` (an `/events` stream) as [`Events::status`] does, the connection kept open:
    /// the status code, and the connection (which holds its stream's slot until dropped).
    pub async fn held(hub: &TestHub, path: &str, headers: &[(&str, &str)]) -> (u16, TcpStream) {
        let mut stream = TcpStream::connect(hub.addr).await.unwrap();
        let mut request = format!("GET {path} HTTP/1.0\r\nHost: {}\r\n", hub.addr);
        for (name, value) in headers {
            request.push_str(&format!("{name}: {value}\r\n"));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut reader = BufReader::new(stream);
        let mut status = String::new();
        reader.read_line(&mut status).await.unwrap();
        let code = status
            .split_whitespace()
            .nth(1)
            .and_then(|code| code.parse().ok())
            .unwrap_or_else(|| panic!("no status in {status:?}"));
        (code, reader.into_inner())
    }

    /// Open `/events{query}` (resuming after `last_id`), once the hub has subscribed it.
    pub async fn open(hub: &TestHub, query: &str, last_id: Option<&str>) -> Events {
        let mut stream = TcpStream::connect(hub.addr).await.unwrap();
        let mut request = format!("GET /events{query} HTTP/1.0\r\nHost: {}\r\n", hub.addr);
        if let Some(id) = last_id {
            request.push_str(&format!("Last-Event-ID: {id}\r\n"));
        }
        request.push_str("\r\n");
        stream.write_all(request.as_bytes()).await.unwrap();
        let mut lines = BufReader::new(stream).lines();
        let status = lines.next_line().await.unwrap().unwrap();
        assert!(status.contains(" 200 "), "{status}");
        // The headers: once they are here, the hub has subscribed this client.
        while !lines.next_line().await.unwrap().unwrap().is_empty() {}
        Events { lines }
    }

    /// The next event ([`GIVE_UP`] guards a test that would hang).
    pub async fn next(&mut self) -> SseEvent {
        tokio::time::timeout(GIVE_UP, self.read())
            .await
            .expect("no event came")
    }

    async fn read(&mut self) -> SseEvent {
        let (mut id, mut name, mut data) = (None, String::new(), String::new());
        loop {
            let line = self.lines.next_line().await.unwrap().expect("stream ended");
            if line.is_empty() {
                if !name.is_empty() {
                    return SseEvent {
                        id,
                        name,
                        data: serde_json::from_str(&data).unwrap(),
                    };
                }
                continue;
            }
            if let Some(v) = line.strip_prefix("id: ") {
                id = Some(v.to_owned());
            } else if let Some(v) = line.strip_prefix("event: ") {
                name = v.to_owned();
            } else if let Some(v) = line.strip_prefix("data: ") {
                data.push_str(v);
            }
        }
    }

    /// The next event of this kind (others, e.g. the sender's `sent`, are skipped).
    pub async fn next_named(&mut self, name: &str) -> SseEvent {
        loop {
            let event = self.next().await;
            if event.name == name {
                return event;
            }
        }
    }
}
