//! A federation for tests: a real `nats-server` (Debian's, installed by scripts/test-all) on
//! 127.0.0.1 with JetStream in a temp dir, and `filebox serve` hubs as separate processes,
//! each with its own config and mailbox root. Readiness is read from what the processes print
//! (the server's "ready" line, the hub's URL); arrivals are waited for on the core's change
//! feed, never by sleeping.

#![allow(dead_code)] // each federation test uses a different part of this

use std::io::{BufRead, BufReader, Read};
use std::path::{Path, PathBuf};
use std::process::{Child, Command, Output, Stdio};
use std::sync::{Arc, Mutex};
use std::time::{Duration, Instant};

use filebox_core::question::{AnswerWait, Asked, QuestionKind, QuestionRequest};
use filebox_core::{Config, Envelope, Feed, Folder, Mailbox, Mailroom, MessageType, SendRequest};
use filebox_federation::local_nats::LocalNats;
use serde_json::{Value, json};

/// How long a test waits for something that should happen in well under a second: a hang
/// guard, not a timing assertion.
const PATIENCE: Duration = Duration::from_secs(120);

/// A `nats-server` with JetStream, on a port of its choosing (the federation crate's
/// `LocalNats`, its folder removed after it).
pub(crate) struct Nats {
    server: LocalNats,
    _dir: tempfile::TempDir,
    pub(crate) port: u16,
}

impl Nats {
    pub(crate) fn start() -> Nats {
        Nats::start_with("")
    }

    /// Start it with `conf` as its config file (authorization, TLS: see [`Nats::prepare`] to
    /// put certificates in its folder first).
    pub(crate) fn start_with(conf: &str) -> Nats {
        Nats::prepare().run(conf)
    }

    /// `count` servers clustered with each other (JetStream clustered: a stream can have
    /// replicas on them), each on a port of its choosing for clients.
    pub(crate) fn cluster(count: usize) -> Vec<Nats> {
        // Ports for the routes between them, found free now and named in every config.
        let routes: Vec<u16> = (0..count)
            .map(|_| {
                std::net::TcpListener::bind("127.0.0.1:0")
                    .unwrap()
                    .local_addr()
                    .unwrap()
                    .port()
            })
            .collect();
        let urls: Vec<String> = routes
            .iter()
            .map(|port| format!("nats-route://127.0.0.1:{port}"))
            .collect();
        routes
            .iter()
            .enumerate()
            .map(|(n, port)| {
                Nats::start_with(&format!(
                    "server_name: n{n}\ncluster {{ name: filebox, listen: \"127.0.0.1:{port}\", \
                     routes: [{}] }}\n",
                    urls.join(", ")
                ))
            })
            .collect()
    }

    /// A folder for a server not started yet, to put files in before [`NatsDir::run`].
    pub(crate) fn prepare() -> NatsDir {
        NatsDir(
            tempfile::Builder::new()
                .prefix("filebox-nats-")
                .tempdir()
                .unwrap(),
        )
    }

    pub(crate) fn url(&self) -> String {
        self.server.url()
    }

    /// Kill the server (SIGKILL) and start it again on the same port and store.
    pub(crate) fn restart(&mut self) {
        self.server.restart().unwrap();
    }

    /// Kill the server, remove its store and start it again on the same port: what the
    /// stream held is lost.
    pub(crate) fn restart_with_empty_store(&mut self) {
        self.server.restart_with_empty_store().unwrap();
    }
}

/// The folder of a `nats-server` about to start.
pub(crate) struct NatsDir(tempfile::TempDir);

impl NatsDir {
    pub(crate) fn path(&self) -> &Path {
        self.0.path()
    }

    /// Start the server with `conf` (may be empty) as its config file, JetStream beside it.
    pub(crate) fn run(self, conf: &str) -> Nats {
        let conf_path = self.path().join("nats.conf");
        std::fs::write(&conf_path, conf).unwrap();
        let server = LocalNats::start_with(&self.path().join("jetstream"), Some(&conf_path))
            .unwrap_or_else(|e| {
                panic!("{e:#} (scripts/test-all installs it: apt-get install -y nats-server)")
            });
        Nats {
            port: server.port(),
            server,
            _dir: self.0,
        }
    }
}

/// Keep reading a child's output into `log` so it never blocks on a full pipe.
fn drain<R: BufRead + Send + 'static>(lines: std::io::Lines<R>, log: Arc<Mutex<String>>) {
    std::thread::spawn(move || {
        for line in lines.map_while(Result::ok) {
            log.lock().unwrap().push_str(&format!("{line}\n"));
        }
    });
}

/// One machine: a config with its local agents, the agents of other hubs it knows, and a
/// `filebox serve` for it when started.
pub(crate) struct Hub {
    pub(crate) name: String,
    dir: tempfile::TempDir,
    child: Option<Child>,
    /// The base URL the running `filebox serve` printed.
    url: Option<String>,
    log: Arc<Mutex<String>>,
}

