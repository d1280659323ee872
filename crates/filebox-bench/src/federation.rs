//! `federation`: two real hubs (`filebox serve`, each its own mailbox root) federated through a
//! real `nats-server` with JetStream on loopback.
//!
//! - Latency: `email.send` on hub A until the file is in the inbox of an agent of hub B, against
//!   the same-hub path (`email.send` on hub A to an agent of hub A) in the same run, the two
//!   taking turns, one message at a time.
//! - Throughput: 8 senders (each an agent of hub A, each on its own keep-alive connection) to 8
//!   agents of hub B for a fixed time, then until hub B has every message: the rate hub A accepts
//!   and the rate hub B delivers at, with the CPU time and memory of nats-server and both hubs;
//!   against, in the same run, the same 8 senders to 8 agents of hub A (a local send: the rate
//!   one hub accepts and its CPU per message). Each run's CPU is counted until its processes
//!   are idle again, so what a burst leaves a hub to do afterwards (index catch-up) is counted
//!   once, in the run that caused it, on both sides of the comparison.
//!
//! Every message is 1 KiB of body, the hub benchmark's size. With `--baseline OLD_FILEBOX`, the
//! whole run is made first with that binary as both hubs, then with this build's, each on fresh
//! mailboxes and a fresh nats-server, and a last table puts the two side by side.

use std::fs;
use std::net::SocketAddr;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use filebox_core::{AgentId, ChangeKind, Config, Feed, Folder, Mailbox, MessageRef};
use filebox_federation::local_nats::LocalNats;
use serde_json::{Value, json};

use crate::fixture::{Result, filebox_binary};
use crate::http::Connection;
use crate::hub::{Hub, load_average};
use crate::options::Options;
use crate::process::until_idle;
use crate::report::{self, Samples, ms};

const BODY_BYTES: usize = 1024;
const SENDERS: usize = 8;
/// How long a message may take to cross before the run gives up (a hang guard).
const PATIENCE: Duration = Duration::from_secs(120);

/// One machine of the federation: its config folder and running hub.
struct Machine {
    dir: PathBuf,
    hub: Hub,
}

pub(crate) fn run(options: &Options) -> Result<()> {
    let mut binaries = Vec::new();
    if let Some(baseline) = &options.baseline {
        binaries.push(("baseline", baseline.clone()));
    }
    binaries.push(("this build", filebox_binary()?));
    let mut figures = Vec::new();
    for (name, binary) in &binaries {
        println!("\n## federation, {name}: {}", binary.display());
        figures.push((*name, measure(options, binary)?));
    }
    if figures.len() > 1 {
        compare(&figures);
    }
    Ok(())
}

/// What one run of the whole benchmark found, for the side-by-side table.
struct Figures {
    cross: Samples,
    same: Samples,
    local: Local,
    federated: Federated,
    load: (String, String),
}

