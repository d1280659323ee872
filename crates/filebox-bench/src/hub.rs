//! `hub`: the real hub (`filebox serve --listen 127.0.0.1:0`) loaded with `email.send`, then
//! `email.reply` (the answer path: a move), and A2A `SendMessage` to dev's endpoint beside
//! `email.send` with and without an idempotency key (A2A's `messageId` is one), over loopback HTTP JSON-RPC by 1, 16 and 64
//! clients for a bounded time, with the hub's CPU per call (counted until the hub is idle
//! again, so the work the calls leave behind is theirs and the next case starts on a settled
//! hub); with `--baseline OLD_FILEBOX` the same against a hub of that build, in the same
//! rounds. Against them, in the same run, the CLI path (`filebox send`, one process per
//! send, by as many concurrent callers) and the floor of a durable delivery (write + fsync +
//! rename + directory fsync, one file after the other, and 16 writers with a private or a
//! group-committed directory fsync). Then the event latency: a file delivered by the CLI
//! until its SSE event reaches a client of `/events`.
//!
//! Cases take turns round by round, so a noisy moment on the shared machine falls on all of
//! them alike. Every message is 1 KiB of body from `qa` to `dev`: one inbox and one outbox,
//! the folders concurrent deliveries contend for.

use std::fs::{self, File};
use std::io::{BufRead, BufReader};
use std::net::SocketAddr;
use std::path::Path;
use std::process::{Child, Command, Stdio};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::bare::{DirSync, publish_bare};
use crate::fixture::{Fixture, Result, filebox_binary};
use crate::http::Connection;
use crate::options::Options;
use crate::process::{cpu_time, until_idle};
use crate::report::{self, Samples, ms};

const BODY_BYTES: usize = 1024;
const CLIENTS: [usize; 3] = [1, 16, 64];
/// How long a hub may take to go idle after a case's calls.
const SETTLE_PATIENCE: Duration = Duration::from_secs(60);

/// One thing measured.
#[derive(Clone, Copy)]
enum Case {
    /// A hub's method over HTTP by this many clients, each on its own keep-alive connection,
    /// on this build's hub or the baseline's.
    Hub(Call, usize, Build),
    /// `filebox send` processes, this many at a time.
    Cli(usize),
    /// The write + fsync + rename + directory fsync loop, by this many threads.
    Floor(usize, DirSync),
}

/// The hub method a client calls.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Call {
    /// `email.send` from qa to dev.
    Send,
    /// `email.reply` by dev to a message qa sent it just before (that send not counted).
    Reply,
    /// `email.send` with a new `idempotencyKey` each: the keyed send A2A's `messageId` makes.
    SendKeyed,
    /// A2A `SendMessage` to dev's endpoint (`/a2a/dev`), each with a new `messageId`: the
    /// same delivery as `email.send`, through the A2A surface.
    A2aSend,
}

/// Which `filebox` a hub runs.
#[derive(Clone, Copy, PartialEq, Eq)]
enum Build {
    This,
    Baseline,
}

impl Case {
    fn path(self) -> &'static str {
        match self {
            Case::Hub(Call::Send, _, Build::This) => "hub: email.send over HTTP JSON-RPC",
            Case::Hub(Call::Send, _, Build::Baseline) => "baseline hub: email.send",
            Case::Hub(Call::Reply, _, Build::This) => "hub: email.reply (a move)",
            Case::Hub(Call::Reply, _, Build::Baseline) => "baseline hub: email.reply",
            Case::Hub(Call::SendKeyed, _, Build::This) => "hub: email.send with an idempotencyKey",
            Case::Hub(Call::SendKeyed, _, Build::Baseline) => "baseline hub: keyed email.send",
            Case::Hub(Call::A2aSend, _, Build::This) => "hub: A2A SendMessage over HTTP JSON-RPC",
            Case::Hub(Call::A2aSend, _, Build::Baseline) => "baseline hub: A2A SendMessage",
            Case::Cli(_) => "CLI: filebox send, a process per send",
            Case::Floor(_, DirSync::Private) => "floor: write+fsync+rename+dir fsync",
            Case::Floor(_, DirSync::Grouped) => "floor, group-committed dir fsync",
        }
    }

    fn clients(self) -> usize {
        match self {
            Case::Hub(_, n, _) | Case::Cli(n) | Case::Floor(n, _) => n,
        }
    }
}

