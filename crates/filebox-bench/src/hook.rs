//! `hook`: how soon a waiting Claude Code Stop hook (`filebox hook claude-code`, a process of
//! its own, as Claude Code runs it in the background) hands a new message to the host, beside
//! `wait_for_mail` (what `wait` and `wait_for_messages` run) in this process, woken by the
//! same deliveries.
//!
//! Each round starts a hook on `dev`'s inbox, lets it block, and sends one message to `dev`
//! and `ops` at once; the hook's figure is the instant its digest's first line reached this
//! process on the hook's stderr (the pipe Claude Code reads), the wait's the instant
//! `wait_for_mail` on `ops`'s inbox returned, both from the instant `send` started.

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, Stdio};
use std::sync::mpsc;
use std::time::Duration;

use filebox_core::{MessageType, SendRequest};

use crate::fixture::{self, Fixture, Result};
use crate::options::Options;
use crate::report;
use crate::wait::now_ns;

pub(crate) fn run(options: &Options) -> Result<()> {
    let rounds = if options.quick { 5 } else { 30 };
    let agents = ["qa", "dev", "ops"].map(str::to_owned);
    let fixture = Fixture::new(options.dir.as_deref(), &agents)?;
    let binary = fixture::filebox_binary()?;
    let hook = |event: &str| {
        let mut command = Command::new(&binary);
        command
            .arg("--config")
            .arg(fixture.config())
            .args(["--agent", "dev", "hook", "claude-code", "--timeout", "30"])
            .stdin(Stdio::piped())
            .stdout(Stdio::null())
            .stderr(Stdio::piped());
        let mut child = command.spawn()?;
        let input = format!(r#"{{"hook_event_name": "{event}", "stop_hook_active": false}}"#);
        child
            .stdin
            .take()
            .ok_or("no hook stdin")?
            .write_all(input.as_bytes())?;
        Ok::<_, Box<dyn std::error::Error>>(child)
    };
    // The session started: its SessionStart hook set dev's cursor; ops's first wait sets its.
    hook("SessionStart")?.wait()?;
    let inbox = fixture.mailroom("ops")?.my_mailbox()?;
    inbox.wait_for_mail(Some(Duration::ZERO), &|| false)?;
    let (woke, woken) = mpsc::channel();
    let waiter = std::thread::spawn(move || -> filebox_core::Result<()> {
        for _ in 0..rounds {
            let got = inbox.wait_for_mail(Some(Duration::from_secs(30)), &|| false)?;
            let _ = woke.send((now_ns(), got.messages.len()));
        }
        Ok(())
    });
    let sender = fixture.mailroom("qa")?;
    let kind = MessageType::new("DIS")?;
    let (mut by_hook, mut by_wait) = (Vec::new(), Vec::new());
    for round in 0..rounds {
        let mut stop = hook("Stop")?;
        // Let the hook start and block on the feed (a late one still finds the mail).
        std::thread::sleep(Duration::from_millis(300));
        let started = now_ns();
        sender.send(&SendRequest::new(
            "dev,ops",
            kind.clone(),
            format!("ping {round}"),
        ))?;
        let mut first = String::new();
        BufReader::new(stop.stderr.take().ok_or("no hook stderr")?).read_line(&mut first)?;
        let hook_at = now_ns();
        let status = stop.wait()?;
        if status.code() != Some(2) || !first.starts_with("New mail") {
            return Err(format!("the hook ended with {status} saying {first:?}").into());
        }
        let (wait_at, messages) = woken.recv_timeout(Duration::from_secs(30))?;
        if messages != 1 {
            return Err(format!("the wait returned {messages} messages, not 1").into());
        }
        by_hook.push(hook_at - started);
        by_wait.push(wait_at - started);
    }
    waiter.join().map_err(|_| "waiter panicked")??;
    let row = |name: &str, mut values: Vec<i128>| {
        values.sort();
        let at =
            |q: f64| values[((q * values.len() as f64).ceil() as usize).clamp(1, values.len()) - 1];
        let ms = |ns: i128| format!("{:.2} ms", ns as f64 / 1e6);
        vec![
            name.to_owned(),
            rounds.to_string(),
            ms(at(0.5)),
            ms(at(0.95)),
            ms(values[values.len() - 1]),
        ]
    };
    report::table(
        "hook: new mail to the host, from the instant send() started",
        &["who learns of it", "deliveries", "p50", "p95", "max"],
        &[
            row("Stop hook process, digest on stderr", by_hook),
            row("baseline: wait_for_mail in process", by_wait),
        ],
    );
    Ok(())
}