/// The run with `filebox` as both hubs, on fresh mailboxes and a fresh nats-server.
fn measure(options: &Options, filebox: &Path) -> Result<Figures> {
    let (pairs, slice) = if options.quick {
        (20, Duration::from_secs(2))
    } else {
        (200, Duration::from_secs(10))
    };
    let mut builder = tempfile::Builder::new();
    builder.prefix("filebox-bench-federation-");
    let root = match options.dir.as_deref() {
        Some(base) => builder.tempdir_in(base)?,
        None => builder.tempdir()?,
    };
    let store = root.path().join("nats");
    fs::create_dir(&store)?;
    let nats = LocalNats::start(&store).map_err(|e| format!("{e:#}"))?;
    let senders: Vec<String> = (0..SENDERS).map(|n| format!("s{n}")).collect();
    let receivers: Vec<String> = (0..SENDERS).map(|n| format!("r{n}")).collect();
    let remote: Vec<String> = receivers.iter().map(|r| format!("{r}@hub-b")).collect();
    let near: Vec<String> = (0..SENDERS).map(|n| format!("l{n}")).collect();
    let local: Vec<String> = senders
        .iter()
        .chain(&near)
        .cloned()
        .chain(["near".to_owned()])
        .collect();
    let a_dir = machine_config(root.path(), "hub-a", &nats, &local, &remote)?;
    let b_dir = machine_config(root.path(), "hub-b", &nats, &receivers, &[])?;
    let a = Machine {
        hub: Hub::start(filebox, &a_dir.join("config.json"), &a_dir.join("hub.log"))?,
        dir: a_dir,
    };
    let b = Machine {
        hub: Hub::start(filebox, &b_dir.join("config.json"), &b_dir.join("hub.log"))?,
        dir: b_dir,
    };
    let load_before = load_average();
    let (cross, same) = latency(&a, &b, pairs)?;
    let local = local_throughput(&a, slice)?;
    let federated = throughput(&a, &b, &nats, slice, &local)?;
    let load_after = load_average();
    println!("\nload average (1, 5, 15 min): before {load_before}, after {load_after}");
    for machine in [a, b] {
        let mut hub = machine.hub;
        hub.stop()?;
    }
    Ok(Figures {
        cross,
        same,
        local,
        federated,
        load: (load_before, load_after),
    })
}

/// The runs side by side, one column each.
fn compare(figures: &[(&str, Figures)]) {
    let row = |name: &str, value: &dyn Fn(&Figures) -> String| {
        std::iter::once(name.to_owned())
            .chain(figures.iter().map(|(_, f)| value(f)))
            .collect::<Vec<_>>()
    };
    let per_mail = |cpu: Duration| format!("{:.2} ms", 1e3 * cpu.as_secs_f64());
    let rows = vec![
        row(
            "local baseline: hub A accepts (8 → 8 agents of A)",
            &|f| format!("{:.0}/s", f.local.per_second),
        ),
        row("cross-hub: hub A accepts", &|f| {
            format!("{:.0}/s", f.federated.accepted_per_second)
        }),
        row("in hub B's inboxes when sending stopped", &|f| {
            f.federated.delivered_at_slice.to_string()
        }),
        row("delivered by hub B, sustained", &|f| {
            format!(
                "{:.0}/s ({:.1} s to drain)",
                f.federated.delivered_per_second,
                f.federated.drained_in.as_secs_f64()
            )
        }),
        row("every receipt recorded by hub A", &|f| {
            format!("after {:.1} s", f.federated.settled_in.as_secs_f64())
        }),
        row("delivery / local acceptance (goal ≥ 50 %)", &|f| {
            format!(
                "{:.0} %",
                100.0 * f.federated.delivered_per_second / f.local.per_second
            )
        }),
        row("hub A CPU per federated mail", &|f| {
            per_mail(f.federated.cpu[1])
        }),
        row("hub B CPU per federated mail", &|f| {
            per_mail(f.federated.cpu[2])
        }),
        row("nats-server CPU per federated mail", &|f| {
            per_mail(f.federated.cpu[0])
        }),
        row("hub A CPU per local send (baseline)", &|f| {
            per_mail(f.local.cpu_per_message)
        }),
        row(
            "CPU per federated mail / per local send (goal ≤ 2×)",
            &|f| {
                let local = f.local.cpu_per_message.as_secs_f64();
                format!(
                    "A {:.1}×, B {:.1}×",
                    f.federated.cpu[1].as_secs_f64() / local,
                    f.federated.cpu[2].as_secs_f64() / local
                )
            },
        ),
        row("latency p50 / p95, cross-hub", &|f| {
            format!("{} / {}", ms(f.cross.p50()), ms(f.cross.p95()))
        }),
        row("latency p50 / p95, same hub", &|f| {
            format!("{} / {}", ms(f.same.p50()), ms(f.same.p95()))
        }),
        row("cross-hub / same-hub p95", &|f| {
            format!(
                "{:.1}×",
                f.cross.p95().as_secs_f64() / f.same.p95().as_secs_f64()
            )
        }),
        row("load average before → after", &|f| {
            format!("{} → {}", f.load.0, f.load.1)
        }),
    ];
    let header: Vec<&str> = std::iter::once("figure")
        .chain(figures.iter().map(|(name, _)| *name))
        .collect();
    report::table("Federation: the runs side by side", &header, &rows);
}

