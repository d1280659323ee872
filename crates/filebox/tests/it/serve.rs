//! `filebox serve` as the real binary: the base URL on stdout's first line, JSON-RPC over
//! TCP, SIGTERM, the default workspace, tokens and the refusal to listen off loopback
//! without them. (The API itself is tested in-process in crates/filebox-hub.)

use std::io::{BufRead, BufReader, Read, Write};
use std::net::TcpStream;
use std::process::{Child, Command};

use serde_json::{Value, json};

use crate::support::Test;

/// A `filebox serve` process and the base URL it printed.
pub(crate) struct Served {
    child: Child,
    pub(crate) url: String,
}

impl Served {
    pub(crate) fn start(mut command: Command) -> Served {
        let mut child = command.spawn().expect("start filebox serve");
        let mut first = String::new();
        BufReader::new(child.stdout.as_mut().unwrap())
            .read_line(&mut first)
            .unwrap();
        assert!(first.starts_with("http://"), "first line: {first:?}");
        Served {
            child,
            url: first.trim().to_owned(),
        }
    }

    /// POST a JSON-RPC call and return the parsed answer.
    pub(crate) fn rpc(&self, method: &str, params: Value) -> Value {
        let body =
            json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }).to_string();
        let (status, body) = self.post("/rpc", body.as_bytes()).expect("the hub answers");
        assert_eq!(status, 200, "{body}");
        serde_json::from_str(&body).unwrap()
    }

    /// POST `body` to `path` (see [`post`]).
    pub(crate) fn post(&self, path: &str, body: &[u8]) -> Option<(u16, String)> {
        post(&self.url, path, body)
    }

    /// GET `path`: the status code and the response body (see [`request`]).
    pub(crate) fn get(&self, path: &str) -> Option<(u16, String)> {
        request(&self.url, "GET", path, b"")
    }

    /// The process id (of the hub itself: the commands here `exec` it).
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// SIGKILL: the hub dies at once, whatever it was doing.
    pub(crate) fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }

    /// SIGTERM, then the exit status and stderr.
    pub(crate) fn terminate(mut self) -> (std::process::ExitStatus, String) {
        let pid = self.child.id().to_string();
        let sent = Command::new("kill").args(["-TERM", &pid]).status().unwrap();
        assert!(sent.success());
        let status = self.child.wait().unwrap();
        let mut stderr = String::new();
        self.child
            .stderr
            .take()
            .unwrap()
            .read_to_string(&mut stderr)
            .unwrap();
        (status, stderr)
    }
}

