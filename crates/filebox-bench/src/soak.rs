//! `soak`: the hub under steady mixed load for a long time (`--minutes`, default 30; not run in
//! CI): sends into an inbox that a worker lists and answers (a reply to every message that has
//! a webhook callback, to a receiver in this process, and a resolve of the others), sends to an
//! agent with a runner, and Server-Sent Events clients that connect, listen a few seconds and
//! leave, beside one that stays. At every sample the hub's resident memory, open files,
//! threads and the events published so far are printed; when the load stops and the clients
//! leave, the same figures are taken again to compare with the idle hub's before the load.
//! `--chart PATH` writes them as an SVG chart.

use std::fmt::Write as _;
use std::io::{BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpListener, TcpStream};
use std::path::Path;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, AtomicU64, Ordering};
use std::time::{Duration, Instant};

use serde_json::{Value, json};

use crate::fixture::{Fixture, Result, filebox_binary};
use crate::http::Connection;
use crate::hub::{Hub, load_average};
use crate::options::Options;
use crate::process;
use crate::report;

/// Sends to the worked inbox, per second.
const SENDS_PER_SECOND: u64 = 40;
/// One send in this many carries a webhook callback (the worker replies to it).
const CALLBACK_EVERY: u64 = 5;
/// The subject of a send with a callback (listings do not show the callback).
const CALLBACK_SUBJECT: &str = "soak callback";
/// Sends to the runner's agent, per second (each runs a process).
const RUNNER_SENDS_PER_SECOND: u64 = 2;
/// Event-stream clients that come and go at once, and how long each stays.
const CHURNING_STREAMS: usize = 4;
const STREAM_STAY: Duration = Duration::from_secs(3);

/// One load thread's work, given the shared counters and the stop flag.
type Work = Box<dyn FnOnce(&Counts, &AtomicBool) + Send>;

/// The figures of one sample.
#[derive(Clone)]
struct Sample {
    at: Duration,
    rss_kib: u64,
    /// Of `rss_kib`, the hub's own pages (heap and stacks).
    anonymous_kib: u64,
    open_files: usize,
    threads: usize,
    events: u64,
    sends: u64,
}

/// Counters the load threads share.
#[derive(Default)]
struct Counts {
    sends: AtomicU64,
    replies: AtomicU64,
    resolves: AtomicU64,
    listings: AtomicU64,
    streams: AtomicU64,
    events: AtomicU64,
    webhooks: AtomicU64,
    errors: AtomicU64,
    first_error: std::sync::Mutex<Option<String>>,
}

impl Counts {
    fn failed(&self, error: impl std::fmt::Display) {
        self.errors.fetch_add(1, Ordering::Relaxed);
        let mut first = self.first_error.lock().unwrap_or_else(|e| e.into_inner());
        first.get_or_insert_with(|| error.to_string());
    }
}