/// Write the config of hub `name`: `local` agents with mailboxes, `remote` ones (`name@hub`).
fn machine_config(
    root: &Path,
    name: &str,
    nats: &LocalNats,
    local: &[String],
    remote: &[String],
) -> Result<PathBuf> {
    let dir = root.join(name);
    fs::create_dir(&dir)?;
    let mut agents = serde_json::Map::new();
    for agent in local {
        agents.insert(
            agent.clone(),
            json!({ "mailbox_path": format!("mailboxes/{agent}") }),
        );
    }
    for agent in remote {
        let hub = agent.split_once('@').map_or("", |(_, hub)| hub);
        agents.insert(agent.clone(), json!({ "hub": hub }));
    }
    let config = json!({
        "current_agent_id": local[0],
        "agents": agents,
        "federation": { "nats": nats.url(), "hub": name },
    });
    fs::write(dir.join("config.json"), config.to_string())?;
    Ok(dir)
}

/// The mailbox of `agent` under the config in `dir`.
fn mailbox(dir: &Path, agent: &str) -> Result<Mailbox> {
    let config = Config::load(&dir.join("config.json"))?;
    let id = AgentId::new(agent)?;
    Ok(Mailbox::open(id.clone(), config.mailbox_path(&id)?)?)
}

/// `email.send` of a 1 KiB body from `from` to `to` on one connection; the Message ID.
fn send(connection: &mut Connection, from: &str, to: &str, n: u64) -> Result<String> {
    let body = "x".repeat(BODY_BYTES - 1) + "\n";
    let request = json!({
        "jsonrpc": "2.0",
        "id": n,
        "method": "email.send",
        "params": { "from": from, "to": [to], "subject": format!("bench {n}"), "body": body,
                    "sourceType": "agent" },
    })
    .to_string();
    let response = connection.post_json("/rpc", request.as_bytes())?;
    let answer: Value = serde_json::from_slice(&response.body)?;
    answer["result"]["id"]
        .as_str()
        .map(str::to_owned)
        .ok_or_else(|| format!("HTTP {}: {answer}", response.status).into())
}

/// Wait, on the core's change feed, until message `id` is in the inbox of `mailbox`.
fn wait_visible(feed: &mut Feed, mailbox: &Mailbox, id: &str) -> Result<Instant> {
    let reference = MessageRef::Id(id.to_owned());
    let deadline = Instant::now() + PATIENCE;
    loop {
        if mailbox.find(&reference, &[Folder::Inbox]).is_ok() {
            return Ok(Instant::now());
        }
        if Instant::now() >= deadline {
            return Err(format!("message {id} never became visible").into());
        }
        feed.next(Some(deadline), &|| false)?;
    }
}