/// What one case did over all rounds.
#[derive(Default)]
struct Tally {
    sends: u64,
    errors: u64,
    elapsed: Duration,
    /// The hub's CPU time over the case's rounds (hub cases only).
    cpu: Duration,
    /// Sends per second in each round.
    rates: Vec<f64>,
    latencies: Vec<Duration>,
    first_error: Option<String>,
}

impl Tally {
    fn rate(&self) -> f64 {
        self.sends as f64 / self.elapsed.as_secs_f64()
    }
}

/// What one client thread did in one round.
#[derive(Default)]
struct Work {
    latencies: Vec<Duration>,
    errors: u64,
    first_error: Option<String>,
}

impl Work {
    fn record(&mut self, started: Instant, outcome: Result<()>) {
        match outcome {
            Ok(()) => self.latencies.push(started.elapsed()),
            Err(error) => {
                self.errors += 1;
                self.first_error.get_or_insert_with(|| error.to_string());
            }
        }
    }
}

pub(crate) fn run(options: &Options) -> Result<()> {
    let (rounds, slice) = if options.quick {
        (1, Duration::from_millis(500))
    } else {
        (3, Duration::from_secs(3))
    };
    let filebox = filebox_binary()?;
    let load_before = load_average();
    let agents = ["qa".to_owned(), "dev".to_owned()];
    let hub_mailboxes = Fixture::new(options.dir.as_deref(), &agents)?;
    let cli_mailboxes = Fixture::new(options.dir.as_deref(), &agents)?;
    let floor_mailboxes = Fixture::new(options.dir.as_deref(), &agents)?;
    let mut hub = Hub::start_on(&filebox, &hub_mailboxes)?;
    let mut rss = vec![hub.rss_kib()?];
    let baseline_mailboxes = Fixture::new(options.dir.as_deref(), &agents)?;
    let mut baseline = match &options.baseline {
        Some(old) => Some(Hub::start_on(old, &baseline_mailboxes)?),
        None => None,
    };
    let builds: &[Build] = if baseline.is_some() {
        &[Build::This, Build::Baseline]
    } else {
        &[Build::This]
    };

    let hub_cases = [Call::Send, Call::SendKeyed, Call::A2aSend, Call::Reply]
        .into_iter()
        .flat_map(|call| {
            CLIENTS
                .iter()
                .flat_map(move |&n| builds.iter().map(move |&build| Case::Hub(call, n, build)))
        });
    let cases: Vec<Case> = hub_cases
        .chain(CLIENTS.iter().map(|&n| Case::Cli(n)))
        .chain([
            Case::Floor(1, DirSync::Private),
            Case::Floor(16, DirSync::Private),
            Case::Floor(16, DirSync::Grouped),
        ])
        .collect();
    let mut tallies: Vec<Tally> = cases.iter().map(|_| Tally::default()).collect();
    let body = "x".repeat(BODY_BYTES - 1) + "\n";
    let sequence = AtomicU64::new(0);
    for _ in 0..rounds {
        for (case, tally) in cases.iter().zip(&mut tallies) {
            let serving = match case {
                Case::Hub(_, _, Build::This) => Some(&hub),
                Case::Hub(_, _, Build::Baseline) => baseline.as_ref(),
                _ => None,
            };
            let cpu_before = serving.map(|h| cpu_time(h.pid())).transpose()?;
            let started = Instant::now();
            let work = std::thread::scope(|scope| {
                let threads: Vec<_> = (0..case.clients())
                    .map(|_| {
                        scope.spawn(|| match *case {
                            Case::Hub(call, _, _) => match serving {
                                Some(h) => hub_client(h.address, call, &body, started + slice),
                                None => Work::default(),
                            },
                            Case::Cli(_) => cli_client(
                                &filebox,
                                &cli_mailboxes.config(),
                                &body,
                                started + slice,
                            ),
                            Case::Floor(_, sync) => {
                                floor_writer(&floor_mailboxes, sync, &sequence, started + slice)
                            }
                        })
                    })
                    .collect();
                threads
                    .into_iter()
                    .map(|t| t.join().unwrap_or_default())
                    .collect::<Vec<Work>>()
            });
            let elapsed = started.elapsed();
            if let (Some(h), Some(before)) = (serving, cpu_before) {
                // What the calls left the hub to do (an index catch-up once the mailbox is
                // quiet) is theirs, not the next case's.
                until_idle(&[h.pid()], SETTLE_PATIENCE)?;
                tally.cpu += cpu_time(h.pid())?.saturating_sub(before);
            }
            let sends: u64 = work.iter().map(|w| w.latencies.len() as u64).sum();
            tally.sends += sends;
            tally.elapsed += elapsed;
            tally.rates.push(sends as f64 / elapsed.as_secs_f64());
            for w in work {
                tally.errors += w.errors;
                tally.latencies.extend(w.latencies);
                if tally.first_error.is_none() {
                    tally.first_error = w.first_error;
                }
            }
        }
        rss.push(hub.rss_kib()?);
    }
    let load_after = load_average();
    hub.stop()?;
    if let Some(baseline) = &mut baseline {
        baseline.stop()?;
    }
    print_rates(&cases, &tallies, rounds, slice);
    print_ratios(&cases, &tallies);
    let served: u64 = cases
        .iter()
        .zip(&tallies)
        .filter(|(c, _)| matches!(c, Case::Hub(_, _, Build::This)))
        .map(|(_, t)| t.sends + t.errors)
        .sum();
    let header: Vec<String> = ["at start".to_owned()]
        .into_iter()
        .chain((1..=rounds).map(|r| format!("after round {r}")))
        .collect();
    report::table(
        &format!("Hub memory (VmRSS from /proc); {served} sends served"),
        &header.iter().map(String::as_str).collect::<Vec<_>>(),
        &[rss.into_iter().map(kib).collect()],
    );
    println!("\nload average (1, 5, 15 min): before {load_before}, after {load_after}");
    for (case, tally) in cases.iter().zip(&tallies) {
        if let Some(error) = &tally.first_error {
            println!(
                "first error of {} x{}: {error}",
                case.path(),
                case.clients()
            );
        }
    }

    // A hub of its own: the loaded one may still be turning the last deliveries into events.
    let rounds = if options.quick { 10 } else { 100 };
    let event_mailboxes = Fixture::new(options.dir.as_deref(), &agents)?;
    let mut hub = Hub::start_on(&filebox, &event_mailboxes)?;
    event_latency(&filebox, &event_mailboxes, &mut hub, rounds)
}

