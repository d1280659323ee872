//! `wait`: wake-up latency after a delivery by another process, and the CPU an idle wait costs.
//!
//! Latency: a waiter blocks on an inbox in
//! this process; a sender process (this binary again, `wait-sender`) delivers when told to and
//! prints the wall-clock instants (CLOCK_REALTIME, ns) just before `send` started and just
//! after it returned; the waiter notes the instant its wait returned. Same machine, same
//! clock, so the difference is the wake-up latency.
//!
//! `send` publishes the file with a rename and then syncs the directory, so the waiter may
//! return before `send` does: the figure "from send's return" can be negative, and the true
//! publish instant lies between the two references.
//!
//! Idle cost: the CPU time of this whole process (every thread, the watcher's included) while a
//! wait sees no mail, per idle second, beside a plain sleep of the same length (the floor).

use std::io::{BufRead, BufReader, Write};
use std::process::{Command, ExitCode, Stdio};
use std::sync::mpsc;
use std::time::{Duration, SystemTime, UNIX_EPOCH};

use filebox_core::{MessageType, SendRequest};
use rustix::time::{ClockId, clock_gettime};

use crate::fixture::{self, Fixture, Result};
use crate::options::Options;
use crate::report::{self, Samples};

/// The sender process's subcommand.
pub(crate) const SENDER: &str = "wait-sender";

pub(crate) fn run(options: &Options) -> Result<()> {
    let rounds = if options.quick { 10 } else { 100 };
    let fixture = Fixture::new(options.dir.as_deref(), &["qa".to_owned(), "dev".to_owned()])?;
    let inbox = fixture.mailroom("dev")?.my_mailbox()?;
    inbox.wait_for_mail(Some(Duration::ZERO), &|| false)?;
    let (woke, woken) = mpsc::channel();
    let waiter = std::thread::spawn(move || -> filebox_core::Result<()> {
        for _ in 0..rounds {
            let got = inbox.wait_for_mail(Some(Duration::from_secs(10)), &|| false)?;
            let _ = woke.send((now_ns(), got.messages.len()));
        }
        Ok(())
    });
    let mut sender = Command::new(std::env::current_exe()?)
        .arg(SENDER)
        .arg(fixture.config())
        .stdin(Stdio::piped())
        .stdout(Stdio::piped())
        .spawn()?;
    let mut go = sender.stdin.take().ok_or("no sender stdin")?;
    let mut sent = BufReader::new(sender.stdout.take().ok_or("no sender stdout")?).lines();
    let mut from_start = Vec::new();
    let mut from_return = Vec::new();
    for _ in 0..rounds {
        std::thread::sleep(Duration::from_millis(100)); // let the waiter block
        writeln!(go, "send")?;
        go.flush()?;
        let line = sent.next().ok_or("the sender stopped")??;
        let (start, end) = line
            .split_once(' ')
            .and_then(|(s, e)| Some((s.parse::<i128>().ok()?, e.parse::<i128>().ok()?)))
            .ok_or_else(|| format!("sender said {line:?}"))?;
        let (woke_at, messages) = woken.recv_timeout(Duration::from_secs(10))?;
        if messages != 1 {
            return Err(format!("the wait returned {messages} messages, not 1").into());
        }
        from_start.push(woke_at - start);
        from_return.push(woke_at - end);
    }
    drop(go);
    sender.wait()?;
    waiter.join().map_err(|_| "waiter panicked")??;
    let signed_ms = |ns: i128| format!("{:.2} ms", ns as f64 / 1e6);
    let row = |name: &str, mut values: Vec<i128>| {
        values.sort();
        let at =
            |q: f64| values[((q * values.len() as f64).ceil() as usize).clamp(1, values.len()) - 1];
        vec![
            name.to_owned(),
            rounds.to_string(),
            signed_ms(at(0.5)),
            signed_ms(at(0.95)),
            signed_ms(values[values.len() - 1]),
        ]
    };
    let durations: Vec<Duration> = from_start
        .iter()
        .zip(&from_return)
        .map(|(s, r)| Duration::from_nanos((s - r).max(0) as u64))
        .collect();
    let send = Samples::new(durations);
    report::table(
        &format!(
            "wait: wake-up after a delivery by another process (send itself took p50 {})",
            report::ms(send.p50())
        ),
        &["measured from", "deliveries", "p50", "p95", "max"],
        &[
            row("send() started (upper bound)", from_start),
            row("send() returned (may be < 0)", from_return),
        ],
    );
    idle_cost(options, &fixture)
}

/// The CPU an idle wait costs: a wait that sees no mail against a plain sleep of as long.
fn idle_cost(options: &Options, fixture: &Fixture) -> Result<()> {
    let idle = Duration::from_secs(if options.quick { 1 } else { 5 });
    let inbox = fixture.mailroom("dev")?.my_mailbox()?;
    let waiting = cpu_while(|| inbox.wait_for_mail(Some(idle), &|| false).map(drop))?;
    let sleeping = cpu_while(|| {
        std::thread::sleep(idle);
        Ok(())
    })?;
    report::table(
        "wait: CPU time of the whole process (every thread) while no mail arrives",
        &["idle", "seconds", "CPU", "CPU per idle second"],
        &[
            report::idle_cpu_row("wait_for_mail, no mail", idle, waiting),
            report::idle_cpu_row("baseline: thread::sleep", idle, sleeping),
        ],
    );
    Ok(())
}

/// The sender process: one send from `qa` to `dev` per line on stdin, answering each with
/// `<ns before send> <ns after send>`.
pub(crate) fn sender(args: Vec<String>) -> ExitCode {
    let [config] = &args[..] else {
        eprintln!("{SENDER}: expected CONFIG");
        return ExitCode::from(2);
    };
    let run = || -> Result<()> {
        let mailroom = fixture::mailroom(config.as_ref(), "qa")?;
        let kind = MessageType::new("DIS")?;
        let mut out = std::io::stdout().lock();
        for (n, line) in std::io::stdin().lock().lines().enumerate() {
            line?;
            let start = now_ns();
            mailroom.send(&SendRequest::new("dev", kind.clone(), format!("ping {n}")))?;
            let end = now_ns();
            writeln!(out, "{start} {end}")?;
            out.flush()?;
        }
        Ok(())
    };
    match run() {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("{SENDER}: {error}");
            ExitCode::FAILURE
        }
    }
}

/// The CPU time this process (all its threads) used while `work` ran.
fn cpu_while(work: impl FnOnce() -> filebox_core::Result<()>) -> Result<Duration> {
    let cpu = || {
        let t = clock_gettime(ClockId::ProcessCPUTime);
        Duration::new(t.tv_sec as u64, t.tv_nsec as u32)
    };
    let before = cpu();
    work()?;
    Ok(cpu().saturating_sub(before))
}

/// CLOCK_REALTIME in nanoseconds: comparable across processes.
pub(crate) fn now_ns() -> i128 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_nanos() as i128)
}