/// The latency samples, cross-hub and same-hub.
fn latency(a: &Machine, b: &Machine, pairs: usize) -> Result<(Samples, Samples)> {
    let mut connection = Connection::open(a.hub.address)?;
    let far = mailbox(&b.dir, "r0")?;
    let near = mailbox(&a.dir, "near")?;
    let mut feed = Feed::new();
    feed.watch(&far, Folder::Inbox)?;
    feed.watch(&near, Folder::Inbox)?;
    let (mut cross, mut same) = (Vec::new(), Vec::new());
    // One message across first, so the consumer and connections are warm.
    let id = send(&mut connection, "s0", "r0@hub-b", 0)?;
    wait_visible(&mut feed, &far, &id)?;
    for n in 0..pairs as u64 {
        let started = Instant::now();
        let id = send(&mut connection, "s0", "r0@hub-b", 2 * n + 1)?;
        cross.push(wait_visible(&mut feed, &far, &id)? - started);
        let started = Instant::now();
        let id = send(&mut connection, "s0", "near", 2 * n + 2)?;
        same.push(wait_visible(&mut feed, &near, &id)? - started);
    }
    let (cross, same) = (Samples::new(cross), Samples::new(same));
    let row = |path: &str, s: &Samples| {
        vec![
            path.to_owned(),
            pairs.to_string(),
            ms(s.p50()),
            ms(s.p95()),
            ms(s.max()),
        ]
    };
    report::table(
        "Latency: email.send on hub A until the file is in the recipient's inbox",
        &["path", "messages", "p50", "p95", "max"],
        &[
            row("cross-hub: hub A → NATS → hub B", &cross),
            row("same hub: hub A → agent of hub A", &same),
        ],
    );
    println!(
        "\ncross-hub / same-hub: p50 {:.1}×, p95 {:.1}×",
        cross.p50().as_secs_f64() / same.p50().as_secs_f64(),
        cross.p95().as_secs_f64() / same.p95().as_secs_f64()
    );
    Ok((cross, same))
}

/// CPU time (user + system) and memory of a process, from /proc.
struct Usage {
    cpu: Duration,
    rss_kib: u64,
    peak_kib: u64,
}

/// The unit of /proc's CPU times (`getconf CLK_TCK`, 100 on every common Linux).
fn clock_ticks_per_second() -> Result<u64> {
    let out = std::process::Command::new("getconf")
        .arg("CLK_TCK")
        .output()?;
    Ok(String::from_utf8_lossy(&out.stdout).trim().parse()?)
}

fn usage(pid: u32) -> Result<Usage> {
    let stat = fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // Fields after the command name (which may hold spaces) in parentheses.
    let fields: Vec<&str> = stat
        .rsplit_once(')')
        .ok_or("malformed /proc/PID/stat")?
        .1
        .split_whitespace()
        .collect();
    let ticks: u64 = fields[11].parse::<u64>()? + fields[12].parse::<u64>()?;
    let per_second = clock_ticks_per_second()?;
    let status = fs::read_to_string(format!("/proc/{pid}/status"))?;
    let kib = |key: &str| -> u64 {
        status
            .lines()
            .find_map(|l| l.strip_prefix(key))
            .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
            .unwrap_or(0)
    };
    Ok(Usage {
        cpu: Duration::from_secs_f64(ticks as f64 / per_second as f64),
        rss_kib: kib("VmRSS:"),
        peak_kib: kib("VmHWM:"),
    })
}

/// What one hub does with local sends: the rate it accepts them at and its CPU per message.
struct Local {
    per_second: f64,
    cpu_per_message: Duration,
}

/// 8 threads, one per sender on its own keep-alive connection to hub A, sending to `to(n)`
/// until `deadline`; while they run, `meanwhile` (until it returns). The messages sent.
fn send_until(
    a: &Machine,
    deadline: Instant,
    to: &(dyn Fn(usize) -> String + Sync),
    meanwhile: impl FnOnce() -> Result<()>,
) -> Result<u64> {
    std::thread::scope(|scope| -> Result<_> {
        let threads: Vec<_> = (0..SENDERS)
            .map(|n| {
                let address: SocketAddr = a.hub.address;
                scope.spawn(move || -> std::result::Result<u64, String> {
                    let mut connection = Connection::open(address).map_err(|e| e.to_string())?;
                    let (from, to) = (format!("s{n}"), to(n));
                    let mut sent = 0;
                    while Instant::now() < deadline {
                        send(&mut connection, &from, &to, sent).map_err(|e| e.to_string())?;
                        sent += 1;
                    }
                    Ok(sent)
                })
            })
            .collect();
        meanwhile()?;
        let mut sent = 0;
        for thread in threads {
            sent += thread.join().map_err(|_| "a sender panicked")??;
        }
        Ok(sent)
    })
}