pub(crate) fn run(options: &Options) -> Result<()> {
    let minutes = options
        .minutes
        .unwrap_or(if options.quick { 2 } else { 30 });
    let length = Duration::from_secs(minutes * 60);
    // About 30 samples, never more often than every 10 s.
    let every = (length / 30).max(Duration::from_secs(10));
    let filebox = filebox_binary()?;
    let agents = ["qa", "dev", "bot"].map(str::to_owned);
    let mailboxes = Fixture::new(options.dir.as_deref(), &agents)?;
    let receiver = TcpListener::bind("127.0.0.1:0")?;
    let receiver_address = receiver.local_addr()?;
    configure(&mailboxes.config(), receiver_address)?;
    let mut hub = Hub::start(
        &filebox,
        &mailboxes.config(),
        &mailboxes.path().join("hub.log"),
    )?;
    let pid = hub.pid();
    let load_before = load_average();
    std::thread::sleep(Duration::from_secs(2));
    let started = Instant::now();
    let idle_before = sample(pid, Duration::ZERO, 0, 0)?;

    let counts = Arc::new(Counts::default());
    let stop = Arc::new(AtomicBool::new(false));
    let webhook = format!("http://{receiver_address}/hooks/soak");
    let mut threads = Vec::new();
    {
        let counts = Arc::clone(&counts);
        threads.push(std::thread::spawn(move || {
            serve_webhooks(&receiver, &counts)
        }));
    }
    let address = hub.address;
    let spawn = |threads: &mut Vec<_>, work: Work| {
        let (counts, stop) = (Arc::clone(&counts), Arc::clone(&stop));
        threads.push(std::thread::spawn(move || work(&counts, &stop)));
    };
    spawn(
        &mut threads,
        Box::new(move |counts, stop| {
            send_steadily(
                address,
                "dev",
                SENDS_PER_SECOND,
                Some(&webhook),
                counts,
                stop,
            )
        }),
    );
    spawn(
        &mut threads,
        Box::new(move |counts, stop| {
            send_steadily(address, "bot", RUNNER_SENDS_PER_SECOND, None, counts, stop)
        }),
    );
    spawn(
        &mut threads,
        Box::new(move |counts, stop| work_inbox(address, counts, stop)),
    );
    spawn(
        &mut threads,
        Box::new(move |counts, stop| observe(address, counts, stop)),
    );
    for _ in 0..CHURNING_STREAMS {
        spawn(
            &mut threads,
            Box::new(move |counts, stop| churn_streams(address, counts, stop)),
        );
    }

    let mut samples = vec![idle_before.clone()];
    println!(
        "\nsoak: {minutes} min of mixed load, a sample every {} s",
        every.as_secs()
    );
    print_sample(&idle_before);
    let mut next = started + every;
    while next <= started + length {
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
        let now = sample(
            pid,
            started.elapsed(),
            counts.events.load(Ordering::Relaxed),
            counts.sends.load(Ordering::Relaxed),
        )?;
        print_sample(&now);
        samples.push(now);
        next += every;
    }
    stop.store(true, Ordering::Relaxed);
    // The webhook receiver is left blocked in accept: it ends with the process.
    let receiver_thread = threads.remove(0);
    for thread in threads {
        thread.join().map_err(|_| "a load thread panicked")?;
    }
    drop(receiver_thread);
    // Idle connections close on the client's side at once; give the hub a moment to notice,
    // and its blocking threads their 10 s to end idle.
    std::thread::sleep(Duration::from_secs(15));
    let idle_after = sample(
        pid,
        started.elapsed(),
        counts.events.load(Ordering::Relaxed),
        counts.sends.load(Ordering::Relaxed),
    )?;
    let load_after = load_average();
    hub.stop()?;
    report_soak(&samples, &idle_before, &idle_after, &counts);
    println!("\nload average (1, 5, 15 min): before {load_before}, after {load_after}");
    if let Some(chart) = &options.chart {
        std::fs::write(chart, svg_chart(&samples, minutes))?;
        println!("chart written to {}", chart.display());
    }
    Ok(())
}

/// Add the webhook receiver to `hub.callback_allow` (with a secret to sign with) and a runner
/// to `bot`.
fn configure(config: &Path, receiver: SocketAddr) -> Result<()> {
    let mut value: Value = serde_json::from_slice(&std::fs::read(config)?)?;
    value["hub"] = json!({
        "callback_allow": [format!("http://{receiver}/hooks/")],
        "webhook_secret": "soak-secret",
    });
    value["agents"]["bot"]["runner"] = json!({
        "command": ["sh", "-c", "cat >/dev/null"],
        "timeout_secs": 60,
        "max_concurrent": 2,
    });
    std::fs::write(config, value.to_string())?;
    Ok(())
}

/// The hub's figures now.
fn sample(pid: u32, at: Duration, events: u64, sends: u64) -> Result<Sample> {
    Ok(Sample {
        at,
        rss_kib: process::rss_kib(pid)?,
        anonymous_kib: process::anonymous_kib(pid)?,
        threads: process::status_number(pid, "Threads")? as usize,
        open_files: std::fs::read_dir(format!("/proc/{pid}/fd"))?.count(),
        events,
        sends,
    })
}

fn print_sample(sample: &Sample) {
    println!(
        "  {:>5.1} min  RSS {:>6.1} MiB (anon {:>6.1})  open files {:>4}  threads {:>3}  events {:>8}  sends {:>8}",
        sample.at.as_secs_f64() / 60.0,
        sample.rss_kib as f64 / 1024.0,
        sample.anonymous_kib as f64 / 1024.0,
        sample.open_files,
        sample.threads,
        sample.events,
        sample.sends
    );
}

