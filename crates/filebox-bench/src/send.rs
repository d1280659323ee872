//! Durable sends per second through the library (`Mailroom::send`), one writer and eight writer
//! processes into one inbox, against a bare loop of write + fsync + rename + directory fsync of
//! the same bytes; then the CLI as a host tool calls it, a process per message
//! (`process_send.rs`).

use std::fs::{self, File};
use std::path::{Path, PathBuf};
use std::process::{Command, ExitCode};
use std::time::{Duration, Instant};

use filebox_core::{MessageType, SendRequest};

use crate::bare::{DirSync, publish_bare};
use crate::fixture::{Fixture, Result, mailroom};
use crate::options::Options;
use crate::report;

/// The hidden subcommand a writer process runs.
pub(crate) const WORKER: &str = "send-worker";

const BODY_BYTES: usize = 1024;
const RUNS: usize = 5;
const PROCESSES: usize = 8;

/// How a writer writes.
#[derive(Clone, Copy)]
enum Mode {
    /// `Mailroom::send`.
    Library,
    /// write + fsync + rename + directory fsync.
    Bare,
}

impl Mode {
    fn name(self) -> &'static str {
        match self {
            Mode::Library => "library",
            Mode::Bare => "bare",
        }
    }

    fn label(self) -> &'static str {
        match self {
            Mode::Bare => "baseline: write+fsync+rename+dir fsync",
            Mode::Library => "Mailroom::send (inbox + outbox copy)",
        }
    }
}

pub(crate) fn run(options: &Options) -> Result<()> {
    let per_run = if options.quick { 200 } else { 2000 };
    let agents: Vec<String> = (0..PROCESSES)
        .map(|n| format!("w{n}"))
        .chain(["dev".to_owned()])
        .collect();
    let body = "x".repeat(BODY_BYTES - 1) + "\n";
    // The four cases take turns run by run, so that a noisy moment (fsync latency on a shared
    // disk varies a lot) falls on all of them alike rather than on one.
    let cases: Vec<(Mode, usize)> = [Mode::Bare, Mode::Library]
        .into_iter()
        .flat_map(|mode| [(mode, 1), (mode, PROCESSES)])
        .collect();
    let mut rates = vec![Vec::new(); cases.len()];
    // One warm-up run, then RUNS measured, each in a fresh inbox.
    for run in 0..=RUNS {
        for (case, &(mode, writers)) in cases.iter().enumerate() {
            let fixture = Fixture::new(options.dir.as_deref(), &agents)?;
            let count = if run == 0 { per_run / 10 } else { per_run };
            let elapsed = match writers {
                1 => sends(mode, &fixture.config(), "w0", count, &body)?,
                _ => processes(mode, &fixture, count / writers, &body)?,
            };
            let delivered = fs::read_dir(fixture.folder("dev", "inbox"))?.count();
            let expected = count / writers * writers;
            if delivered != expected {
                return Err(format!("{delivered} files delivered, expected {expected}").into());
            }
            if run > 0 {
                rates[case].push((count / writers * writers) as f64 / elapsed.as_secs_f64());
            }
        }
    }
    let mut rows = Vec::new();
    for (&(mode, writers), rates) in cases.iter().zip(&mut rates) {
        rates.sort_by(f64::total_cmp);
        rows.push(vec![
            mode.label().to_owned(),
            match writers {
                1 => "1 (in process)".to_owned(),
                _ => format!("{writers} processes"),
            },
            format!("{:.0}", rates[rates.len() / 2]),
            format!("{:.0}–{:.0}", rates[0], rates[rates.len() - 1]),
        ]);
    }
    report::table(
        &format!(
            "Durable sends per second into one inbox ({BODY_BYTES}-byte body, {per_run} sends per run, median of {RUNS} runs)"
        ),
        &["writer", "writers", "per second", "range"],
        &rows,
    );
    crate::process_send::run(options)
}

/// Run `count` sends in this process; returns the time they took.
fn sends(mode: Mode, config: &Path, agent: &str, count: usize, body: &str) -> Result<Duration> {
    match mode {
        Mode::Library => {
            let mailroom = mailroom(config, agent)?;
            let request = SendRequest {
                title: Some("bench".into()),
                ..SendRequest::new("dev", MessageType::new("SU")?, body)
            };
            let start = Instant::now();
            for _ in 0..count {
                mailroom.send(&request)?;
            }
            Ok(start.elapsed())
        }
        Mode::Bare => {
            let root = config.parent().unwrap_or(Path::new("."));
            let tmp = root.join("mailboxes/dev/tmp");
            let inbox = root.join("mailboxes/dev/inbox");
            // The same bytes a library send writes: a rendered message of this body.
            let bytes = format!("{}{body}", "h".repeat(420));
            let pid = std::process::id();
            let start = Instant::now();
            for n in 0..count {
                let name = format!("{agent}-{pid}-{n}");
                publish_bare(&tmp, &inbox, &name, bytes.as_bytes(), DirSync::Private)?;
            }
            Ok(start.elapsed())
        }
    }
}

/// Run `PROCESSES` writer processes of `each` sends; returns the wall time from the moment they
/// are all started and released to the last one's exit.
fn processes(mode: Mode, fixture: &Fixture, each: usize, body: &str) -> Result<Duration> {
    let exe = std::env::current_exe()?;
    let go = fixture.path().join("go");
    let mut children = Vec::new();
    for n in 0..PROCESSES {
        children.push(
            Command::new(&exe)
                .arg(WORKER)
                .arg(mode.name())
                .arg(fixture.config())
                .arg(format!("w{n}"))
                .arg(each.to_string())
                .arg(body.len().to_string())
                .arg(&go)
                .spawn()?,
        );
    }
    // Let the processes start, then release them together.
    std::thread::sleep(Duration::from_millis(200));
    let start = Instant::now();
    File::create(&go)?;
    for mut child in children {
        if !child.wait()?.success() {
            return Err("a writer process failed".into());
        }
    }
    Ok(start.elapsed())
}

/// A writer process: `send-worker MODE CONFIG AGENT COUNT BODY_BYTES GO_FILE`.
pub(crate) fn worker(args: Vec<String>) -> ExitCode {
    let [mode, config, agent, count, bytes, go] = &args[..] else {
        eprintln!("{WORKER}: expected MODE CONFIG AGENT COUNT BODY_BYTES GO_FILE");
        return ExitCode::from(2);
    };
    let mode = if mode == Mode::Bare.name() {
        Mode::Bare
    } else {
        Mode::Library
    };
    let go = PathBuf::from(go);
    while !go.exists() {
        std::thread::sleep(Duration::from_micros(200));
    }
    let body = "x".repeat(bytes.parse::<usize>().unwrap_or(1).saturating_sub(1)) + "\n";
    match sends(
        mode,
        Path::new(config),
        agent,
        count.parse().unwrap_or(0),
        &body,
    ) {
        Ok(_) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{WORKER}: {error}");
            ExitCode::FAILURE
        }
    }
}
