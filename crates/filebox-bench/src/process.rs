//! What `/proc` says of a child process: its CPU time, its resident memory, its threads.

use std::time::{Duration, Instant};

use crate::fixture::Result;

/// The process's CPU time so far, all threads (user + system).
pub(crate) fn cpu_time(pid: u32) -> Result<Duration> {
    // utime and stime are the 14th and 15th fields of /proc/PID/stat.
    stat_time(pid, 14)
}

/// The CPU time of the process's children that were waited for (user + system).
pub(crate) fn children_cpu_time(pid: u32) -> Result<Duration> {
    // cutime and cstime are the 16th and 17th.
    stat_time(pid, 16)
}

/// The sum of the two clock-tick fields of /proc/PID/stat from the `field`th (counted from 1
/// as proc(5) does).
fn stat_time(pid: u32, field: usize) -> Result<Duration> {
    let stat = std::fs::read_to_string(format!("/proc/{pid}/stat"))?;
    // The fields after the command's closing parenthesis, which is the second field.
    let after = stat.rsplit_once(')').ok_or("no /proc stat")?.1;
    let fields: Vec<&str> = after.split_whitespace().collect();
    let index = field - 3;
    let ticks: u64 = fields[index].parse::<u64>()? + fields[index + 1].parse::<u64>()?;
    let per_second = rustix::param::clock_ticks_per_second();
    Ok(Duration::from_secs_f64(ticks as f64 / per_second as f64))
}

/// The process's resident memory in KiB (`VmRSS`: its own pages and the binary's shared ones).
pub(crate) fn rss_kib(pid: u32) -> Result<u64> {
    status_number(pid, "VmRSS")
}

/// The process's own resident memory in KiB (`RssAnon`: heap and stacks, shared with no one).
pub(crate) fn anonymous_kib(pid: u32) -> Result<u64> {
    status_number(pid, "RssAnon")
}

/// A number `/proc/PID/status` gives (`Threads`, or a size such as `VmRSS` in KiB).
pub(crate) fn status_number(pid: u32, field: &str) -> Result<u64> {
    let status = std::fs::read_to_string(format!("/proc/{pid}/status"))?;
    status
        .lines()
        .find_map(|l| l.strip_prefix(field)?.strip_prefix(':'))
        .and_then(|v| v.trim().trim_end_matches("kB").trim().parse().ok())
        .ok_or_else(|| format!("no {field} in /proc/{pid}/status").into())
}

/// `command` under GNU time (`/usr/bin/time`, Debian package `time`), which writes the peak
/// resident memory (`%M`, KiB) to `report`; the command's output discarded.
pub(crate) fn under_gnu_time(
    command: &std::process::Command,
    report: &std::path::Path,
) -> std::process::Command {
    let mut timed = std::process::Command::new("/usr/bin/time");
    timed
        .arg("-o")
        .arg(report)
        .args(["-f", "%M"])
        .arg(command.get_program())
        .args(command.get_args())
        .stdout(std::process::Stdio::null())
        .stderr(std::process::Stdio::null());
    timed
}

/// The peak resident memory (KiB) GNU time wrote to `report`.
pub(crate) fn gnu_time_peak_kib(report: &std::path::Path) -> Result<u64> {
    let text = std::fs::read_to_string(report)?;
    Ok(text.trim().lines().last().unwrap_or("").trim().parse()?)
}

/// A process is idle once it used at most [`IDLE_CPU`] of CPU over [`IDLE_WINDOW`] (longer
/// than the hub's wait before it catches a quiet mailbox's index up); 3% of a core, three of
/// the kernel's 10 ms ticks, leaves room for periodic looks and nats-server's own beat.
const IDLE_WINDOW: Duration = Duration::from_secs(1);
const IDLE_CPU: Duration = Duration::from_millis(30);

/// Wait until every process of `pids` is idle (the work a burst left behind, such as an
/// index catch-up, is done), at most `patience`; how long that took.
pub(crate) fn until_idle(pids: &[u32], patience: Duration) -> Result<Duration> {
    let started = Instant::now();
    let cpu = || -> Result<Vec<Duration>> { pids.iter().map(|pid| cpu_time(*pid)).collect() };
    let mut last = cpu()?;
    loop {
        std::thread::sleep(IDLE_WINDOW);
        let now = cpu()?;
        if now
            .iter()
            .zip(&last)
            .all(|(now, last)| now.saturating_sub(*last) <= IDLE_CPU)
        {
            return Ok(started.elapsed() - IDLE_WINDOW);
        }
        if started.elapsed() >= patience {
            return Err("the processes never went idle".into());
        }
        last = now;
    }
}
