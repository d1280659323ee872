//! `filebox send` as a host tool calls it, a new process per message, one after the other:
//! the baseline build (`--baseline FILEBOX`) and this one writing the message itself, and this
//! one handing it to a running hub over the hub's Unix socket, against the limit a process per
//! message allows (`/bin/true` started and waited for, plus one bare durable write); sends/s,
//! CPU per send (the process's, plus the hub's when it wrote), and the ratio to that limit.

use std::fs;
use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

use crate::bare::{DirSync, publish_bare};
use crate::fixture::{Fixture, Result, filebox_binary};
use crate::hub::Hub;
use crate::options::Options;
use crate::report;

const BODY_BYTES: usize = 1024;
const RUNS: usize = 5;

/// One way of doing a send per message.
#[derive(Clone, Copy, PartialEq)]
enum Case {
    /// `/bin/true`, a process each: the least a process per message costs.
    Start,
    /// write + fsync + rename + directory fsync in this process: the least a durable write costs.
    Bare,
    /// `filebox --version` of this build, a process each: its start alone.
    Version,
    /// The `--baseline` build's `filebox send`.
    Baseline,
    /// This build's `filebox send`, no hub running: it writes the message itself.
    Direct,
    /// This build's `filebox send` with a hub serving the config: handed over the socket.
    ThroughHub,
}

impl Case {
    fn label(self) -> &'static str {
        match self {
            Case::Start => "/bin/true, a process each",
            Case::Bare => "bare durable write (write+fsync+rename+dir fsync), in process",
            Case::Version => "filebox --version, a process each",
            Case::Baseline => "baseline filebox send (--baseline), a process each",
            Case::Direct => "filebox send, no hub: written by the process",
            Case::ThroughHub => "filebox send, hub running: handed over hub.sock",
        }
    }

    /// Whether the case delivers a message per round.
    fn delivers(self) -> bool {
        !matches!(self, Case::Start | Case::Version)
    }
}

/// Rates and CPU per round of one case, over the measured runs.
#[derive(Default)]
struct Figures {
    rates: Vec<f64>,
    /// Every process's and thread's, the hub's included.
    cpu_per_round: Vec<Duration>,
    /// The hub's alone.
    hub_cpu_per_round: Vec<Duration>,
}

impl Figures {
    fn median_rate(&self) -> f64 {
        median(&self.rates)
    }

    fn median_cpu(&self) -> Duration {
        median_duration(&self.cpu_per_round)
    }

    fn median_hub_cpu(&self) -> Duration {
        median_duration(&self.hub_cpu_per_round)
    }
}

pub(crate) fn run(options: &Options) -> Result<()> {
    let per_run = if options.quick { 200 } else { 2000 };
    let filebox = filebox_binary()?;
    let baseline = options.baseline.as_deref();
    let cases: Vec<Case> = [
        Case::Start,
        Case::Bare,
        Case::Version,
        Case::Baseline,
        Case::Direct,
        Case::ThroughHub,
    ]
    .into_iter()
    .filter(|&case| case != Case::Baseline || baseline.is_some())
    .collect();
    let agents = ["w0".to_owned(), "dev".to_owned()];
    let body = "x".repeat(BODY_BYTES - 1) + "\n";
    let mut figures: Vec<Figures> = cases.iter().map(|_| Figures::default()).collect();
    let load_before = crate::hub::load_average();
    // One warm-up run, then RUNS measured; the cases take turns run by run, each in a fresh
    // fixture, so a noisy moment of the shared disk falls on all of them alike.
    for run in 0..=RUNS {
        let count = if run == 0 { per_run / 10 } else { per_run };
        for (case, measured) in cases.iter().zip(&mut figures) {
            let fixture = Fixture::new(options.dir.as_deref(), &agents)?;
            let binary = match case {
                Case::Baseline => baseline.ok_or("no --baseline")?,
                _ => filebox.as_path(),
            };
            let (elapsed, cpu) = rounds(*case, binary, &fixture, count, &body)?;
            let delivered = fs::read_dir(fixture.folder("dev", "inbox"))?.count();
            let expected = if case.delivers() { count } else { 0 };
            if delivered != expected {
                return Err(format!(
                    "{}: {delivered} files delivered, expected {expected}",
                    case.label()
                )
                .into());
            }
            if run > 0 {
                measured.rates.push(count as f64 / elapsed.as_secs_f64());
                measured.cpu_per_round.push(cpu.all / count as u32);
                measured.hub_cpu_per_round.push(cpu.hub / count as u32);
            }
        }
    }
    let rate = |wanted: Case| {
        cases
            .iter()
            .zip(&figures)
            .find(|(case, _)| **case == wanted)
            .map(|(_, figures)| figures)
    };
    let (start, bare) = (
        rate(Case::Start).ok_or("no start case")?,
        rate(Case::Bare).ok_or("no bare case")?,
    );
    // A process per message, each doing one bare durable write: their times add up.
    let limit = 1.0 / (1.0 / start.median_rate() + 1.0 / bare.median_rate());
    let limit_cpu = start.median_cpu() + bare.median_cpu();
    let mut rows: Vec<Vec<String>> = cases
        .iter()
        .zip(&figures)
        .map(|(case, figures)| {
            let rates = sorted(&figures.rates);
            vec![
                case.label().to_owned(),
                format!("{:.0}", figures.median_rate()),
                format!("{:.0}–{:.0}", rates[0], rates[rates.len() - 1]),
                format!("{:.2} ms", millis(figures.median_cpu())),
                match case {
                    Case::ThroughHub => format!("{:.2} ms", millis(figures.median_hub_cpu())),
                    _ => String::new(),
                },
                if case.delivers() && *case != Case::Bare {
                    format!("{:.0} %", 100.0 * figures.median_rate() / limit)
                } else {
                    String::new()
                },
            ]
        })
        .collect();
    rows.insert(
        2,
        vec![
            "limit: /bin/true + bare durable write".to_owned(),
            format!("{limit:.0}"),
            String::new(),
            format!("{:.2} ms", millis(limit_cpu)),
            String::new(),
            "100 %".to_owned(),
        ],
    );
    report::table(
        &format!(
            "`filebox send` as a process per message, one at a time ({BODY_BYTES}-byte body, \
             {per_run} per run, median of {RUNS} runs; load average {load_before} before, {} \
             after)",
            crate::hub::load_average()
        ),
        &[
            "sender",
            "sends/s",
            "range",
            "CPU per send",
            "of which the hub's",
            "of the limit",
        ],
        &rows,
    );
    Ok(())
}

