//! One mailbox at 10,000, 100,000 and 1,000,000 messages: the interactive calls a person or an
//! agent makes on it (the newest page of `list`, `read` by short id, `status` and `threads` of
//! the sender, the first `search` after a bulk fill, then a warm one), each a `filebox`
//! process timed from spawn to exit with its peak memory, the sizes side by side, so the cost
//! per 10× shows. With `--baseline FILEBOX`, the same calls by another build's binary (main's)
//! on the same mailbox, each stopped after a time limit.
//!
//! The mailbox is generated, not committed: `dev`'s inbox receives every message, `qa`'s
//! outbox holds its copy (a hard link, as `send` makes), a fifth of the messages answer an
//! earlier one (Thread ID, In Reply To), twenty share each second. The files are rendered by
//! the core's writer and written by a few threads without fsync (a fixture, not a delivery);
//! then both mailboxes are indexed (`filebox reindex`). A mailbox is kept in
//! `DIR/filebox-scale-N/` once complete and reused by later runs (delete it when done): the
//! million takes minutes to write and to index. The bulk fill before the first search goes
//! through the core's `send`, so its change journals are the store's own. What preparing
//! wrote is flushed to disk (`sync`) before the first call is timed.

use std::fs;
use std::os::unix::process::CommandExt;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use filebox_core::message::{MessageType, field, file_name_for, render};
use filebox_core::{SendRequest, time};

use crate::fixture::{Generated, Result, filebox_binary, mailroom, qa_to_dev};
use crate::options::Options;
use crate::process::{gnu_time_peak_kib, under_gnu_time};
use crate::report::{self, Samples, ms};

/// Runs of each call after one warm-up.
const RUNS: usize = 5;
/// Messages sent through the core between the index and the first search.
const FILL: usize = 1_000;
/// How long a baseline call may run before it is stopped.
const BASELINE_LIMIT: Duration = Duration::from_secs(120);
/// A call slower than this is run once.
const SLOW: Duration = Duration::from_secs(5);
/// Messages sharing one second of timestamps.
const PER_SECOND: usize = 20;
/// The word every generated body holds, and the one the search looks for.
const WORD: &str = "provisioning";

pub(crate) fn run(options: &Options) -> Result<()> {
    let sizes: &[usize] = match (&options.sizes, options.quick) {
        (Some(sizes), _) => sizes,
        (None, true) => &[1_000, 10_000],
        (None, false) => &[10_000, 100_000, 1_000_000],
    };
    let filebox = filebox_binary()?;
    let base = options.dir.clone().unwrap_or_else(std::env::temp_dir);
    let mut columns = Vec::new();
    for &size in sizes {
        let dir = base.join(format!("filebox-scale-{size}"));
        prepare(&dir, size, &filebox)?;
        flush_to_disk()?;
        eprintln!("scale: measuring {size} messages");
        let after = measure(&dir, &filebox, None)?;
        let before = match &options.baseline {
            Some(old) => Some(measure_baseline(&dir, old)?),
            None => None,
        };
        columns.push((size, before, after));
    }
    print(&columns);
    Ok(())
}

/// A call's figures: wall time (p50 of the runs; one run for a first search) and peak RSS.
#[derive(Clone)]
struct Figure {
    wall: Option<Duration>,
    rss_kib: u64,
    /// Stopped at the time limit.
    stopped: bool,
}

impl Figure {
    fn text(&self) -> String {
        match (self.stopped, self.wall) {
            (true, _) => format!("> {} s (stopped)", BASELINE_LIMIT.as_secs()),
            (false, Some(wall)) => {
                format!("{} · {:.1} MiB", ms(wall), self.rss_kib as f64 / 1024.0)
            }
            (false, None) => "—".into(),
        }
    }
}

/// The calls measured, in the tables' order.
const CALLS: [&str; 7] = [
    "list inbox (this build: the newest 50)",
    "list inbox --limit 50",
    "read SHORT_ID",
    "status SHORT_ID (sender)",
    "threads (sender)",
    "search, first after 1,000 sends",
    "search, warm",
];