/// The baseline: the 8 senders to 8 agents of hub A itself for `slice`.
fn local_throughput(a: &Machine, slice: Duration) -> Result<Local> {
    let before = usage(a.hub.pid())?;
    let started = Instant::now();
    let sent = send_until(a, started + slice, &|n| format!("l{n}"), || Ok(()))?;
    let elapsed = started.elapsed();
    // What the sends leave the hub to do (their indexes) counts, and is done before the
    // throughput run starts.
    let idle_after = until_idle(&[a.hub.pid()], PATIENCE)?;
    let cpu = usage(a.hub.pid())?.cpu.saturating_sub(before.cpu);
    let local = Local {
        per_second: sent as f64 / elapsed.as_secs_f64(),
        cpu_per_message: cpu / u32::try_from(sent.max(1))?,
    };
    report::table(
        &format!(
            "Baseline: {SENDERS} senders on hub A to {SENDERS} agents of hub A, {} s",
            slice.as_secs()
        ),
        &["figure", "value"],
        &[
            vec![
                "accepted by hub A (email.send, local)".into(),
                format!(
                    "{sent} in {:.1} s = {:.0}/s",
                    elapsed.as_secs_f64(),
                    local.per_second
                ),
            ],
            vec![
                "hub A CPU per local send, until idle again".into(),
                format!(
                    "{:.0} µs (idle {:.1} s after the last send)",
                    1e6 * local.cpu_per_message.as_secs_f64(),
                    idle_after.as_secs_f64()
                ),
            ],
        ],
    );
    Ok(local)
}

/// What the cross-hub throughput run found.
struct Federated {
    accepted_per_second: f64,
    delivered_at_slice: usize,
    delivered_per_second: f64,
    drained_in: Duration,
    settled_in: Duration,
    /// CPU per federated mail of nats-server, hub A and hub B.
    cpu: [Duration; 3],
}

