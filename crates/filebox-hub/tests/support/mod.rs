//! A hub in-process on 127.0.0.1:0 over a temp config, and a minimal HTTP/1.1 client (one
//! request per connection), so tests speak to it exactly as a remote program would.

#![allow(dead_code, unreachable_pub)]

pub mod ws;

use std::path::{Path, PathBuf};

use filebox_core::{AgentEntry, AgentId, Config, Mailbox};
use serde_json::{Value, json};
use tokio::io::{AsyncBufReadExt, AsyncReadExt, AsyncWriteExt, BufReader};
use tokio::net::{TcpListener, TcpStream};
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

/// Give `agent` a token (as `filebox agents token` does) and return it.
pub fn give_token(hub: &TestHub, agent: &str) -> String {
    let token = filebox_hub::new_token().unwrap();
    let hash = filebox_hub::sha256_hex(&token);
    Config::update(&hub.config, |file| {
        let entry = file.agents.get_mut(&AgentId::new(agent)?).unwrap();
        entry
            .extra
            .insert(filebox_hub::TOKEN_FIELD.into(), hash.clone().into());
        Ok(())
    })
    .unwrap();
    token
}

/// A running hub and the folder its config lives in.
pub struct TestHub {
    pub dir: tempfile::TempDir,
    pub config: PathBuf,
    pub addr: std::net::SocketAddr,
    stop: Option<oneshot::Sender<()>>,
    task: Option<JoinHandle<anyhow::Result<()>>>,
}

/// A config with these `(id, kind)` mailboxes under `dir/mailboxes`, the first one current.
pub fn write_config(dir: &Path, agents: &[(&str, &str)]) -> PathBuf {
    let path = dir.join(".filebox").join("config.json");
    let config = Config::update(&path, |file| {
        for (id, kind) in agents {
            file.agents.insert(
                AgentId::new(id)?,
                AgentEntry {
                    mailbox_path: dir.join("mailboxes").join(id),
                    kind: Some(kind.parse().unwrap()),
                    extra: Default::default(),
                },
            );
        }
        file.current_agent_id = Some(AgentId::new(agents[0].0)?);
        Ok(())
    })
    .unwrap();
    for id in config.file.agents.keys() {
        Mailbox::open(id.clone(), config.mailbox_path(id).unwrap()).unwrap();
    }
    path
}

impl TestHub {
    /// `me` (human), `dev` and `qa` (agents).
    pub async fn start() -> TestHub {
        let dir = tempfile::tempdir().unwrap();
        let config = write_config(
            dir.path(),
            &[("me", "human"), ("dev", "agent"), ("qa", "agent")],
        );
        TestHub::start_in(dir, config).await
    }

    pub async fn start_in(dir: tempfile::TempDir, config: PathBuf) -> TestHub {
        TestHub::start_with(dir, config, filebox_hub::Options::default()).await
    }

    /// [`TestHub::start_in`] with `options` (e.g. `--allow-host`).
    pub async fn start_with(
        dir: tempfile::TempDir,
        config: PathBuf,
        options: filebox_hub::Options,
    ) -> TestHub {
        let listener = TcpListener::bind("127.0.0.1:0").await.unwrap();
        let addr = listener.local_addr().unwrap();
        let (stop, stopped) = oneshot::channel::<()>();
        let loaded = Config::load(&config).unwrap();
        // Bound before the task starts: the hub accepts on both addresses from here on.
        let server = filebox_hub::Server::bind(loaded, listener, options).unwrap();
        let task = tokio::spawn(server.serve(async move {
            let _ = stopped.await;
        }));
        TestHub {
            dir,
            config,
            addr,
            stop: Some(stop),
            task: Some(task),
        }
    }

    /// Stop gracefully and return how `run` ended.
    pub async fn stop(mut self) -> anyhow::Result<()> {
        let _ = self.stop.take().unwrap().send(());
        self.task.take().unwrap().await.unwrap()
    }