fn print_rates(cases: &[Case], tallies: &[Tally], rounds: usize, slice: Duration) {
    let rows: Vec<Vec<String>> = cases
        .iter()
        .zip(tallies)
        .map(|(case, tally)| {
            let latencies = Samples::new(tally.latencies.clone());
            let (low, high) = tally
                .rates
                .iter()
                .fold((f64::MAX, 0.0_f64), |(l, h), r| (l.min(*r), h.max(*r)));
            let (mean, p50, p99) = if tally.latencies.is_empty() {
                ("-".to_owned(), "-".to_owned(), "-".to_owned())
            } else {
                (
                    ms(latencies.mean()),
                    ms(latencies.p50()),
                    ms(latencies.quantile(0.99)),
                )
            };
            let cpu = match case {
                Case::Hub(..) if tally.sends > 0 => ms(tally.cpu / tally.sends as u32),
                _ => "-".to_owned(),
            };
            vec![
                case.path().to_owned(),
                case.clients().to_string(),
                format!("{:.0}", tally.rate()),
                format!("{low:.0}–{high:.0}"),
                mean,
                p50,
                p99,
                cpu,
                tally.errors.to_string(),
            ]
        })
        .collect();
    report::table(
        &format!(
            "Calls per second, {BODY_BYTES}-byte body, {rounds} rounds of {} s per case \
             (a reply's CPU includes the send it answers)",
            slice.as_secs_f64()
        ),
        &[
            "path",
            "clients",
            "calls/s",
            "per round",
            "mean",
            "p50",
            "p99",
            "hub CPU/call",
            "errors",
        ],
        &rows,
    );
}

