//! `growth`: what a large inbox costs the processes that watch it. An inbox of 100,000 messages
//! (`--quick`: 10,000; written straight to disk, as another tool would) is watched by a hub:
//! how long its start takes (until its CPU time stays put: its first look for the webhooks
//! owed reads every file), its resident memory then, after 100 `email.send`s into that inbox,
//! after 1,000 more and after 1,000 more again (growth from the second thousand on is per
//! message, not a one-time cost such as the index catching up with the written files), and
//! after ten `email.inbox` calls for the inbox's oldest 20 (a worker asking for its next mail);
//! then `filebox wait --timeout 0` on it, the first wait ever (no cursor yet) and one that
//! finds a new message, with the cursor file's size. With `--baseline OLD_FILEBOX`, the same is
//! measured with that binary first, in the same run and on the same mailboxes.

use std::net::SocketAddr;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use serde_json::json;

use crate::fixture::{Fixture, Result, filebox_binary};
use crate::http::Connection;
use crate::hub::{Hub, load_average};
use crate::options::Options;
use crate::process;
use crate::report::{self, ms};

pub(crate) fn run(options: &Options) -> Result<()> {
    let messages = if options.quick { 10_000 } else { 100_000 };
    let filebox = filebox_binary()?;
    let agents = ["qa".to_owned(), "dev".to_owned()];
    let mailboxes = Fixture::new(options.dir.as_deref(), &agents)?;
    let filled = Instant::now();
    fill(&mailboxes, messages)?;
    println!(
        "\ngrowth: {messages} messages written to dev's inbox in {:.1} s",
        filled.elapsed().as_secs_f64()
    );
    let load_before = load_average();
    let mut binaries = Vec::new();
    if let Some(baseline) = &options.baseline {
        binaries.push(("baseline", baseline.clone()));
    }
    binaries.push(("this build", filebox));
    let mut rows = Vec::new();
    for (name, binary) in &binaries {
        rows.push(measure(name, binary, &mailboxes)?);
    }
    let load_after = load_average();
    report::table(
        &format!("A hub and `filebox wait` on an inbox of {messages} messages"),
        &[
            "filebox",
            "start settled in",
            "hub RSS then",
            "after 100 sends",
            "after 1,100 sends",
            "after 2,100 sends",
            "after 10 `email.inbox` (20 each)",
            "first `wait` ever",
            "`wait` finding 1",
            "cursor file",
        ],
        &rows,
    );
    println!("\nload average (1, 5, 15 min): before {load_before}, after {load_after}");
    Ok(())
}

/// `count` messages in dev's inbox: copies of one sent message, each with its own id.
fn fill(mailboxes: &Fixture, count: usize) -> Result<()> {
    let mailroom = mailboxes.mailroom("qa")?;
    let kind = filebox_core::MessageType::new("DIS")?;
    let sent = mailroom.send(&filebox_core::SendRequest::new("dev", kind, "filler body"))?;
    let inbox = mailboxes.folder("dev", "inbox");
    let template_path = std::fs::read_dir(&inbox)?
        .next()
        .ok_or("the template message is not in the inbox")??
        .path();
    let template = std::fs::read_to_string(&template_path)?;
    for n in 0..count {
        let id = format!("{n:08x}-0000-4000-8000-{n:012x}");
        let name = format!("20250101T000000-DIS-filler-{}.md", &id[..8]);
        std::fs::write(inbox.join(name), template.replace(&sent.id, &id))?;
    }
    Ok(())
}