impl Hub {
    /// Hub `name` on `nats` with `local` agents (the first is the current one) and `remote`
    /// agents (`name@hub`) configured.
    pub(crate) fn new(name: &str, nats: &Nats, local: &[&str], remote: &[&str]) -> Hub {
        let dir = tempfile::Builder::new()
            .prefix(&format!("filebox-hub-{name}-"))
            .tempdir()
            .unwrap();
        let mut agents = serde_json::Map::new();
        for agent in local {
            agents.insert(
                (*agent).to_owned(),
                json!({ "mailbox_path": format!("mailboxes/{agent}") }),
            );
        }
        for agent in remote {
            let hub = agent.split_once('@').unwrap().1;
            agents.insert((*agent).to_owned(), json!({ "hub": hub }));
        }
        let config = json!({
            "current_agent_id": local[0],
            "agents": agents,
            "federation": { "nats": nats.url(), "hub": name },
        });
        std::fs::write(
            dir.path().join("config.json"),
            serde_json::to_string_pretty(&config).unwrap(),
        )
        .unwrap();
        Hub {
            name: name.to_owned(),
            dir,
            child: None,
            url: None,
            log: Arc::new(Mutex::new(String::new())),
        }
    }

    /// Change this machine's config (before its hub starts).
    pub(crate) fn configure(&self, change: impl FnOnce(&mut Value)) {
        let mut config: Value =
            serde_json::from_str(&std::fs::read_to_string(self.config_path()).unwrap()).unwrap();
        change(&mut config);
        std::fs::write(
            self.config_path(),
            serde_json::to_string_pretty(&config).unwrap(),
        )
        .unwrap();
    }

    /// Call a JSON-RPC method of the running hub (as the page and other clients do); its
    /// `result`, failing the test on an error.
    pub(crate) fn rpc(&self, method: &str, params: Value) -> Value {
        let url = self.url.as_deref().expect("the hub runs");
        let call = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let (status, body) = crate::serve::post(url, "/rpc", call.to_string().as_bytes())
            .unwrap_or_else(|| panic!("hub {} did not answer {method}", self.name));
        assert_eq!(status, 200, "{method} on {}: {body}", self.name);
        let answer: Value = serde_json::from_str(&body).unwrap();
        assert!(
            answer.get("error").is_none(),
            "{method} on {}: {answer}",
            self.name
        );
        answer["result"].clone()
    }

    pub(crate) fn config_path(&self) -> PathBuf {
        self.dir.path().join("config.json")
    }

    pub(crate) fn path(&self) -> &Path {
        self.dir.path()
    }