fn print_ratios(cases: &[Case], tallies: &[Tally]) {
    let rate = |wanted: fn(Case) -> bool| {
        cases
            .iter()
            .zip(tallies)
            .find(|(c, _)| wanted(**c))
            .map_or(0.0, |(_, t)| t.rate())
    };
    let of = |wanted: &dyn Fn(Case) -> bool| {
        cases
            .iter()
            .zip(tallies)
            .find(|(c, _)| wanted(**c))
            .map(|(_, t)| t.rate())
    };
    let mean_latency = |call: Call, n: usize| {
        cases
            .iter()
            .zip(tallies)
            .find(|(c, _)| matches!(c, Case::Hub(k, m, Build::This) if *k == call && *m == n))
            .filter(|(_, t)| !t.latencies.is_empty())
            .map(|(_, t)| Samples::new(t.latencies.clone()).mean().as_secs_f64())
    };
    let floor = rate(|c| matches!(c, Case::Floor(1, DirSync::Private)));
    let private = rate(|c| matches!(c, Case::Floor(16, DirSync::Private)));
    let mut rows = Vec::new();
    for n in CLIENTS {
        let hub = |call, build| {
            of(&|c| matches!(c, Case::Hub(k, m, b) if k == call && m == n && b == build))
        };
        let send = hub(Call::Send, Build::This).unwrap_or(0.0);
        let cli = of(&|c| matches!(c, Case::Cli(m) if m == n)).unwrap_or(0.0);
        let against = |call| match (hub(call, Build::This), hub(call, Build::Baseline)) {
            (Some(this), Some(old)) => format!("{:.2}×", this / old),
            _ => "-".to_owned(),
        };
        let a2a = hub(Call::A2aSend, Build::This).unwrap_or(0.0);
        let keyed = hub(Call::SendKeyed, Build::This).unwrap_or(0.0);
        let latency = match (mean_latency(Call::A2aSend, n), mean_latency(Call::Send, n)) {
            (Some(a2a), Some(send)) => format!("{:.2}×", a2a / send),
            _ => "-".to_owned(),
        };
        rows.push(vec![
            n.to_string(),
            format!("{:.2}×", a2a / send),
            latency,
            format!("{:.2}×", a2a / keyed),
            format!("{:.1}×", send / cli),
            format!("{:.0}%", 200.0 * send / private),
            against(Call::Send),
            against(Call::Reply),
        ]);
    }
    let grouped = rate(|c| matches!(c, Case::Floor(16, DirSync::Grouped)));
    report::table(
        "Ratios (same run)",
        &[
            "clients",
            "A2A SendMessage / email.send (throughput)",
            "A2A SendMessage / email.send (mean latency)",
            "A2A SendMessage / keyed email.send",
            "hub send / CLI (same clients)",
            "hub send files / 16-writer floor files (2 per send)",
            "send: this / baseline",
            "reply: this / baseline",
        ],
        &rows,
    );
    println!(
        "\n16 writers: group-committed / private directory fsync = {:.2}×; \
         group-committed 16 / fsync loop 1 = {:.2}×",
        grouped / private,
        grouped / floor
    );
}

/// One HTTP client: `call` on one keep-alive connection until `deadline`; a reply answers a
/// message sent (untimed) just before it.
fn hub_client(address: SocketAddr, call: Call, body: &str, deadline: Instant) -> Work {
    let mut work = Work::default();
    let mut connection = None;
    let send = json!({
        "from": "qa",
        "to": ["dev"],
        "subject": "bench",
        "body": body,
        "sourceType": "agent",
    });
    // Unique across clients and runs: the client's start time and a counter.
    let client = std::time::SystemTime::now()
        .duration_since(std::time::UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos());
    let mut sent_count = 0u64;
    while Instant::now() < deadline {
        let mut started = Instant::now();
        sent_count += 1;
        let outcome = (|| -> Result<()> {
            let open = match connection.take() {
                Some(open) => open,
                None => Connection::open(address)?,
            };
            let open = connection.insert(open);
            if call == Call::A2aSend {
                let message = json!({ "message": {
                    "messageId": format!("bench-{client}-{sent_count}"),
                    "role": "ROLE_USER",
                    "parts": [{ "text": body }],
                } });
                rpc_at(open, "/a2a/dev", "SendMessage", &message)?;
                return Ok(());
            }
            if call == Call::SendKeyed {
                let mut keyed = send.clone();
                keyed["idempotencyKey"] = json!(format!("bench-{client}-{sent_count}"));
                rpc(open, "email.send", &keyed)?;
                return Ok(());
            }
            let sent = rpc(open, "email.send", &send)?;
            if call == Call::Reply {
                let id = sent.get("id").and_then(Value::as_str).ok_or("no id sent")?;
                started = Instant::now();
                rpc(
                    open,
                    "email.reply",
                    &json!({"from": "dev", "id": id, "body": body}),
                )?;
            }
            Ok(())
        })();
        if outcome.is_err() {
            connection = None; // start on a fresh connection
        }
        work.record(started, outcome);
    }
    work
}