type Figures = Vec<Figure>;

/// One mailbox size's figures: the size, the baseline's (when measured), this build's.
type Column = (usize, Option<Figures>, Figures);

fn config(dir: &Path) -> PathBuf {
    dir.join("config.json")
}

/// Generate the mailbox of `size` messages in `dir` and index it, unless a complete one is there.
fn prepare(dir: &Path, size: usize, filebox: &Path) -> Result<()> {
    let ready = dir.join("ready");
    if ready.exists() {
        return Ok(());
    }
    let written = dir.join("written");
    let started = Instant::now();
    if !written.exists() {
        write(dir, size)?;
        fs::write(&written, "")?;
    }
    eprintln!(
        "scale: written after {:.1} s; indexing",
        started.elapsed().as_secs_f64()
    );
    for agent in ["dev", "qa"] {
        let status = filebox_command(filebox, dir, agent)
            .arg("reindex")
            .stdout(Stdio::null())
            .status()?;
        if !status.success() {
            return Err(format!("`filebox reindex` of {agent} failed").into());
        }
    }
    eprintln!(
        "scale: ready after {:.1} s",
        started.elapsed().as_secs_f64()
    );
    fs::write(ready, "")?;
    Ok(())
}

/// Write what the page cache holds to disk (`sync`): preparing a million messages leaves
/// gigabytes to write back, and a call timed meanwhile would wait behind them.
fn flush_to_disk() -> Result<()> {
    let status = Command::new("sync").status()?;
    if !status.success() {
        return Err("`sync` failed".into());
    }
    Ok(())
}

/// Write the config and `size` messages into `dir` (emptied first).
fn write(dir: &Path, size: usize) -> Result<()> {
    if dir.exists() {
        fs::remove_dir_all(dir)?;
    }
    fs::create_dir_all(dir)?;
    let agents = serde_json::json!({
        "current_agent_id": "dev",
        "agents": {
            "dev": { "mailbox_path": "mailboxes/dev" },
            "qa": { "mailbox_path": "mailboxes/qa" },
        }
    });
    fs::write(config(dir), agents.to_string())?;
    for agent in ["dev", "qa"] {
        mailroom(&config(dir), agent)?.my_mailbox()?;
    }
    eprintln!("scale: writing {size} messages into {}", dir.display());
    let inbox = dir.join("mailboxes/dev/inbox");
    let outbox = dir.join("mailboxes/qa/outbox");
    let writers = std::thread::available_parallelism().map_or(2, |n| n.get().min(4));
    std::thread::scope(|scope| -> Result<()> {
        let parts: Vec<_> = (0..writers)
            .map(|part| {
                let (inbox, outbox) = (&inbox, &outbox);
                scope.spawn(move || {
                    write_part(inbox, outbox, size, part, writers).map_err(|e| e.to_string())
                })
            })
            .collect();
        for part in parts {
            part.join().map_err(|_| "a writer panicked")??;
        }
        Ok(())
    })
}

/// The message number `n` of the fixture: its id, and the id of the one it answers, if any.
fn id_of(n: usize) -> String {
    // A fixed permutation of the numbers, so ids are spread and the first 8 characters unique.
    let a = (n as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15) ^ 0x5851_f42d_4c95_7f2d;
    format!(
        "{:08x}-{:04x}-4{:03x}-8{:03x}-{:012x}",
        (n as u64).wrapping_mul(0x2545_f491) as u32,
        a & 0xffff,
        (a >> 16) & 0xfff,
        (a >> 28) & 0xfff,
        (a >> 16) & 0xffff_ffff_ffff
    )
}

/// Which earlier message `n` answers: every fifth answers the one five before.
fn answers(n: usize) -> Option<usize> {
    (n % 5 == 4).then(|| n - 4)
}

