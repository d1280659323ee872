//! `filebox mcp`: what the command itself decides before serving, and a question that outlives
//! the server asking it (the protocol is tested in crates/filebox-mcp and tests/mcp).

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use serde_json::{Value, json};

use crate::support::Test;

#[test]
fn listen_refuses_an_address_beyond_this_machine() {
    let t = Test::new().agents(["a"]);
    for address in ["0.0.0.0:0", "[::]:0", "192.0.2.1:8765", "example.com:8765"] {
        let (out, err) = t
            .as_agent("a")
            .args(["mcp", "--listen", address])
            .expect_code(1);
        assert_eq!(out, "");
        assert_eq!(
            err,
            "filebox: error: --listen must be a loopback address (127.0.0.1, ::1, localhost); \
             serving MCP beyond this machine needs a token, which the hub will provide\n",
            "{address}"
        );
    }
}

/// `filebox mcp` over stdio, spoken to line by line (JSON-RPC), killed when dropped.
pub(crate) struct StdioServer {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: mpsc::Receiver<String>,
}

impl StdioServer {
    /// Start it as `agent` and complete the MCP handshake.
    fn start(t: &Test, agent: &str) -> StdioServer {
        StdioServer::start_with(t, agent, &[], json!({}))
    }

    /// Start it as `agent` with more `args` after `mcp`, declaring the client `capabilities`,
    /// and complete the MCP handshake.
    pub(crate) fn start_with(
        t: &Test,
        agent: &str,
        args: &[&str],
        capabilities: Value,
    ) -> StdioServer {
        let mut command = t
            .as_agent(agent)
            .args(["mcp"])
            .args(args.iter().copied())
            .command();
        let mut child = command
            .stdin(Stdio::piped())
            .stderr(Stdio::inherit())
            .spawn()
            .expect("start filebox mcp");
        let stdin = child.stdin.take();
        let stdout = BufReader::new(child.stdout.take().unwrap());
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(Result::ok) {
                if sender.send(line).is_err() {
                    break;
                }
            }
        });
        let mut server = StdioServer {
            child,
            stdin,
            lines,
        };
        server.call(
            0,
            "initialize",
            json!({
                "protocolVersion": "2025-06-18",
                "capabilities": capabilities,
                "clientInfo": { "name": "restart-test", "version": "1" },
            }),
        );
        server.notify("notifications/initialized");
        server
    }

    pub(crate) fn send(&mut self, message: Value) {
        let stdin = self.stdin.as_mut().expect("the session is open");
        writeln!(stdin, "{message}").unwrap();
        stdin.flush().unwrap();
    }

    pub(crate) fn notify(&mut self, method: &str) {
        self.send(json!({ "jsonrpc": "2.0", "method": method }));
    }

    /// Send a request without waiting for its answer.
    fn request(&mut self, id: u64, method: &str, params: Value) {
        self.send(json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params }));
    }

    /// The answer to request `id` (notifications and other answers skipped).
    pub(crate) fn answer(&mut self, id: u64) -> Value {
        let message = self.next_where(|message| message["id"] == json!(id));
        assert!(message.get("error").is_none(), "{message}");
        message["result"].clone()
    }

    /// The params of the next notification `method` (other messages skipped).
    pub(crate) fn notification(&mut self, method: &str) -> Value {
        self.next_where(|message| message["method"] == method && message.get("id").is_none())["params"]
            .clone()
    }

    /// The next message from the server that `wanted` accepts (others skipped).
    fn next_where(&mut self, wanted: impl Fn(&Value) -> bool) -> Value {
        loop {
            // A hang guard, not a synchronisation: the message comes long before.
            let line = self
                .lines
                .recv_timeout(Duration::from_secs(120))
                .expect("filebox mcp answers");
            let message: Value = serde_json::from_str(&line).unwrap();
            if wanted(&message) {
                return message;
            }
        }
    }

    /// End the session as a client does, closing the server's input; wait for it to exit.
    pub(crate) fn end(mut self) {
        drop(self.stdin.take());
        let status = self.child.wait().unwrap();
        assert!(status.success(), "{status}");
    }

    pub(crate) fn call(&mut self, id: u64, method: &str, params: Value) -> Value {
        self.request(id, method, params);
        self.answer(id)
    }

    pub(crate) fn tool(&mut self, id: u64, name: &str, arguments: Value) -> Value {
        self.call(
            id,
            "tools/call",
            json!({ "name": name, "arguments": arguments }),
        )
    }

    /// SIGKILL: the server dies with the tool call open.
    pub(crate) fn kill(mut self) {
        self.child.kill().unwrap();
        self.child.wait().unwrap();
    }
}