fn throughput(
    a: &Machine,
    b: &Machine,
    nats: &LocalNats,
    slice: Duration,
    local: &Local,
) -> Result<Federated> {
    let processes = [
        ("nats-server", nats.pid()),
        ("hub A (sends, publishes)", a.hub.pid()),
        ("hub B (receives, delivers)", b.hub.pid()),
    ];
    let before: Vec<Usage> = processes
        .iter()
        .map(|(_, pid)| usage(*pid))
        .collect::<Result<_>>()?;
    let mut feed = Feed::new();
    for n in 0..SENDERS {
        feed.watch(&mailbox(&b.dir, &format!("r{n}"))?, Folder::Inbox)?;
    }
    let mut arrivals = Arrivals { feed, count: 0 };
    let started = Instant::now();
    let deadline = started + slice;
    let sent = send_until(a, deadline, &|n| format!("r{n}@hub-b"), || {
        while Instant::now() < deadline {
            arrivals.wait(deadline)?;
        }
        Ok(())
    })?;
    let (accepted_in, delivered_at_slice) = (started.elapsed(), arrivals.count);
    let give_up = Instant::now() + PATIENCE;
    while arrivals.count < sent as usize {
        if Instant::now() >= give_up {
            return Err(format!("hub B has {} of {sent} messages", arrivals.count).into());
        }
        arrivals.wait(give_up)?;
    }
    let drained_in = started.elapsed();
    // A federated mail's work ends when hub A has recorded its delivery receipt (and
    // acknowledged it: the stream is empty).
    while nats.messages_held().map_err(|e| format!("{e:#}"))? > 0 {
        if Instant::now() >= give_up {
            return Err("hub A never took every delivery receipt".into());
        }
        std::thread::sleep(Duration::from_millis(100));
    }
    let settled_in = started.elapsed();
    let pids: Vec<u32> = processes.iter().map(|(_, pid)| *pid).collect();
    let idle_in = settled_in + until_idle(&pids, PATIENCE)?;
    let after: Vec<Usage> = processes
        .iter()
        .map(|(_, pid)| usage(*pid))
        .collect::<Result<_>>()?;
    report::table(
        &format!(
            "Throughput: {SENDERS} senders on hub A to {SENDERS} agents of hub B, {} s of sending",
            slice.as_secs()
        ),
        &["figure", "value"],
        &[
            vec![
                "accepted by hub A (email.send)".into(),
                format!(
                    "{sent} in {:.1} s = {:.0}/s",
                    accepted_in.as_secs_f64(),
                    sent as f64 / accepted_in.as_secs_f64()
                ),
            ],
            vec![
                "in hub B's inboxes when sending stopped".into(),
                delivered_at_slice.to_string(),
            ],
            vec![
                "delivered by hub B, all of them".into(),
                format!(
                    "{sent} in {:.1} s = {:.0}/s sustained",
                    drained_in.as_secs_f64(),
                    sent as f64 / drained_in.as_secs_f64()
                ),
            ],
            vec![
                "every delivery receipt recorded by hub A".into(),
                format!("after {:.1} s", settled_in.as_secs_f64()),
            ],
        ],
    );
    let wall = idle_in.as_secs_f64();
    let rows: Vec<Vec<String>> = processes
        .iter()
        .zip(before.iter().zip(&after))
        .map(|((name, _), (before, after))| {
            let cpu = after.cpu.saturating_sub(before.cpu);
            vec![
                (*name).to_owned(),
                format!("{:.2} s", cpu.as_secs_f64()),
                format!("{:.0} %", 100.0 * cpu.as_secs_f64() / wall),
                format!("{:.0} µs", 1e6 * cpu.as_secs_f64() / sent.max(1) as f64),
                format!("{:.1} MiB", after.rss_kib as f64 / 1024.0),
                format!("{:.1} MiB", after.peak_kib as f64 / 1024.0),
            ]
        })
        .collect();
    let per_message = |usage: (&Usage, &Usage)| {
        usage.1.cpu.saturating_sub(usage.0.cpu) / u32::try_from(sent.max(1)).unwrap_or(u32::MAX)
    };
    let cpu = [0, 1, 2].map(|n| per_message((&before[n], &after[n])));
    let local_cpu = local.cpu_per_message.as_secs_f64();
    let delivered = sent as f64 / drained_in.as_secs_f64();
    println!(
        "\nsustained cross-hub delivery / local acceptance: {:.0} % ({delivered:.0}/s of {:.0}/s)\n\
         CPU per federated mail / per local send: hub A {:.1}×, hub B {:.1}×",
        100.0 * delivered / local.per_second,
        local.per_second,
        cpu[1].as_secs_f64() / local_cpu,
        cpu[2].as_secs_f64() / local_cpu,
    );
    report::table(
        &format!(
            "CPU and memory over the throughput run, until every process was idle again ({wall:.1} s)"
        ),
        &[
            "process",
            "CPU time",
            "CPU (of one core)",
            "CPU per message",
            "RSS after",
            "peak RSS",
        ],
        &rows,
    );
    Ok(Federated {
        accepted_per_second: sent as f64 / accepted_in.as_secs_f64(),
        delivered_at_slice,
        delivered_per_second: delivered,
        drained_in,
        settled_in,
        cpu,
    })
}

/// Files arriving in the watched inboxes, counted from the change feed.
struct Arrivals {
    feed: Feed,
    count: usize,
}

impl Arrivals {
    /// Count what arrives until something did or `until` passed.
    fn wait(&mut self, until: Instant) -> Result<()> {
        for change in self.feed.next(Some(until), &|| false)? {
            self.count += usize::from(change.kind == ChangeKind::Arrived);
        }
        Ok(())
    }
}