/// The root of `n`'s thread.
fn root_of(mut n: usize) -> usize {
    while let Some(parent) = answers(n) {
        n = parent;
    }
    n
}

fn write_part(inbox: &Path, outbox: &Path, size: usize, part: usize, parts: usize) -> Result<()> {
    let kind = MessageType::new("ER")?;
    let start = time::parse_iso("2025-01-01T00:00:00Z").ok_or("bad timestamp")?;
    for n in (part..size).step_by(parts) {
        let at = start
            .checked_add(Duration::from_secs((n / PER_SECOND) as u64))
            .map_err(|e| e.to_string())?;
        let iso = time::iso(at);
        let id = id_of(n);
        let title = format!("Provision accounts for team {n}");
        let answered = answers(n).map(|parent| (id_of(root_of(parent)), id_of(parent)));
        let body = format!(
            "Admins need {WORD} for {} users at once.\n\nRequest {n}.\n",
            n % 97 + 3
        );
        let generated = Generated {
            kind: &kind,
            title: &title,
            id: &id,
            iso: &iso,
            version: if answered.is_some() { "1.1" } else { "1.0" },
            owner: "dev",
        };
        let mut message = qa_to_dev(&generated, body);
        if let Some((thread, parent)) = &answered {
            message.header.set(field::THREAD_ID, thread);
            message.header.set(field::IN_REPLY_TO, parent);
        }
        let name = file_name_for(at, &kind, &title, &id);
        let path = inbox.join(name.as_str());
        fs::write(&path, render(&message))?;
        fs::hard_link(&path, outbox.join(name.as_str()))?;
    }
    Ok(())
}

fn filebox_command(filebox: &Path, dir: &Path, agent: &str) -> Command {
    let mut command = Command::new(filebox);
    command
        .arg("--config")
        .arg(config(dir))
        .args(["--agent", agent]);
    command
}

/// The message the `read` and `status` calls name: one in the middle of the mailbox.
fn probe(dir: &Path) -> Result<String> {
    let count = fs::read_dir(dir.join("mailboxes/qa/outbox"))?.count();
    Ok(id_of(count / 2)[..8].to_owned())
}

/// The calls with this build's `filebox`, the index current.
fn measure(dir: &Path, filebox: &Path, limit: Option<Duration>) -> Result<Figures> {
    let short = probe(dir)?;
    let call = |agent: &str, args: &[&str]| {
        let mut command = filebox_command(filebox, dir, agent);
        command.args(args);
        command
    };
    let mut figures = vec![
        repeated(|| call("dev", &["list", "inbox"]), limit)?,
        repeated(|| call("dev", &["list", "inbox", "--limit", "50"]), limit)?,
        repeated(|| call("dev", &["read", &short]), limit)?,
        repeated(|| call("qa", &["status", &short]), limit)?,
        repeated(|| call("qa", &["threads"]), limit)?,
    ];
    fill(dir)?;
    figures.push(once(call("dev", &["search", WORD]), limit)?);
    figures.push(repeated(|| call("dev", &["search", WORD]), limit)?);
    Ok(figures)
}

/// The calls with another build's `filebox` on the same mailbox. Its index (another schema)
/// would be rebuilt over this build's, so the mailboxes' `.filebox/` are set aside while it
/// runs and what it made is removed after: it runs without an index, as on a mailbox filled
/// through a hub, and its first `threads` or `search` builds one (or is stopped).
fn measure_baseline(dir: &Path, old: &Path) -> Result<Figures> {
    let states: Vec<(PathBuf, PathBuf)> = ["dev", "qa"]
        .iter()
        .map(|agent| {
            let mailbox = dir.join("mailboxes").join(agent);
            (mailbox.join(".filebox"), mailbox.join(".filebox-kept"))
        })
        .collect();
    for (state, kept) in &states {
        fs::rename(state, kept)?;
    }
    let measured = measure(dir, old, Some(BASELINE_LIMIT));
    for (state, kept) in &states {
        if state.exists() {
            fs::remove_dir_all(state)?;
        }
        fs::rename(kept, state)?;
    }
    measured
}