impl Drop for StdioServer {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The questions waiting for the human `me`, as `filebox questions --json` lists them.
fn open_questions(t: &Test) -> Vec<Value> {
    let out = t.as_agent("me").args(["--json", "questions"]).success();
    let listed: Value = serde_json::from_str(&out).unwrap();
    listed["questions"].as_array().unwrap().clone()
}

#[test]
fn a_question_survives_its_mcp_server_killed_and_a_new_server_gets_the_answer() {
    let t = Test::new().agents(["qa", "me"]).config(
        "agents",
        json!({
            "qa": { "mailbox_path": "mailboxes/qa" },
            "me": { "mailbox_path": "mailboxes/me", "kind": "human" },
        }),
    );
    // The human's first wait takes the inbox as it is: start it on the empty inbox, so the
    // next wait returns the question.
    t.as_agent("me")
        .args(["wait", "--timeout", "0"])
        .expect_code(3);

    let mut first = StdioServer::start(&t, "qa");
    first.request(
        1,
        "tools/call",
        json!({ "name": "ask_question", "arguments": {
            "project_directory": "/src/app", "question": "Keep the old API?", "timeout": 600,
        }}),
    );
    t.as_agent("me").args(["wait", "--timeout", "60"]).success();
    // Killed while the call waits for the answer.
    first.kill();

    // The question is a file: the human still sees it.
    let open = open_questions(&t);
    assert_eq!(open.len(), 1, "{open:?}");
    let id = open[0]["id"].as_str().unwrap().to_owned();
    assert_eq!(open[0]["title"], "Keep the old API?");

    let mut second = StdioServer::start(&t, "qa");
    let still = second.tool(2, "get_answer", json!({ "id": id }));
    assert_eq!(still["structuredContent"]["status"], "open", "{still}");

    t.as_agent("me")
        .args(["reply", &id, "Yes, keep it one more release"])
        .success();
    let answered = second.tool(3, "get_answer", json!({ "id": id }));
    assert_eq!(answered["isError"], json!(false), "{answered}");
    assert_eq!(answered["structuredContent"]["status"], "answered");
    assert_eq!(
        answered["content"][0]["text"],
        "Yes, keep it one more release"
    );
    assert!(open_questions(&t).is_empty());
    // Taken: the answer is in qa's done/, not left as new mail.
    assert!(t.files("qa", "inbox").is_empty());
    assert_eq!(t.files("qa", "done").len(), 1);
}

#[test]
fn debug_logging_goes_to_stderr_and_stdout_carries_only_json_rpc() {
    let t = Test::new().agents(["qa"]);
    let mut child = t
        .as_agent("qa")
        .args(["mcp"])
        .command()
        .env("FILEBOX_LOG", "debug")
        .stdin(Stdio::piped())
        .spawn()
        .expect("start filebox mcp");
    let mut stdin = child.stdin.take().unwrap();
    let stdout = BufReader::new(child.stdout.take().unwrap());
    let (sender, lines) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        for line in stdout.lines().map_while(Result::ok) {
            let _ = sender.send(line);
        }
    });
    for message in [
        json!({ "jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {
            "protocolVersion": "2025-06-18", "capabilities": {},
            "clientInfo": { "name": "log-test", "version": "1" },
        }}),
        json!({ "jsonrpc": "2.0", "method": "notifications/initialized" }),
        json!({ "jsonrpc": "2.0", "id": 1, "method": "tools/list" }),
    ] {
        writeln!(stdin, "{message}").unwrap();
    }
    stdin.flush().unwrap();
    let mut said = Vec::new();
    // The answer to tools/list, then the session is closed as a client closes it.
    while !said.iter().any(|line: &String| line.contains(r#""id":1"#)) {
        // A hang guard, not a synchronisation: the answer comes long before.
        said.push(
            lines
                .recv_timeout(Duration::from_secs(120))
                .expect("an answer"),
        );
    }
    drop(stdin);
    let output = child.wait_with_output().unwrap();
    reader.join().unwrap();
    said.extend(lines.try_iter());
    assert!(output.status.success(), "{}", output.status);
    for line in &said {
        let message: Value = serde_json::from_str(line)
            .unwrap_or_else(|e| panic!("not JSON-RPC on stdout ({e}): {line}"));
        assert_eq!(message["jsonrpc"], "2.0", "{line}");
    }
    let logged = String::from_utf8_lossy(&output.stderr);
    assert!(
        logged.contains("filebox mcp: debug filebox_mcp::stdio: MCP session starting agent=qa"),
        "{logged}"
    );
}