fn report_soak(samples: &[Sample], before: &Sample, after: &Sample, counts: &Counts) {
    let mib = |kib: u64| format!("{:.1} MiB", kib as f64 / 1024.0);
    // Warm-up: the first fifth of the run (at least the first sample under load).
    let warm = samples.len() / 5 + 1;
    let rss_after_warmup: Vec<u64> = samples.iter().skip(warm).map(|s| s.rss_kib).collect();
    let (low, high) = rss_after_warmup
        .iter()
        .fold((u64::MAX, 0), |(l, h), r| (l.min(*r), h.max(*r)));
    let c = |counter: &AtomicU64| counter.load(Ordering::Relaxed).to_string();
    report::table(
        "Soak: what the load did",
        &[
            "sends",
            "replies",
            "resolves",
            "inbox listings",
            "event streams opened",
            "events seen",
            "webhooks received",
            "errors",
        ],
        &[vec![
            c(&counts.sends),
            c(&counts.replies),
            c(&counts.resolves),
            c(&counts.listings),
            c(&counts.streams),
            c(&counts.events),
            c(&counts.webhooks),
            c(&counts.errors),
        ]],
    );
    if let Some(error) = counts
        .first_error
        .lock()
        .unwrap_or_else(|e| e.into_inner())
        .as_ref()
    {
        println!("\nfirst error: {error}");
    }
    report::table(
        "Soak: the hub idle before the load, and after it once the clients left",
        &["", "RSS", "open files", "threads"],
        &[
            vec![
                "idle, before".into(),
                mib(before.rss_kib),
                before.open_files.to_string(),
                before.threads.to_string(),
            ],
            vec![
                "idle, after".into(),
                mib(after.rss_kib),
                after.open_files.to_string(),
                after.threads.to_string(),
            ],
        ],
    );
    if !rss_after_warmup.is_empty() {
        println!(
            "\nRSS after warm-up (samples {}..{}): {} – {} (spread {})",
            warm,
            samples.len() - 1,
            mib(low),
            mib(high),
            mib(high - low)
        );
    }
}

/// `email.send` from `qa` to `to`, `per_second` times a second, until stopped.
fn send_steadily(
    address: SocketAddr,
    to: &str,
    per_second: u64,
    webhook: Option<&str>,
    counts: &Counts,
    stop: &AtomicBool,
) {
    let pause = Duration::from_secs(1) / per_second as u32;
    let mut connection = None;
    let mut next = Instant::now();
    let mut n = 0_u64;
    while !stop.load(Ordering::Relaxed) {
        n += 1;
        let mut params = json!({
            "from": "qa",
            "to": [to],
            "subject": format!("soak {n}"),
            "body": "x".repeat(512),
            "sourceType": "agent",
        });
        if let Some(webhook) = webhook.filter(|_| n.is_multiple_of(CALLBACK_EVERY)) {
            params["callback"] = json!({ "type": "webhook", "endpoint": webhook });
            params["subject"] = json!(format!("{CALLBACK_SUBJECT} {n}"));
        }
        match call(&mut connection, address, "email.send", params) {
            Ok(_) => {
                counts.sends.fetch_add(1, Ordering::Relaxed);
            }
            Err(e) => counts.failed(e),
        }
        next += pause;
        std::thread::sleep(next.saturating_duration_since(Instant::now()));
    }
}

