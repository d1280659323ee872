//! `filebox list inbox` on an inbox of 10,000 messages: wall time from process start to exit
//! and peak memory, with no index (every file's header read) and with a current index (the
//! listing served from it; the output must be the same bytes), against `find` over the same
//! folder and an in-process read of every file's first 8 KiB.

use std::fs::{self, File};
use std::io::Read;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::Instant;

use filebox_core::message::{MessageType, file_name_for, render};
use filebox_core::time;

use crate::fixture::{Fixture, Generated, Result, filebox_binary, qa_to_dev};
use crate::options::Options;
use crate::process::{gnu_time_peak_kib, under_gnu_time};
use crate::report::{self, Samples, ms};

const RUNS: usize = 20;
const WARM_UP: usize = 3;

pub(crate) fn run(options: &Options) -> Result<()> {
    let count = if options.quick { 1_000 } else { 10_000 };
    let filebox = filebox_binary()?;
    let fixture = Fixture::new(options.dir.as_deref(), &["dev".to_owned(), "qa".to_owned()])?;
    let inbox = fixture.folder("dev", "inbox");
    populate(&inbox, count)?;

    let list = || {
        let mut command = Command::new(&filebox);
        command
            .arg("--config")
            .arg(fixture.config())
            // The whole folder: what this bench has measured since issue 2 (`list` pages now).
            .args(["--agent", "dev", "list", "inbox", "--all"]);
        command
    };
    // Check once that the listing is whole.
    let out = list().stderr(Stdio::inherit()).output()?;
    let lines = out.stdout.iter().filter(|b| **b == b'\n').count();
    if !out.status.success() || lines != count {
        return Err(format!("`filebox list` printed {lines} lines, expected {count}").into());
    }
    let mut find = Command::new("find");
    find.arg(&inbox).args(["-name", "*.md"]);

    let read_times_cli = time_process(list)?;
    // Build the index as `filebox reindex` does; the listing then comes from it.
    let reindex = Command::new(&filebox)
        .arg("--config")
        .arg(fixture.config())
        .args(["--agent", "dev", "reindex"])
        .stdout(Stdio::null())
        .status()?;
    if !reindex.success() {
        return Err("`filebox reindex` failed".into());
    }
    let served = list().stderr(Stdio::inherit()).output()?;
    if served.stdout != out.stdout {
        return Err("the listing from the index differs from the listing of the files".into());
    }
    let list_times = time_process(list)?;
    let find_times = time_process(|| {
        let mut c = Command::new("find");
        c.arg(&inbox).args(["-name", "*.md"]);
        c
    })?;
    let read_times = time_in_process(|| read_prefixes(&inbox))?;

    let row = |what: &str, s: &Samples| {
        vec![
            what.to_owned(),
            ms(s.p50()),
            ms(s.p95()),
            format!("{}–{}", ms(s.min()), ms(s.max())),
        ]
    };
    report::table(
        &format!(
            "`filebox list inbox` on {count} messages, process start to exit ({RUNS} runs after {WARM_UP} warm-up)"
        ),
        &["command", "p50", "p95", "range"],
        &[
            row("filebox list inbox (index current)", &list_times),
            row(
                "filebox list inbox (no index: reads every file)",
                &read_times_cli,
            ),
            row("baseline: find INBOX -name '*.md'", &find_times),
            row(
                "baseline: readdir + read 8 KiB of each file (in process)",
                &read_times,
            ),
        ],
    );

    let memory =
        |command: Command| peak_rss_kib(command).map(|k| format!("{:.1} MiB", k as f64 / 1024.0));
    report::table(
        &format!("Peak memory (max RSS, /usr/bin/time %M) on {count} messages"),
        &["command", "peak RSS"],
        &[
            vec!["filebox list inbox (index current)".into(), memory(list())?],
            vec!["baseline: find INBOX -name '*.md'".into(), memory(find)?],
        ],
    );
    Ok(())
}

/// Write `count` messages as `send` would name and render them (without fsync: a fixture).
fn populate(inbox: &Path, count: usize) -> Result<()> {
    let kind = MessageType::new("ER")?;
    let mut state: u64 = 0x9e37_79b9_7f4a_7c15;
    let mut random = move || {
        state ^= state << 13;
        state ^= state >> 7;
        state ^= state << 17;
        state
    };
    for n in 0..count {
        let iso = format!(
            "2025-06-27T{:02}:{:02}:{:02}Z",
            n / 3600 % 24,
            n / 60 % 60,
            n % 60
        );
        let ts = time::parse_iso(&iso).ok_or("bad timestamp")?;
        let (a, b) = (random(), random());
        let id = format!(
            "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
            a >> 32,
            a & 0xffff,
            (a >> 16) & 0xfff,
            b & 0xfff,
            b >> 16
        );
        let title = format!("Batch import request number {n}");
        let body = "Admins need to add many users at once.\n".repeat(5 + (b % 100) as usize);
        let generated = Generated {
            kind: &kind,
            title: &title,
            id: &id,
            iso: &iso,
            version: "1.0",
            owner: "qa",
        };
        let message = qa_to_dev(&generated, body);
        let name = file_name_for(ts, &kind, &title, &id);
        fs::write(inbox.join(name.as_str()), render(&message))?;
    }
    Ok(())
}

/// Wall time of a process, spawn to exit, output discarded.
fn time_process(make: impl Fn() -> Command) -> Result<Samples> {
    let mut samples = Vec::with_capacity(RUNS);
    for run in 0..WARM_UP + RUNS {
        let mut command = make();
        command.stdout(Stdio::null()).stderr(Stdio::null());
        let start = Instant::now();
        let status = command.status()?;
        let elapsed = start.elapsed();
        if !status.success() {
            return Err(format!("{command:?} failed: {status}").into());
        }
        if run >= WARM_UP {
            samples.push(elapsed);
        }
    }
    Ok(Samples::new(samples))
}

fn time_in_process(f: impl Fn() -> Result<()>) -> Result<Samples> {
    let mut samples = Vec::with_capacity(RUNS);
    for run in 0..WARM_UP + RUNS {
        let start = Instant::now();
        f()?;
        if run >= WARM_UP {
            samples.push(start.elapsed());
        }
    }
    Ok(Samples::new(samples))
}

/// The least a listing must do: name every file and read the start of each.
fn read_prefixes(dir: &Path) -> Result<()> {
    let mut buf = vec![0; 8 * 1024];
    for entry in fs::read_dir(dir)? {
        let path = entry?.path();
        if path.extension().is_some_and(|e| e == "md") {
            let _ = File::open(&path)?.read(&mut buf)?;
        }
    }
    Ok(())
}

/// Peak resident memory of a process in KiB, from GNU time's `%M` (Debian package `time`).
fn peak_rss_kib(command: Command) -> Result<u64> {
    let gnu_time = Path::new("/usr/bin/time");
    if !gnu_time.exists() {
        return Err("peak memory needs GNU time: apt-get install time".into());
    }
    let report = tempfile::NamedTempFile::new()?;
    let mut peak = 0;
    for _ in 0..5 {
        if !under_gnu_time(&command, report.path()).status()?.success() {
            return Err(format!("{command:?} failed").into());
        }
        peak = peak.max(gnu_time_peak_kib(report.path())?);
    }
    Ok(peak)
}
