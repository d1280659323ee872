//! Figures: samples with percentiles, a plain-text table, and the machine they were taken on.

use std::time::Duration;

/// Repeated measurements of one thing.
pub(crate) struct Samples(Vec<Duration>);

impl Samples {
    pub(crate) fn new(mut samples: Vec<Duration>) -> Samples {
        samples.sort();
        Samples(samples)
    }

    /// The sample at quantile `q` (0.0–1.0), nearest rank.
    pub(crate) fn quantile(&self, q: f64) -> Duration {
        let rank = ((q * self.0.len() as f64).ceil() as usize).clamp(1, self.0.len());
        self.0[rank - 1]
    }

    pub(crate) fn p50(&self) -> Duration {
        self.quantile(0.5)
    }

    pub(crate) fn p95(&self) -> Duration {
        self.quantile(0.95)
    }

    /// The arithmetic mean.
    pub(crate) fn mean(&self) -> Duration {
        self.0.iter().sum::<Duration>() / self.0.len() as u32
    }

    pub(crate) fn min(&self) -> Duration {
        self.0[0]
    }

    pub(crate) fn max(&self) -> Duration {
        self.0[self.0.len() - 1]
    }
}

/// Milliseconds with two decimals.
pub(crate) fn ms(d: Duration) -> String {
    format!("{:.2} ms", d.as_secs_f64() * 1e3)
}

/// A row of an idle-CPU table: what idled, for how long, its CPU time and CPU per idle second.
pub(crate) fn idle_cpu_row(name: &str, idle: Duration, cpu: Duration) -> Vec<String> {
    vec![
        name.to_owned(),
        format!("{} s", idle.as_secs()),
        ms(cpu),
        ms(cpu.div_f64(idle.as_secs_f64())),
    ]
}

/// Print a table: a title, a header row, and rows, columns padded to fit.
pub(crate) fn table(title: &str, header: &[&str], rows: &[Vec<String>]) {
    let mut widths: Vec<usize> = header.iter().map(|h| h.chars().count()).collect();
    for row in rows {
        for (w, cell) in widths.iter_mut().zip(row) {
            *w = (*w).max(cell.chars().count());
        }
    }
    let line = |cells: Vec<&str>| {
        let padded: Vec<String> = cells
            .iter()
            .zip(&widths)
            .map(|(c, w)| format!("{c:<w$}"))
            .collect();
        println!("| {} |", padded.join(" | "));
    };
    println!("\n### {title}\n");
    line(header.to_vec());
    println!(
        "|{}|",
        widths
            .iter()
            .map(|w| "-".repeat(w + 2))
            .collect::<Vec<_>>()
            .join("|")
    );
    for row in rows {
        line(row.iter().map(String::as_str).collect());
    }
}

/// Print what the figures were measured on.
pub(crate) fn machine() {
    let cpu = std::fs::read_to_string("/proc/cpuinfo")
        .ok()
        .and_then(|c| {
            c.lines()
                .find(|l| l.starts_with("model name"))
                .and_then(|l| l.split_once(':'))
                .map(|(_, v)| v.trim().to_owned())
        })
        .unwrap_or_else(|| "unknown CPU".into());
    let cores = std::thread::available_parallelism().map_or(0, |n| n.get());
    let kernel = std::fs::read_to_string("/proc/sys/kernel/osrelease")
        .map(|k| k.trim().to_owned())
        .unwrap_or_default();
    println!("machine: {cpu}, {cores} cores, Linux {kernel}");
}
