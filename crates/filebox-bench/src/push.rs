//! `push`: the Claude Code channel's push latency beside `wait_for_messages`', both through the
//! real `filebox mcp` over stdio, and the CPU an idle channel server costs.
//!
//! Two servers run: `filebox mcp --channel` as `dev` (every delivery becomes a
//! `notifications/claude/channel` line) and `filebox mcp` as `ops`, which this benchmark keeps
//! blocked in a `wait_for_messages` call. Each round this process delivers one message to each
//! (in-process, through the core: a rename, then the directory fsync) and notes the wall-clock
//! instant (CLOCK_REALTIME) `send` started; a reader thread per server notes the instant it read
//! the notification or the answer line. The difference is delivery → written and read, an upper
//! bound of delivery rename → notification written.
//!
//! Idle cost: each server's CPU time (`/proc/<pid>/stat`, user + system) over the same idle
//! seconds with no mail, the push server watching, the wait server blocked in a call.

use std::io::{BufRead, BufReader, Write};
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use filebox_core::{MessageType, SendRequest};
use serde_json::{Value, json};

use crate::fixture::{self, Fixture, Result};
use crate::options::Options;
use crate::process;
use crate::report::{self, Samples};
use crate::wait::now_ns;

pub(crate) fn run(options: &Options) -> Result<()> {
    let rounds = if options.quick { 10 } else { 100 };
    let agents = ["qa", "dev", "ops"].map(str::to_owned);
    let fixture = Fixture::new(options.dir.as_deref(), &agents)?;
    let filebox = fixture::filebox_binary()?;
    // Start both wait cursors on the empty inboxes: every later delivery is new.
    for agent in ["dev", "ops"] {
        let inbox = fixture.mailroom(agent)?.my_mailbox()?;
        inbox.wait_for_mail(Some(Duration::ZERO), &|| false)?;
    }
    let mut push = Server::start(&filebox, &fixture, "dev", &["--channel"])?;
    let mut wait = Server::start(&filebox, &fixture, "ops", &[])?;
    let qa = fixture.mailroom("qa")?;
    let kind = MessageType::new("DIS")?;
    let mut pushed = Vec::new();
    let mut waited = Vec::new();
    for n in 0..rounds {
        std::thread::sleep(Duration::from_millis(50)); // let both servers settle
        let start = now_ns();
        qa.send(&SendRequest::new("dev", kind.clone(), format!("push {n}")))?;
        let (at, line) = push.next_line()?;
        if line["method"] != "notifications/claude/channel" {
            return Err(format!("the push server said {line}").into());
        }
        pushed.push(at - start);

        wait.request(
            n + 10,
            "tools/call",
            json!({ "name": "wait_for_messages", "arguments": { "timeout": 30 } }),
        )?;
        std::thread::sleep(Duration::from_millis(50)); // let the call block
        let start = now_ns();
        qa.send(&SendRequest::new("ops", kind.clone(), format!("wait {n}")))?;
        let (at, line) = wait.next_line()?;
        if line["result"]["structuredContent"]["messages"]
            .as_array()
            .map(Vec::len)
            != Some(1)
        {
            return Err(format!("the wait answered {line}").into());
        }
        waited.push(at - start);
    }
    let row = |name: &str, values: Vec<i128>| {
        let samples = Samples::new(
            values
                .into_iter()
                .map(|ns| Duration::from_nanos(ns.max(0) as u64))
                .collect(),
        );
        vec![
            name.to_owned(),
            rounds.to_string(),
            report::ms(samples.p50()),
            report::ms(samples.p95()),
            report::ms(samples.max()),
        ]
    };
    report::table(
        "push: delivery (send() started) → line read from `filebox mcp` over stdio",
        &["path", "deliveries", "p50", "p95", "max"],
        &[
            row("notifications/claude/channel (--channel)", pushed),
            row("baseline: a blocked wait_for_messages call", waited),
        ],
    );

    let idle = Duration::from_secs(if options.quick { 1 } else { 5 });
    wait.request(
        1,
        "tools/call",
        json!({ "name": "wait_for_messages", "arguments": { "timeout": idle.as_secs() + 5 } }),
    )?;
    let (push_before, wait_before) = (push.cpu()?, wait.cpu()?);
    std::thread::sleep(idle);
    let (push_cpu, wait_cpu) = (push.cpu()? - push_before, wait.cpu()? - wait_before);
    report::table(
        "push: CPU time of the `filebox mcp` process while no mail arrives",
        &["server", "idle", "CPU", "CPU per idle second"],
        &[
            report::idle_cpu_row("--channel, watching the inbox", idle, push_cpu),
            report::idle_cpu_row("baseline: blocked in wait_for_messages", idle, wait_cpu),
        ],
    );
    Ok(())
}

/// A `filebox mcp` child spoken to in JSON lines; a reader thread stamps each line it reads.
pub(crate) struct Server {
    child: Child,
    stdin: ChildStdin,
    lines: mpsc::Receiver<(i128, String)>,
}

impl Server {
    pub(crate) fn start(
        filebox: &std::path::Path,
        fixture: &Fixture,
        agent: &str,
        args: &[&str],
    ) -> Result<Server> {
        let mut child = Command::new(filebox)
            .args(["--config"])
            .arg(fixture.config())
            .args(["--agent", agent, "mcp"])
            .args(args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            .spawn()?;
        let stdin = child.stdin.take().ok_or("no server stdin")?;
        let stdout = BufReader::new(child.stdout.take().ok_or("no server stdout")?);
        let (sender, lines) = mpsc::channel();
        std::thread::spawn(move || {
            for line in stdout.lines().map_while(std::result::Result::ok) {
                if sender.send((now_ns(), line)).is_err() {
                    break;
                }
            }
        });
        let mut server = Server {
            child,
            stdin,
            lines,
        };
        server.request(
            0,
            "initialize",
            json!({ "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "bench", "version": "1" } }),
        )?;
        server.next_line()?;
        writeln!(
            server.stdin,
            "{}",
            json!({ "jsonrpc": "2.0", "method": "notifications/initialized" })
        )?;
        Ok(server)
    }

    pub(crate) fn request(&mut self, id: u64, method: &str, params: Value) -> Result<()> {
        let message = json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": params });
        writeln!(self.stdin, "{message}")?;
        self.stdin.flush()?;
        Ok(())
    }

    /// The next line and when it was read.
    pub(crate) fn next_line(&mut self) -> Result<(i128, Value)> {
        let (at, line) = self.lines.recv_timeout(Duration::from_secs(30))?;
        Ok((at, serde_json::from_str(&line)?))
    }

    /// The process's CPU time so far (user + system).
    pub(crate) fn cpu(&self) -> Result<Duration> {
        process::cpu_time(self.child.id())
    }

    /// The process's resident memory in KiB.
    pub(crate) fn rss_kib(&self) -> Result<u64> {
        process::rss_kib(self.child.id())
    }

    /// The process's own (anonymous) resident memory in KiB.
    pub(crate) fn anonymous_kib(&self) -> Result<u64> {
        process::anonymous_kib(self.child.id())
    }
}

impl Drop for Server {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}