/// Send `FILL` messages from qa to dev through the core (the store's journals and fsyncs).
fn fill(dir: &Path) -> Result<()> {
    let qa = mailroom(&config(dir), "qa")?;
    for n in 0..FILL {
        let request = SendRequest::new(
            "dev",
            MessageType::new("ER")?,
            format!("Late {WORD} request {n}"),
        );
        qa.send(&request)?;
    }
    Ok(())
}

/// A call run once to warm up, then `RUNS` times: the p50 wall time and the peak memory.
fn repeated(make: impl Fn() -> Command, limit: Option<Duration>) -> Result<Figure> {
    let warm = once(make(), limit)?;
    // A call that stopped, or took seconds (a baseline reading a million files), is not run
    // again: one run says enough.
    if warm.stopped || warm.wall.is_some_and(|wall| wall > SLOW) {
        return Ok(warm);
    }
    let mut walls = Vec::with_capacity(RUNS);
    let mut rss = warm.rss_kib;
    for _ in 0..RUNS {
        let figure = once(make(), limit)?;
        walls.extend(figure.wall);
        rss = rss.max(figure.rss_kib);
    }
    Ok(Figure {
        wall: Some(Samples::new(walls).p50()),
        rss_kib: rss,
        stopped: false,
    })
}

/// One run under GNU time (`%M`: peak RSS), timed from spawn to exit (GNU time adds about a
/// millisecond); stopped after `limit`.
fn once(command: Command, limit: Option<Duration>) -> Result<Figure> {
    let report = tempfile::NamedTempFile::new()?;
    let mut timed = under_gnu_time(&command, report.path());
    // Its own process group, so a call stopped at the limit is stopped with GNU time.
    timed.process_group(0);
    let start = Instant::now();
    let mut child = timed.spawn()?;
    loop {
        if let Some(status) = child.try_wait()? {
            let wall = start.elapsed();
            // Exit 1 is a listing's warning (a skipped file): the call still answered.
            if status.code().is_none_or(|code| code > 1) {
                return Err(format!("{command:?} failed: {status}").into());
            }
            let rss_kib = gnu_time_peak_kib(report.path())?;
            return Ok(Figure {
                wall: Some(wall),
                rss_kib,
                stopped: false,
            });
        }
        if limit.is_some_and(|limit| start.elapsed() > limit) {
            rustix::process::kill_process_group(
                rustix::process::Pid::from_child(&child),
                rustix::process::Signal::TERM,
            )?;
            child.wait()?;
            return Ok(Figure {
                wall: None,
                rss_kib: 0,
                stopped: true,
            });
        }
        std::thread::sleep(Duration::from_millis(2));
    }
}

fn print(columns: &[Column]) {
    let sizes: Vec<String> = columns.iter().map(|(size, ..)| format!("{size}")).collect();
    let mut header = vec!["call"];
    header.extend(sizes.iter().map(String::as_str));
    let table = |title: &str, pick: &dyn Fn(&Column) -> Option<Figures>| {
        let rows: Vec<Vec<String>> = CALLS
            .iter()
            .enumerate()
            .map(|(n, call)| {
                let mut row = vec![(*call).to_owned()];
                row.extend(columns.iter().map(|column| {
                    pick(column).map_or_else(|| "—".into(), |figures| figures[n].text())
                }));
                row
            })
            .collect();
        report::table(title, &header, &rows);
    };
    let what = format!(
        "wall time p50 of {RUNS} runs after a warm-up (a first search: one run) · peak RSS, per mailbox size"
    );
    if columns.iter().any(|(_, before, _)| before.is_some()) {
        table(&format!("Baseline binary, no index ({what})"), &|column| {
            column.1.clone()
        });
    }
    table(&format!("This build, index current ({what})"), &|column| {
        Some(column.2.clone())
    });
}
