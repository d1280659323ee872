//! A hub in-process on 127.0.0.1:0 over a temp config ([`TestHub`]), a minimal HTTP/1.1
//! client (one request per connection, [`request`]) and an SSE client ([`Events`]), so tests
//! speak to it exactly as a remote program would.

mod events;
mod http;

use std::path::{Path, PathBuf};

use filebox_core::{AgentId, Config};
use serde_json::{Value, json};
use tokio::net::TcpListener;
use tokio::sync::oneshot;
use tokio::task::JoinHandle;

pub use events::{Events, GIVE_UP, SseEvent};
pub use http::{Response, request};

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

/// A config at `dir/.filebox/config.json` with these `(id, kind)` mailboxes under
/// `dir/mailboxes`, the first one current (as `filebox init` lays it out); its path.
pub fn write_config(dir: &Path, agents: &[(&str, &str)]) -> PathBuf {
    let path = dir.join(".filebox").join("config.json");
    crate::write_config(&path, &dir.join("mailboxes"), agents);
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

    /// A hub over the config at `config` (in `dir`, which it keeps).
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

    /// The mailbox of `agent`, as [`write_config`] lays it out.
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

    /// POST a JSON-RPC call; the whole answer (a 200 is asserted).
    pub async fn call_raw(&self, method: &str, params: Value) -> Value {
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let response = self.post("/rpc", &[], body.to_string().as_bytes()).await;
        assert_eq!(response.status, 200, "{}", response.body);
        serde_json::from_str(&response.body).unwrap()
    }

    /// POST `body` (JSON) to `path`, with the Host header and these `headers`.
    pub async fn post(&self, path: &str, headers: &[(&str, &str)], body: &[u8]) -> Response {
        let host = self.addr.to_string();
        let mut all = vec![
            ("Host", host.as_str()),
            ("Content-Type", "application/json"),
        ];
        all.extend_from_slice(headers);
        request(self.addr, "POST", path, &all, body).await
    }

    /// GET `path`, with the Host header and these `headers`.
    pub async fn get(&self, path: &str, headers: &[(&str, &str)]) -> Response {
        let host = self.addr.to_string();
        let mut all = vec![("Host", host.as_str())];
        all.extend_from_slice(headers);
        request(self.addr, "GET", path, &all, b"").await
    }
}