/// The CPU a number of rounds used.
struct Cpu {
    /// The processes started, this process for an in-process write, and the hub.
    all: Duration,
    /// The hub's share.
    hub: Duration,
}

/// Do `count` rounds of `case`; the time they took and the CPU they used.
fn rounds(
    case: Case,
    filebox: &Path,
    fixture: &Fixture,
    count: usize,
    body: &str,
) -> Result<(Duration, Cpu)> {
    if case == Case::Bare {
        let tmp = fixture.folder("dev", "tmp");
        let inbox = fixture.folder("dev", "inbox");
        // The same bytes a send writes: a rendered message of this body.
        let bytes = format!("{}{body}", "h".repeat(420));
        let (cpu, start) = (own_cpu()?, Instant::now());
        for n in 0..count {
            publish_bare(
                &tmp,
                &inbox,
                &format!("bare-{n}"),
                bytes.as_bytes(),
                DirSync::Private,
            )?;
        }
        let all = own_cpu()? - cpu;
        return Ok((
            start.elapsed(),
            Cpu {
                all,
                hub: Duration::ZERO,
            },
        ));
    }
    let file = fixture.path().join("body.md");
    fs::write(&file, body)?;
    let mut command = match case {
        Case::Start => Command::new("/bin/true"),
        _ => Command::new(filebox),
    };
    match case {
        Case::Start => &mut command,
        Case::Version => command.arg("--version"),
        _ => command
            .args([
                "--agent", "w0", "send", "dev", "SU", "--title", "bench", "--file",
            ])
            .arg(&file),
    };
    command
        .env("FILEBOX_CONFIG", fixture.config())
        .current_dir(fixture.path())
        .stdout(Stdio::null());
    let hub = match case {
        Case::ThroughHub => Some(Hub::start(
            filebox,
            &fixture.config(),
            &fixture.path().join("hub.log"),
        )?),
        _ => None,
    };
    let hub_cpu = |hub: &Option<Hub>| {
        hub.as_ref().map_or(Ok(Duration::ZERO), |hub| {
            crate::process::cpu_time(hub.pid())
        })
    };
    let (children, hub_before, start) = (children_cpu()?, hub_cpu(&hub)?, Instant::now());
    for _ in 0..count {
        if !command.status()?.success() {
            return Err(format!("{} failed", case.label()).into());
        }
    }
    let elapsed = start.elapsed();
    let hub_used = hub_cpu(&hub)? - hub_before;
    let cpu = Cpu {
        all: children_cpu()? - children + hub_used,
        hub: hub_used,
    };
    if let Some(mut hub) = hub {
        hub.stop()?;
    }
    Ok((elapsed, cpu))
}

/// This process's CPU time so far.
fn own_cpu() -> Result<Duration> {
    crate::process::cpu_time(std::process::id())
}

/// The CPU time of this process's children that were waited for.
fn children_cpu() -> Result<Duration> {
    crate::process::children_cpu_time(std::process::id())
}

fn sorted(values: &[f64]) -> Vec<f64> {
    let mut values = values.to_vec();
    values.sort_by(f64::total_cmp);
    values
}

fn median_duration(values: &[Duration]) -> Duration {
    let mut values = values.to_vec();
    values.sort();
    values.get(values.len() / 2).copied().unwrap_or_default()
}

fn median(values: &[f64]) -> f64 {
    let values = sorted(values);
    values.get(values.len() / 2).copied().unwrap_or(0.0)
}

fn millis(duration: Duration) -> f64 {
    duration.as_secs_f64() * 1000.0
}