/// One JSON-RPC call on `connection`: its result, or the answer as an error.
fn rpc(connection: &mut Connection, method: &str, params: &Value) -> Result<Value> {
    rpc_at(connection, "/rpc", method, params)
}

/// [`rpc`] at another endpoint (an A2A agent's).
fn rpc_at(connection: &mut Connection, path: &str, method: &str, params: &Value) -> Result<Value> {
    let request = json!({"jsonrpc": "2.0", "id": 1, "method": method, "params": params});
    let response = connection.post_json(path, request.to_string().as_bytes())?;
    let mut answer: Value = serde_json::from_slice(&response.body)?;
    match answer.get_mut("result") {
        Some(result) if response.status == 200 => Ok(result.take()),
        _ => Err(format!("HTTP {}: {answer}", response.status).into()),
    }
}

/// One CLI caller: `filebox send` processes, one after the other, until `deadline`.
fn cli_client(filebox: &Path, config: &Path, body: &str, deadline: Instant) -> Work {
    let mut work = Work::default();
    while Instant::now() < deadline {
        let started = Instant::now();
        let outcome = Command::new(filebox)
            .arg("--config")
            .arg(config)
            .args(["--agent", "qa", "send", "dev", "DIS", body])
            .stdout(Stdio::null())
            .stderr(Stdio::piped())
            .output()
            .map_err(Into::into)
            .and_then(|out| {
                if out.status.success() {
                    Ok(())
                } else {
                    Err(String::from_utf8_lossy(&out.stderr)
                        .trim()
                        .to_owned()
                        .into())
                }
            });
        work.record(started, outcome);
    }
    work
}

/// One writer of the durable-delivery floor, into `dev`'s inbox, until `deadline`.
fn floor_writer(
    mailboxes: &Fixture,
    sync: DirSync,
    sequence: &AtomicU64,
    deadline: Instant,
) -> Work {
    let tmp = mailboxes.folder("dev", "tmp");
    let inbox = mailboxes.folder("dev", "inbox");
    // The bytes of a rendered message of this body.
    let bytes = "h".repeat(420) + &"x".repeat(BODY_BYTES);
    let mut work = Work::default();
    while Instant::now() < deadline {
        let name = format!("floor-{}", sequence.fetch_add(1, Ordering::Relaxed));
        let started = Instant::now();
        let outcome = publish_bare(&tmp, &inbox, &name, bytes.as_bytes(), sync);
        work.record(started, outcome);
    }
    work
}

/// `filebox serve` on a free loopback port, stopped with SIGTERM.
pub(crate) struct Hub {
    child: Child,
    pub(crate) address: SocketAddr,
}

impl Hub {
    /// The hub of a fixture's config, logging beside it.
    fn start_on(filebox: &Path, mailboxes: &Fixture) -> Result<Hub> {
        Hub::start(
            filebox,
            &mailboxes.config(),
            &mailboxes.path().join("hub.log"),
        )
    }

    /// The hub of `config`, its stderr in `log`.
    pub(crate) fn start(filebox: &Path, config: &Path, log: &Path) -> Result<Hub> {
        let mut child = Command::new(filebox)
            .arg("--config")
            .arg(config)
            .args(["serve", "--listen", "127.0.0.1:0"])
            .stdout(Stdio::piped())
            .stderr(File::create(log)?)
            .spawn()?;
        let stdout = child.stdout.take().ok_or("no hub stdout")?;
        // The first line is the base URL, printed once the hub accepts connections.
        let mut url = String::new();
        BufReader::new(stdout).read_line(&mut url)?;
        let address = url
            .trim()
            .strip_prefix("http://")
            .and_then(|rest| rest.trim_end_matches('/').parse().ok());
        match address {
            Some(address) => Ok(Hub { child, address }),
            None => {
                let _ = child.kill();
                let _ = child.wait();
                Err(format!(
                    "`filebox serve` printed {url:?} instead of its URL: {}",
                    fs::read_to_string(log).unwrap_or_default().trim()
                )
                .into())
            }
        }
    }

    /// The hub's process id.
    pub(crate) fn pid(&self) -> u32 {
        self.child.id()
    }