/// A test that fails before it stops its hub must not leave the hub running: it would go on
/// writing in the test's temp folder while that is removed, and outlive the test.
impl Drop for Served {
    fn drop(&mut self) {
        // After `kill` or `terminate` the child is reaped already, and both calls only say so.
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// GET `path` from the hub at `authority`: the status code, or `None` without an answer.
fn get_status(authority: &str, path: &str) -> Option<u16> {
    let mut stream = TcpStream::connect(authority).ok()?;
    write!(
        stream,
        "GET {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\n\r\n"
    )
    .ok()?;
    let mut head = String::new();
    BufReader::new(stream).read_line(&mut head).ok()?;
    head.split_whitespace().nth(1)?.parse().ok()
}

/// POST `body` to `path` (see [`request`]).
pub(crate) fn post(url: &str, path: &str, body: &[u8]) -> Option<(u16, String)> {
    request(url, "POST", path, body)
}

/// `method` `path` with `body`: the status code and the response body, or `None` when the
/// connection broke before an answer (a hub killed meanwhile).
fn request(url: &str, method: &str, path: &str, body: &[u8]) -> Option<(u16, String)> {
    let authority = url.trim_start_matches("http://").trim_end_matches('/');
    let mut stream = TcpStream::connect(authority).ok()?;
    write!(
        stream,
        "{method} {path} HTTP/1.1\r\nHost: {authority}\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n\r\n",
        body.len()
    )
    .ok()?;
    // A hub may answer (413) before reading a large body, and close: that is fine.
    let _ = stream.write_all(body);
    let mut raw = Vec::new();
    let _ = stream.read_to_end(&mut raw);
    let raw = String::from_utf8_lossy(&raw);
    let (head, body) = raw.split_once("\r\n\r\n")?;
    let status = head.split_whitespace().nth(1)?.parse().ok()?;
    Some((status, body.to_owned()))
}

#[test]
fn serve_prints_its_url_answers_json_rpc_and_stops_on_sigterm() {
    let t = Test::new().agents(["dev", "qa"]);
    let served = Served::start(
        t.as_agent("dev")
            .args(["serve", "--listen", "127.0.0.1:0"])
            .command(),
    );
    assert!(served.url.ends_with('/'));
    let sent = served.rpc(
        "email.send",
        json!({ "from": "dev", "to": ["qa"], "subject": "Hello", "body": "hi", "sourceType": "agent" }),
    );
    assert_eq!(sent["result"]["from"], "dev", "{sent}");
    assert_eq!(t.files("qa", "inbox").len(), 1);
    let socket = t.path().join("hub.sock");
    assert!(socket.exists());
    let (status, stderr) = served.terminate();
    assert!(status.success(), "exit {status}: {stderr}");
    assert!(!socket.exists(), "SIGTERM removes the socket");
}

/// `command` run with the open-file limits `soft` and `hard` (through `sh -c 'ulimit ...;
/// exec ...'`, so the process is the command's own).
fn with_open_file_limits(command: &Command, soft: u64, hard: u64) -> Command {
    let mut sh = Command::new("sh");
    sh.arg("-c")
        .arg(format!(
            "ulimit -Sn {soft} && ulimit -Hn {hard} && exec \"$0\" \"$@\""
        ))
        .arg(command.get_program())
        .args(command.get_args())
        .stdin(std::process::Stdio::null())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped());
    for (name, value) in command.get_envs() {
        match value {
            Some(value) => sh.env(name, value),
            None => sh.env_remove(name),
        };
    }
    if let Some(dir) = command.get_current_dir() {
        sh.current_dir(dir);
    }
    sh
}

#[test]
fn serve_raises_its_open_file_limit_to_the_hard_limit() {
    let t = Test::new().agents(["dev"]);
    let serve = t
        .as_agent("dev")
        .args(["serve", "--listen", "127.0.0.1:0"])
        .command();
    let served = Served::start(with_open_file_limits(&serve, 256, 4096));
    let limits = std::fs::read_to_string(format!("/proc/{}/limits", served.pid())).unwrap();
    let open_files: Vec<&str> = limits
        .lines()
        .find(|line| line.starts_with("Max open files"))
        .unwrap()
        .split_whitespace()
        .collect();
    assert_eq!(open_files[3..5], ["4096", "4096"], "{limits}");
    let (status, stderr) = served.terminate();
    assert!(status.success(), "exit {status}: {stderr}");
}

#[test]
fn a_hub_out_of_file_descriptors_serves_events_again_once_they_are_free() {
    let t = Test::new()
        .agents(["dev", "qa"])
        .config("hub", json!({ "header_read_timeout_secs": 300 }));
    let serve = t
        .as_agent("dev")
        .args(["serve", "--listen", "127.0.0.1:0"])
        .command();
    // A hard limit the hub cannot raise.
    let served = Served::start(with_open_file_limits(&serve, 128, 128));
    let authority = served
        .url
        .trim_start_matches("http://")
        .trim_end_matches('/');
    let mut events = TcpStream::connect(authority).unwrap();
    write!(
        events,
        "GET /events?agent=qa HTTP/1.1\r\nHost: {authority}\r\n\r\n"
    )
    .unwrap();
    events
        .set_read_timeout(Some(std::time::Duration::from_secs(60)))
        .unwrap();
    let mut events = BufReader::new(events);
    // The stream is open (its header read) before the descriptors run out.
    let mut line = String::new();
    while events.read_line(&mut line).is_ok_and(|n| n > 0) && line != "\r\n" {
        assert!(
            !line.starts_with("HTTP/1.1 ") || line.contains("200"),
            "{line}"
        );
        line.clear();
    }

    // Idle connections take every descriptor the hub has; mail arrives meanwhile.
    let idle: Vec<TcpStream> = (0..200)
        .map(|_| TcpStream::connect(authority).unwrap())
        .collect();
    std::thread::sleep(std::time::Duration::from_secs(1));
    t.send(
        "dev",
        "qa",
        "DIS",
        "sent while the hub had no descriptor left",
    );
    std::thread::sleep(std::time::Duration::from_secs(2));
    drop(idle);

    // Once they are free, `/healthz` says the hub is whole again (its event follower up) ...
    let healthy = (0..600).any(|_| {
        std::thread::sleep(std::time::Duration::from_millis(100));
        get_status(authority, "/healthz") == Some(200)
    });
    assert!(healthy, "/healthz never came back to 200");
    // ... and it hears of new mail again and tells the event stream that stayed open.
    t.send("dev", "qa", "DIS", "sent after the descriptors came back");
    let give_up = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut seen = String::new();
    let heard = loop {
        seen.push_str(&line);
        line.clear();
        match events.read_line(&mut line) {
            Ok(0) | Err(_) => break false,
            Ok(_) if line.contains("sent after the descriptors came back") => break true,
            Ok(_) if std::time::Instant::now() > give_up => break false,
            Ok(_) => continue,
        }
    };
    if !heard {
        let (_, stderr) = served.terminate();
        panic!("no event for mail sent after the descriptors were free: {seen}\n{stderr}");
    }
    assert!(served.rpc("agents.list", json!({}))["result"].is_array());
    let (status, stderr) = served.terminate();
    assert!(status.success(), "exit {status}: {stderr}");
}

#[test]
fn serve_without_any_config_creates_the_default_workspace() {
    let t = Test::new();
    let here = t.path().join("project");
    std::fs::create_dir(&here).unwrap();
    let mut command = t.run().args(["serve", "--listen", "127.0.0.1:0"]).command();
    command.env_remove("FILEBOX_CONFIG").current_dir(&here);
    let served = Served::start(command);
    let agents = served.rpc("agents.list", json!({}));
    let kinds: Vec<(String, String)> = agents["result"]
        .as_array()
        .unwrap()
        .iter()
        .map(|a| {
            (
                a["id"].as_str().unwrap().to_owned(),
                a["kind"].as_str().unwrap().to_owned(),
            )
        })
        .collect();
    assert_eq!(
        kinds,
        [
            ("assistant".to_owned(), "agent".to_owned()),
            ("me".to_owned(), "human".to_owned())
        ]
    );
    // The README's Connect call, as it stands: the assistant asks the human (no answer within
    // the second: the question stays open in me's inbox).
    let (status, body) = served
        .post(
            "/agentassistproto.SrvAgentAssist/AskQuestion",
            br#"{"ID":"1","Request":{"ProjectDirectory":"/src/app","Question":"Which port?","Timeout":1}}"#,
        )
        .expect("the hub answers");
    assert_eq!(status, 200, "{body}");
    let answer: Value = serde_json::from_str(&body).unwrap();
    assert_eq!(answer["Meta"]["status"], "open", "{answer}");
    let open = served.rpc("questions.open", json!({ "agent": "me" }));
    assert_eq!(
        open["result"]["questions"][0]["from"], "assistant",
        "{open}"
    );
    let (status, stderr) = served.terminate();
    assert!(status.success());
    assert!(
        stderr.contains("no config found, so created") && stderr.contains("(the current agent)"),
        "{stderr}"
    );
    assert!(here.join(".filebox/config.json").is_file());
    assert!(here.join("mailboxes/me/inbox").is_dir());
}

#[test]
fn off_loopback_the_hub_needs_a_token_for_every_agent() {
    let t = Test::new().agents(["dev", "qa"]);
    let err = t
        .as_agent("dev")
        .args(["serve", "--listen", "0.0.0.0:0"])
        .failure();
    assert!(err.contains("no token: dev, qa"), "{err}");

    let token = t.run().args(["agents", "token", "dev"]).success();
    let token = token.trim();
    assert_eq!(token.len(), 64);
    let config = std::fs::read_to_string(t.config_path()).unwrap();
    assert!(!config.contains(token), "only the hash is stored");
    assert!(config.contains(&filebox_hub::sha256_hex(token)));
    let err = t
        .as_agent("dev")
        .args(["serve", "--listen", "0.0.0.0:0"])
        .failure();
    assert!(err.contains("no token: qa"), "{err}");

    t.run().args(["agents", "token", "qa"]).success();
    let served = Served::start(
        t.as_agent("dev")
            .args(["serve", "--listen", "0.0.0.0:0"])
            .command(),
    );
    let (status, _) = served.terminate();
    assert!(status.success());
    let err = t.run().args(["agents", "token", "nobody"]).failure();
    assert!(err.contains("unknown agent"), "{err}");
}

#[test]
fn serve_on_a_busy_port_fails_before_creating_anything_and_suggests_any_free_port() {
    let t = Test::new();
    let here = t.path().join("project");
    std::fs::create_dir(&here).unwrap();
    let busy = std::net::TcpListener::bind("127.0.0.1:0").unwrap();
    let address = busy.local_addr().unwrap().to_string();
    let mut command = t.run().args(["serve", "--listen", &address]).command();
    command.env_remove("FILEBOX_CONFIG").current_dir(&here);
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{stderr}");
    assert!(
        stderr.contains(&format!("cannot listen on {address}"))
            && stderr.contains("--listen 127.0.0.1:0 takes any free port"),
        "{stderr}"
    );
    assert_eq!(
        std::fs::read_dir(&here).unwrap().count(),
        0,
        "nothing created"
    );
}

#[test]
fn a_workspace_serve_creates_in_a_git_checkout_is_not_left_untracked() {
    let t = Test::new();
    let here = t.path().join("checkout");
    std::fs::create_dir(&here).unwrap();
    let git = |args: &[&str]| {
        let out = Command::new("git")
            .args(args)
            .current_dir(&here)
            .output()
            .expect("git is installed");
        assert!(out.status.success(), "git {args:?}: {out:?}");
        String::from_utf8_lossy(&out.stdout).into_owned()
    };
    git(&["init", "-q"]);
    let mut command = t.run().args(["serve", "--listen", "127.0.0.1:0"]).command();
    command.env_remove("FILEBOX_CONFIG").current_dir(&here);
    let served = Served::start(command);
    let (status, stderr) = served.terminate();
    assert!(status.success(), "{stderr}");
    assert!(stderr.contains("are ignored by git"), "{stderr}");
    assert!(here.join("mailboxes/me/inbox").is_dir());
    assert_eq!(git(&["status", "--porcelain", "--untracked-files=all"]), "");
}