    /// Start `filebox serve`; returns once it printed its URL.
    pub(crate) fn start(&mut self) {
        assert!(self.child.is_none(), "hub {} already runs", self.name);
        let mut child = Command::new(env!("CARGO_BIN_EXE_filebox"))
            .arg("--config")
            .arg(self.config_path())
            .args(["serve", "--listen", "127.0.0.1:0"])
            .env_remove("FILEBOX_AGENT")
            .env("HOME", self.path())
            .stdin(Stdio::null())
            .stdout(Stdio::piped())
            .stderr(Stdio::piped())
            .spawn()
            .expect("start filebox serve");
        let mut first = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut first)
            .unwrap();
        drain(
            BufReader::new(child.stderr.take().unwrap()).lines(),
            self.log.clone(),
        );
        assert!(
            first.starts_with("http://"),
            "hub {} did not start: {first:?}\n{}",
            self.name,
            self.log()
        );
        self.child = Some(child);
        self.url = Some(first.trim().to_owned());
    }

    /// `kill -9` the hub.
    pub(crate) fn kill(&mut self) {
        let mut child = self.child.take().expect("the hub runs");
        self.url = None;
        child.kill().unwrap();
        child.wait().unwrap();
    }

    /// What the hub printed on stderr so far.
    pub(crate) fn log(&self) -> String {
        self.log.lock().unwrap().clone()
    }

    /// Run the CLI as `agent` on this machine's config.
    pub(crate) fn cli(&self, agent: &str, args: &[&str]) -> Output {
        self.command(agent, args).output().unwrap()
    }

    /// Run the CLI and return its stdout, failing the test on a non-zero exit.
    pub(crate) fn ok(&self, agent: &str, args: &[&str]) -> String {
        let output = self.cli(agent, args);
        assert!(
            output.status.success(),
            "filebox {args:?} as {agent} on {}: {}\n{}",
            self.name,
            String::from_utf8_lossy(&output.stderr),
            String::from_utf8_lossy(&output.stdout)
        );
        String::from_utf8(output.stdout).unwrap()
    }

    /// The same, `--json`, parsed.
    pub(crate) fn json(&self, agent: &str, args: &[&str]) -> Value {
        let mut all = vec!["--json"];
        all.extend_from_slice(args);
        serde_json::from_str(&self.ok(agent, &all)).unwrap()
    }

    /// Send through the core in this process (fast: for many messages); the Message ID.
    pub(crate) fn send_in_process(&self, from: &str, to: &str, body: &str) -> String {
        self.send_with_attachments(from, to, body, Vec::new())
    }

    /// The same, with attachments.
    pub(crate) fn send_with_attachments(
        &self,
        from: &str,
        to: &str,
        body: &str,
        attachments: Vec<filebox_core::Attachment>,
    ) -> String {
        let config = Config::load(&self.config_path()).unwrap();
        let agent = filebox_core::AgentId::new(from).unwrap();
        let mailroom = Mailroom::new(config, Some(&agent)).unwrap();
        let kind = MessageType::new("DIS").unwrap();
        let request = SendRequest {
            attachments,
            ..SendRequest::new(to, kind, body)
        };
        mailroom.send(&request).unwrap().id
    }

    /// Ask `agent`'s human in this process and wait (as the MCP `ask_question` does) until
    /// the answer comes or `cancelled()` says the call was cancelled (the question is then
    /// withdrawn).
    pub(crate) fn ask_in_process(
        &self,
        agent: &str,
        text: &str,
        cancelled: &dyn Fn() -> bool,
    ) -> Asked {
        let config = Config::load(&self.config_path()).unwrap();
        let agent = filebox_core::AgentId::new(agent).unwrap();
        let mailroom = Mailroom::new(config, Some(&agent)).unwrap();
        let request = QuestionRequest {
            kind: QuestionKind::Question,
            project_directory: "/src/app".into(),
            text: text.into(),
            options: Vec::new(),
            client: None,
            asked_by: filebox_core::AskedBy::default(),
        };
        let wait = AnswerWait {
            timeout: Some(PATIENCE),
            cancelled,
            stopping: &|| false,
        };
        mailroom.ask_and_wait(&request, &wait).unwrap()
    }

    /// The bytes of an attachment of message `id` in `agent`'s mailbox.
    pub(crate) fn attachment(&self, agent: &str, id: &str, name: &str) -> Vec<u8> {
        self.mailbox(agent)
            .read_attachment(id, name)
            .unwrap_or_else(|e| {
                panic!(
                    "attachment {name} of {id} for {agent} on {}: {e}",
                    self.name
                )
            })
    }

    /// A command running the CLI as `agent` on this machine's config (to run in the
    /// background, e.g. a blocking `ask`).
    pub(crate) fn command(&self, agent: &str, args: &[&str]) -> Command {
        let mut command = Command::new(env!("CARGO_BIN_EXE_filebox"));
        command
            .arg("--config")
            .arg(self.config_path())
            .args(["--agent", agent])
            .args(args)
            .env_remove("FILEBOX_AGENT")
            .env("HOME", self.path())
            .stdin(Stdio::null());
        command
    }

    fn mailbox(&self, agent: &str) -> Mailbox {
        let config = Config::load(&self.config_path()).unwrap();
        let id = filebox_core::AgentId::new(agent).unwrap();
        Mailbox::open(id.clone(), config.mailbox_path(&id).unwrap()).unwrap()
    }

    /// The messages in a folder of an agent's mailbox (for a remote agent: its stand-in).
    pub(crate) fn list(&self, agent: &str, folder: Folder) -> Vec<Envelope> {
        self.mailbox(agent).list(folder).unwrap().messages
    }

    /// Wait until `done` holds for the folder's listing; returns that listing.
    pub(crate) fn wait_for(
        &self,
        agent: &str,
        folder: Folder,
        what: &str,
        done: impl Fn(&[Envelope]) -> bool,
    ) -> Vec<Envelope> {
        let mailbox = self.mailbox(agent);
        let mut feed = Feed::new();
        feed.watch(&mailbox, folder).unwrap();
        let deadline = Instant::now() + PATIENCE;
        loop {
            let listing = mailbox.list(folder).unwrap().messages;
            if done(&listing) {
                return listing;
            }
            assert!(
                Instant::now() < deadline,
                "hub {}: {what} never happened in {folder}/ of {agent} ({} there)\nhub log:\n{}",
                self.name,
                listing.len(),
                self.log()
            );
            feed.next(Some(deadline), &|| false).unwrap();
        }
    }

    /// Wait until a message with this id is in the folder; returns its envelope.
    pub(crate) fn wait_for_id(&self, agent: &str, folder: Folder, id: &str) -> Envelope {
        self.wait_for(agent, folder, &format!("message {id}"), |l| {
            l.iter().any(|e| e.header.id() == id)
        })
        .into_iter()
        .find(|e| e.header.id() == id)
        .unwrap()
    }

    /// Read the whole text of a message file, or nothing when it is being rewritten (claimed
    /// for a moment) or moved on since the listing.
    pub(crate) fn text_if_there(&self, envelope: &Envelope) -> String {
        std::fs::read_to_string(&envelope.path).unwrap_or_default()
    }

    /// Read the whole text of a message file.
    pub(crate) fn text(&self, envelope: &Envelope) -> String {
        let mut text = String::new();
        std::fs::File::open(&envelope.path)
            .unwrap()
            .read_to_string(&mut text)
            .unwrap();
        text
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        if let Some(mut child) = self.child.take() {
            let _ = child.kill();
            let _ = child.wait();
        }
    }
}