/// `dev` lists its inbox ten times a second and answers what it finds: a reply to a message
/// with a callback (which fires its webhook), a resolve of the others.
fn work_inbox(address: SocketAddr, counts: &Counts, stop: &AtomicBool) {
    let mut connection = None;
    while !stop.load(Ordering::Relaxed) {
        let listing = call(
            &mut connection,
            address,
            "email.inbox",
            json!({ "agent": "dev", "limit": 20 }),
        );
        counts.listings.fetch_add(1, Ordering::Relaxed);
        let listing = match listing {
            Ok(listing) => listing,
            Err(e) => {
                counts.failed(e);
                continue;
            }
        };
        let messages = listing
            .get("messages")
            .or(Some(&listing))
            .and_then(Value::as_array)
            .cloned()
            .unwrap_or_default();
        for message in messages {
            let Some(id) = message.get("id").and_then(Value::as_str) else {
                continue;
            };
            let subject = message.get("subject").and_then(Value::as_str);
            let outcome = match subject.filter(|s| s.starts_with(CALLBACK_SUBJECT)) {
                Some(_) => call(
                    &mut connection,
                    address,
                    "email.reply",
                    json!({ "from": "dev", "id": id, "body": "done" }),
                )
                .map(|_| &counts.replies),
                None => call(
                    &mut connection,
                    address,
                    "email.resolve",
                    json!({ "agent": "dev", "id": id, "details": "soak" }),
                )
                .map(|_| &counts.resolves),
            };
            match outcome {
                Ok(counter) => {
                    counter.fetch_add(1, Ordering::Relaxed);
                }
                Err(e) => counts.failed(e),
            }
        }
        std::thread::sleep(Duration::from_millis(100));
    }
}

/// One JSON-RPC call on a keep-alive connection (opened again after a failure): its result.
fn call(
    connection: &mut Option<Connection>,
    address: SocketAddr,
    method: &str,
    params: Value,
) -> Result<Value> {
    let request = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
    let open = match connection.take() {
        Some(open) => open,
        None => Connection::open(address)?,
    };
    let open = connection.insert(open);
    let response = open.post_json("/rpc", request.to_string().as_bytes());
    let answer: Value = match response {
        Ok(response) => serde_json::from_slice(&response.body)?,
        Err(e) => {
            *connection = None;
            return Err(e.into());
        }
    };
    answer
        .get("result")
        .cloned()
        .ok_or_else(|| format!("{method}: {answer}").into())
}

/// One stream that stays for the whole run, counting the events.
fn observe(address: SocketAddr, counts: &Counts, stop: &AtomicBool) {
    let Ok(stream) = open_stream(address, "/events") else {
        counts.failed("the observing event stream did not open");
        return;
    };
    let mut stream = stream;
    while !stop.load(Ordering::Relaxed) {
        // A timeout only lets the stop flag be seen; an event cut by it is not counted.
        if stream.next_event().is_ok() {
            counts.events.fetch_add(1, Ordering::Relaxed);
        }
    }
}

/// Streams that connect, listen for [`STREAM_STAY`] and leave, one after the other.
fn churn_streams(address: SocketAddr, counts: &Counts, stop: &AtomicBool) {
    while !stop.load(Ordering::Relaxed) {
        let Ok(mut stream) = open_stream(address, "/events?agent=dev") else {
            counts.failed("an event stream did not open");
            std::thread::sleep(Duration::from_secs(1));
            continue;
        };
        counts.streams.fetch_add(1, Ordering::Relaxed);
        let leave = Instant::now() + STREAM_STAY;
        while Instant::now() < leave && !stop.load(Ordering::Relaxed) {
            let _ = stream.next_event();
        }
    }
}

fn open_stream(address: SocketAddr, path: &str) -> Result<crate::http::EventStream> {
    let connection = Connection::open(address)?;
    connection.read_timeout(Duration::from_millis(500))?;
    Ok(connection.events(path)?)
}

/// The webhook receiver: answers every request 200 and counts it; runs until the process ends.
fn serve_webhooks(listener: &TcpListener, counts: &Counts) {
    for stream in listener.incoming().flatten() {
        let answered = answer_webhooks(stream, counts);
        if answered.is_err() {
            counts.failed("a webhook connection failed");
        }
    }
}

