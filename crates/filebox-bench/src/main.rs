//! `filebox-bench`: FileBox's benchmarks. Each subcommand prints a table of figures next to a
//! baseline measured in the same run; nothing here asserts a time.
//!
//! ```text
//! cargo run --release -p filebox-bench -- all     # everything below
//! cargo run --release -p filebox-bench -- send    # durable sends/s, 1 and 8 writers; `filebox send` a process each (--baseline FILEBOX), direct and through the hub
//! cargo run --release -p filebox-bench -- send-process  # only the process per message
//! cargo run --release -p filebox-bench -- list    # `filebox list inbox` on 10,000 messages
//! cargo run --release -p filebox-bench -- search  # index build and query p50/p95, 100,000 messages
//! cargo run --release -p filebox-bench -- wait    # `wait` wake-up latency; CPU per idle second
//! cargo run --release -p filebox-bench -- push    # channel push latency beside wait_for_messages'; idle CPU
//! cargo run --release -p filebox-bench -- hook    # a Claude Code Stop hook's wake latency beside `wait`'s
//! cargo run --release -p filebox-bench -- hub     # the hub's email.send vs the CLI; event latency
//! cargo run --release -p filebox-bench -- [--baseline FILEBOX] federation  # two hubs over nats-server: latency, throughput
//! cargo run --release -p filebox-bench -- answer  # an answer through /ws vs email.reply until the ask returns
//! cargo run --release -p filebox-bench -- fleet   # 100 agents and 10 humans idle on one hub: memory and CPU each
//! cargo run --release -p filebox-bench -- growth  # hub memory and `wait` on a large inbox (--baseline OLD_FILEBOX)
//! cargo run --release -p filebox-bench -- soak --minutes 30 --chart docs/soak.svg  # not in `all`
//! cargo run --release -p filebox-bench -- [--baseline FILEBOX] scale  # one mailbox at 10k, 100k, 1M: list, read, status, threads, search
//! ```
//!
//! Add a benchmark as a module with a `run(&Options)` and a line in `main`.

// Printing the figures is this binary's whole job.
#![allow(clippy::print_stdout)]

mod answer;
mod bare;
mod federation;
mod fixture;
mod fleet;
mod growth;
mod hook;
mod http;
mod hub;
mod list;
mod options;
mod process;
mod process_send;
mod push;
mod report;
mod scale;
mod search;
mod send;
mod soak;
mod wait;

use std::path::PathBuf;
use std::process::ExitCode;

use options::Options;

const USAGE: &str = "usage: filebox-bench [--dir DIR] [--quick] [--minutes N] [--chart SVG] [--baseline FILEBOX] [--sizes N,N] <all | send | send-process | list | search | wait | push | hook | hub | federation | answer | fleet | growth | soak | scale>";

fn main() -> ExitCode {
    let mut args = std::env::args().skip(1);
    let mut options = Options {
        dir: None,
        quick: false,
        minutes: None,
        chart: None,
        baseline: None,
        sizes: None,
    };
    let mut command = None;
    while let Some(arg) = args.next() {
        match arg.as_str() {
            "--dir" => options.dir = args.next().map(PathBuf::from),
            "--quick" => options.quick = true,
            "--minutes" => options.minutes = args.next().and_then(|m| m.parse().ok()),
            "--chart" => options.chart = args.next().map(PathBuf::from),
            "--baseline" => options.baseline = args.next().map(PathBuf::from),
            "--sizes" => {
                let sizes = args.next().unwrap_or_default();
                match sizes.split(',').map(str::parse).collect() {
                    Ok(sizes) => options.sizes = Some(sizes),
                    Err(_) => {
                        eprintln!("--sizes takes numbers separated by commas: {sizes:?}");
                        return ExitCode::from(2);
                    }
                }
            }
            // A child process of the `send` benchmark.
            send::WORKER => return send::worker(args.collect()),
            // The sender process of the `wait` benchmark.
            wait::SENDER => return wait::sender(args.collect()),
            "-h" | "--help" => {
                println!("{USAGE}");
                return ExitCode::SUCCESS;
            }
            other => command = Some(other.to_owned()),
        }
    }
    report::machine();
    let result = match command.as_deref() {
        Some("all") => send::run(&options)
            .and_then(|()| list::run(&options))
            .and_then(|()| search::run(&options))
            .and_then(|()| wait::run(&options))
            .and_then(|()| push::run(&options))
            .and_then(|()| hook::run(&options))
            .and_then(|()| hub::run(&options))
            .and_then(|()| federation::run(&options))
            .and_then(|()| answer::run(&options))
            .and_then(|()| fleet::run(&options)),
        Some("send") => send::run(&options),
        // Only `send`'s second table.
        Some("send-process") => process_send::run(&options),
        Some("list") => list::run(&options),
        Some("search") => search::run(&options),
        Some("wait") => wait::run(&options),
        Some("push") => push::run(&options),
        Some("hook") => hook::run(&options),
        Some("hub") => hub::run(&options),
        Some("federation") => federation::run(&options),
        Some("answer") => answer::run(&options),
        Some("fleet") => fleet::run(&options),
        Some("growth") => growth::run(&options),
        Some("soak") => soak::run(&options),
        // Not in `all`: it keeps its mailboxes (minutes to make) for the next run.
        Some("scale") => scale::run(&options),
        _ => {
            eprintln!("{USAGE}");
            return ExitCode::from(2);
        }
    };
    match result {
        Ok(()) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("filebox-bench: {error}");
            ExitCode::FAILURE
        }
    }
}