    pub fn mailbox(&self, agent: &str) -> PathBuf {
        self.dir.path().join("mailboxes").join(agent)
    }

    /// The file names in a folder of a mailbox.
    pub fn files(&self, agent: &str, folder: &str) -> Vec<String> {
        let mut names: Vec<String> = std::fs::read_dir(self.mailbox(agent).join(folder))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect();
        names.sort();
        names
    }

    /// The paths of the files in a folder of a mailbox.
    pub fn files_in(&self, agent: &str, folder: &str) -> Vec<PathBuf> {
        let folder_path = self.mailbox(agent).join(folder);
        self.files(agent, folder)
            .into_iter()
            .map(|name| folder_path.join(name))
            .collect()
    }

    /// POST a JSON-RPC call; the `result`, or panic with the error.
    pub async fn call(&self, method: &str, params: Value) -> Value {
        let answer = self.call_raw(method, params).await;
        match answer.get("result") {
            Some(result) => result.clone(),
            None => panic!("{method} failed: {answer}"),
        }
    }

    /// POST a JSON-RPC call; the `error` object, or panic with the result.
    pub async fn call_err(&self, method: &str, params: Value) -> Value {
        let answer = self.call_raw(method, params).await;
        match answer.get("error") {
            Some(error) => error.clone(),
            None => panic!("{method} succeeded: {answer}"),
        }
    }

    pub async fn call_raw(&self, method: &str, params: Value) -> Value {
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let response = self.post("/rpc", &[], body.to_string().as_bytes()).await;
        assert_eq!(response.status, 200, "{}", response.body);
        serde_json::from_str(&response.body).unwrap()
    }

    pub async fn post(&self, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Response {
        let host = self.addr.to_string();
        let mut all = vec![
            ("Host", host.as_str()),
            ("Content-Type", "application/json"),
        ];
        all.extend_from_slice(headers);
        request(self.addr, "POST", path, &all, body).await
    }

    pub async fn get(&self, path: &str, headers: &[(&str, &str)]) -> Response {
        let host = self.addr.to_string();
        let mut all = vec![("Host", host.as_str())];
        all.extend_from_slice(headers);
        request(self.addr, "GET", path, &all, b"").await
    }
}

/// A response: status code, headers and body (chunked bodies are not decoded; the hub sends
/// lengths).
#[derive(Debug)]
pub struct Response {
    pub status: u16,
    /// Names in lower case, in the order received.
    pub headers: Vec<(String, String)>,
    pub body: String,
}

impl Response {
    /// The first value of the header `name` (lower case).
    pub fn header(&self, name: &str) -> Option<&str> {
        self.headers
            .iter()
            .find(|(key, _)| key == name)
            .map(|(_, value)| value.as_str())
    }
}

/// One request on a new connection, read to the end (`Connection: close`).
pub async fn request(
    addr: std::net::SocketAddr,
    method: &str,
    path: &str,
    headers: &[(&str, &str)],
    body: &[u8],
) -> Response {
    let mut stream = TcpStream::connect(addr).await.unwrap();
    let mut head = format!("{method} {path} HTTP/1.1\r\nConnection: close\r\n");
    for (name, value) in headers {
        head.push_str(&format!("{name}: {value}\r\n"));
    }
    head.push_str(&format!("Content-Length: {}\r\n\r\n", body.len()));
    stream.write_all(head.as_bytes()).await.unwrap();
    // A server may answer (413) before reading a large body and close: that is fine.
    let _ = stream.write_all(body).await;
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw).await;
    let text = String::from_utf8_lossy(&raw).into_owned();
    let (head, body) = text.split_once("\r\n\r\n").unwrap_or((&text, ""));
    let status = head
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| panic!("no status line in {head:?}"));
    let headers = head
        .lines()
        .skip(1)
        .filter_map(|line| line.split_once(':'))
        .map(|(name, value)| (name.trim().to_ascii_lowercase(), value.trim().to_owned()))
        .collect();
    Response {
        status,
        headers,
        body: body.to_owned(),
    }
}

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