/// Every request of one connection (kept alive by the hub's client), answered 200.
fn answer_webhooks(stream: TcpStream, counts: &Counts) -> std::io::Result<()> {
    let mut writer = stream.try_clone()?;
    let mut reader = BufReader::new(stream);
    loop {
        let mut length = 0_usize;
        let mut line = String::new();
        loop {
            line.clear();
            if reader.read_line(&mut line)? == 0 {
                return Ok(()); // the hub closed the connection
            }
            let trimmed = line.trim_end();
            if trimmed.is_empty() {
                break;
            }
            if let Some((name, value)) = trimmed.split_once(':')
                && name.eq_ignore_ascii_case("content-length")
            {
                length = value.trim().parse().unwrap_or(0);
            }
        }
        let mut body = vec![0; length];
        reader.read_exact(&mut body)?;
        writer.write_all(b"HTTP/1.1 200 OK\r\ncontent-length: 0\r\n\r\n")?;
        counts.webhooks.fetch_add(1, Ordering::Relaxed);
    }
}

/// The samples as an SVG chart: resident memory above; open files and threads below.
fn svg_chart(samples: &[Sample], minutes: u64) -> String {
    const WIDTH: f64 = 760.0;
    const LEFT: f64 = 60.0;
    const PANEL: f64 = 170.0;
    let plot = WIDTH - LEFT - 20.0;
    let x = |at: Duration| LEFT + plot * at.as_secs_f64() / (minutes as f64 * 60.0).max(1.0);
    let mut svg = String::new();
    let _ = write!(
        svg,
        "<svg xmlns='http://www.w3.org/2000/svg' width='{WIDTH}' height='440' \
         font-family='sans-serif' font-size='12'>\n<rect width='100%' height='100%' fill='white'/>\n\
         <text x='{LEFT}' y='18' font-size='14'>filebox serve under mixed load: {minutes} min</text>\n"
    );
    let panel = |svg: &mut String, top: f64, title: &str, lines: &[(&str, &str, Vec<f64>)]| {
        let high = lines
            .iter()
            .flat_map(|(_, _, values)| values.iter().copied())
            .fold(1.0_f64, f64::max)
            * 1.15;
        let y = |v: f64| top + PANEL - PANEL * v / high;
        let _ = writeln!(
            svg,
            "<rect x='{LEFT}' y='{top}' width='{plot}' height='{PANEL}' fill='none' stroke='#999'/>\n\
             <text x='{LEFT}' y='{}'>{title}</text>",
            top - 6.0
        );
        for step in 0..=4 {
            let value = high * f64::from(step) / 4.0;
            let _ = writeln!(
                svg,
                "<text x='{label}' y='{y:.1}' text-anchor='end'>{value:.0}</text>\
                 <line x1='{LEFT}' x2='{right}' y1='{y:.1}' y2='{y:.1}' stroke='#eee'/>",
                label = LEFT - 4.0,
                right = LEFT + plot,
                y = y(value)
            );
        }
        for (n, (name, colour, values)) in lines.iter().enumerate() {
            let points: Vec<String> = samples
                .iter()
                .zip(values)
                .map(|(s, v)| format!("{:.1},{:.1}", x(s.at), y(*v)))
                .collect();
            let _ = writeln!(
                svg,
                "<polyline fill='none' stroke='{colour}' stroke-width='2' points='{}'/>\n\
                 <text x='{}' y='{}' fill='{colour}'>{name}</text>",
                points.join(" "),
                LEFT + plot - 160.0,
                top + 16.0 + 14.0 * n as f64
            );
        }
    };
    let rss = samples.iter().map(|s| s.rss_kib as f64 / 1024.0).collect();
    panel(
        &mut svg,
        40.0,
        "resident memory (MiB)",
        &[("RSS", "#1f77b4", rss)],
    );
    let files = samples.iter().map(|s| s.open_files as f64).collect();
    let threads = samples.iter().map(|s| s.threads as f64).collect();
    panel(
        &mut svg,
        240.0,
        "open files and threads",
        &[
            ("open files", "#ff7f0e", files),
            ("threads", "#2ca02c", threads),
        ],
    );
    for minute in 0..=minutes {
        if minutes > 10 && minute % 5 != 0 {
            continue;
        }
        let at = Duration::from_secs(minute * 60);
        let _ = writeln!(
            svg,
            "<text x='{:.1}' y='428' text-anchor='middle'>{minute}</text>",
            x(at)
        );
    }
    let _ = writeln!(
        svg,
        "<text x='{}' y='438' text-anchor='end' font-size='10'>minutes</text>\n</svg>",
        WIDTH - 20.0
    );
    svg
}
