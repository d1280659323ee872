//! What `/proc` says of a child process: its CPU time, its resident memory, its threads.

use std::time::Duration;

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