/// One binary's row: the hub's memory as mail arrives, then the CLI's waits.
fn measure(name: &str, filebox: &Path, mailboxes: &Fixture) -> Result<Vec<String>> {
    let cursor = mailboxes.path().join("mailboxes/dev/.filebox/inbox-cursor");
    let _ = std::fs::remove_file(&cursor);
    let mut hub = Hub::start(
        filebox,
        &mailboxes.config(),
        &mailboxes.path().join("hub.log"),
    )?;
    let startup = settle(&hub)?;
    // Resident memory, and of it the process's own (heap and stacks, not the binary's pages
    // nor the index's mapped file).
    let memory = |hub: &Hub| -> Result<String> {
        let mib = |kib: u64| kib as f64 / 1024.0;
        let (rss, anonymous) = (hub.rss_kib()?, process::anonymous_kib(hub.pid())?);
        Ok(format!("{:.1} MiB ({:.1} anon)", mib(rss), mib(anonymous)))
    };
    let at_start = memory(&hub)?;
    send(hub.address, 100)?;
    std::thread::sleep(Duration::from_millis(500));
    let after_100 = memory(&hub)?;
    send(hub.address, 1_000)?;
    std::thread::sleep(Duration::from_millis(500));
    let after_1100 = memory(&hub)?;
    send(hub.address, 1_000)?;
    std::thread::sleep(Duration::from_millis(500));
    let after_2100 = memory(&hub)?;
    // The oldest page of the inbox, as a worker asks for its next mail.
    let page = json!({ "agent": "dev", "limit": 20 });
    call(hub.address, "email.inbox", &page, 10)?;
    std::thread::sleep(Duration::from_millis(500));
    let after_pages = memory(&hub)?;
    hub.stop()?;
    let first = wait(filebox, mailboxes)?;
    let out = Command::new(filebox)
        .arg("--config")
        .arg(mailboxes.config())
        .args(["--agent", "qa", "send", "dev", "DIS", "one more"])
        .output()?;
    if !out.status.success() {
        return Err(format!("filebox send: {}", String::from_utf8_lossy(&out.stderr)).into());
    }
    let finding = wait(filebox, mailboxes)?;
    let cursor_bytes = std::fs::metadata(&cursor).map_or(0, |m| m.len());
    Ok(vec![
        name.to_owned(),
        format!("{:.1} s", startup.as_secs_f64()),
        at_start,
        after_100,
        after_1100,
        after_2100,
        after_pages,
        ms(first),
        ms(finding),
        format!("{:.1} KiB", cursor_bytes as f64 / 1024.0),
    ])
}

/// Wait until the hub has done what it does at start (its first look at every mailbox for
/// webhooks owed, the runners' inboxes): its CPU time stays put for half a second. How long
/// that took.
fn settle(hub: &Hub) -> Result<Duration> {
    let started = Instant::now();
    let mut before = process::cpu_time(hub.pid())?;
    loop {
        std::thread::sleep(Duration::from_millis(500));
        let now = process::cpu_time(hub.pid())?;
        if now == before {
            return Ok(started.elapsed());
        }
        if started.elapsed() > Duration::from_secs(300) {
            return Err("the hub was still busy 300 s after it started".into());
        }
        before = now;
    }
}

/// `count` sends from qa to dev over one keep-alive connection.
fn send(address: SocketAddr, count: usize) -> Result<()> {
    let params = json!({ "from": "qa", "to": ["dev"], "subject": "growth", "body": "x" });
    call(address, "email.send", &params, count)
}

/// `count` calls of `method` with `params` over one keep-alive connection.
fn call(address: SocketAddr, method: &str, params: &serde_json::Value, count: usize) -> Result<()> {
    let mut connection = Connection::open(address)?;
    for n in 0..count {
        let request = json!({ "jsonrpc": "2.0", "id": n, "method": method, "params": params });
        let response = connection.post_json("/rpc", request.to_string().as_bytes())?;
        if response.status != 200 {
            return Err(format!("{method} answered HTTP {}", response.status).into());
        }
    }
    Ok(())
}

/// How long `filebox wait --timeout 0` takes as dev.
fn wait(filebox: &Path, mailboxes: &Fixture) -> Result<Duration> {
    let started = Instant::now();
    let status = Command::new(filebox)
        .arg("--config")
        .arg(mailboxes.config())
        .args(["--agent", "dev", "wait", "--timeout", "0"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()?;
    let took = started.elapsed();
    // 0: mail arrived; 3: none before the timeout.
    match status.code() {
        Some(0 | 3) => Ok(took),
        _ => Err(format!("filebox wait exited with {status}").into()),
    }
}