    /// The hub's resident memory in KiB.
    pub(crate) fn rss_kib(&self) -> Result<u64> {
        crate::process::rss_kib(self.child.id())
    }

    /// SIGTERM, then wait for the graceful stop.
    pub(crate) fn stop(&mut self) -> Result<()> {
        use rustix::process::{Pid, Signal, kill_process};
        kill_process(Pid::from_child(&self.child), Signal::TERM)?;
        let status = self.child.wait()?;
        if !status.success() {
            return Err(format!("the hub exited with {status}").into());
        }
        Ok(())
    }
}

impl Drop for Hub {
    fn drop(&mut self) {
        if self.child.try_wait().is_ok_and(|s| s.is_none()) {
            let _ = self.child.kill();
            let _ = self.child.wait();
        }
    }
}

/// A file delivered by `filebox send` until a client of `/events?agent=dev` has its
/// `delivered` event; one send at a time, the next once the event is in. Then stop the hub.
fn event_latency(filebox: &Path, mailboxes: &Fixture, hub: &mut Hub, rounds: usize) -> Result<()> {
    let mut events = Connection::open(hub.address)?.events("/events?agent=dev")?;
    // Subscribed once the response head is in: the hub subscribes before it answers.
    let (arrived, arrivals) = mpsc::channel();
    let reader = std::thread::spawn(move || {
        while let Ok(event) = events.next_event() {
            if event.event != "delivered" {
                continue;
            }
            let id = serde_json::from_str::<Value>(&event.data)
                .ok()
                .and_then(|v| v.get("messageId")?.as_str().map(str::to_owned));
            if arrived.send((id, Instant::now())).is_err() {
                break;
            }
        }
    });
    let mut from_spawn = Vec::new();
    let mut from_exit = Vec::new();
    let mut process = Vec::new();
    for n in 0..rounds {
        let spawned = Instant::now();
        let out = Command::new(filebox)
            .arg("--config")
            .arg(mailboxes.config())
            .args(["--agent", "qa", "send", "dev", "DIS"])
            .arg(format!("event {n}"))
            .output()?;
        let exited = Instant::now();
        if !out.status.success() {
            return Err(format!(
                "filebox send failed: {}",
                String::from_utf8_lossy(&out.stderr)
            )
            .into());
        }
        let id = String::from_utf8_lossy(&out.stdout).trim().to_owned();
        let received = loop {
            let (event_id, at) = arrivals.recv_timeout(Duration::from_secs(10))?;
            if event_id.as_deref() == Some(id.as_str()) {
                break at;
            }
        };
        from_spawn.push(signed_ns(received, spawned));
        from_exit.push(signed_ns(received, exited));
        process.push(exited - spawned);
    }
    hub.stop()?;
    reader.join().map_err(|_| "the event reader panicked")?;
    let row = |name: &str, mut values: Vec<i128>| {
        values.sort();
        let at =
            |q: f64| values[((q * values.len() as f64).ceil() as usize).clamp(1, values.len()) - 1];
        let signed_ms = |ns: i128| format!("{:.2} ms", ns as f64 / 1e6);
        vec![
            name.to_owned(),
            rounds.to_string(),
            signed_ms(at(0.5)),
            signed_ms(at(0.95)),
            signed_ms(values[values.len() - 1]),
        ]
    };
    report::table(
        &format!(
            "Event latency: `filebox send` delivers, `/events` client receives (the process took p50 {})",
            ms(Samples::new(process).p50())
        ),
        &["measured from", "events", "p50", "p95", "max"],
        &[
            row("filebox send spawned (upper bound)", from_spawn),
            row("filebox send exited (may be < 0)", from_exit),
        ],
    );
    Ok(())
}

/// `later - earlier` in nanoseconds, negative when `later` came first.
fn signed_ns(later: Instant, earlier: Instant) -> i128 {
    if later >= earlier {
        (later - earlier).as_nanos() as i128
    } else {
        -((earlier - later).as_nanos() as i128)
    }
}

fn kib(value: u64) -> String {
    format!("{:.1} MiB", value as f64 / 1024.0)
}

/// `/proc/loadavg`'s three averages.
pub(crate) fn load_average() -> String {
    fs::read_to_string("/proc/loadavg")
        .map(|l| l.split_whitespace().take(3).collect::<Vec<_>>().join(" "))
        .unwrap_or_else(|_| "unknown".into())
}
