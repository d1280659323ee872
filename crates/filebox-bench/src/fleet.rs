//! `fleet`: what 100 agents and 10 humans cost while nothing happens. One hub serves them all;
//! each mailbox has a client of the hub's `/events?agent=NAME` (a page or a script following
//! it), and each agent a `filebox mcp` of its own blocked in `wait_for_messages` (a host's
//! session waiting for mail). The baseline, in the same run, is the same hub with no client.
//! Figures: the hub's resident memory and CPU per idle second with and without the clients (and
//! so per client), and each `filebox mcp`'s. Then one message to every agent, to show the
//! sessions were really waiting: each wait returns it.

use std::time::{Duration, Instant};

use serde_json::json;

use crate::fixture::{self, Fixture, Result};
use crate::http::{Connection, EventStream};
use crate::hub::{Hub, load_average};
use crate::options::Options;
use crate::process;
use crate::push::Server;
use crate::report::table;

pub(crate) fn run(options: &Options) -> Result<()> {
    let (agent_count, human_count) = if options.quick { (10, 2) } else { (100, 10) };
    let idle = Duration::from_secs(if options.quick { 3 } else { 20 });
    let agents: Vec<String> = (0..agent_count).map(|n| format!("agent-{n:03}")).collect();
    let humans: Vec<String> = (0..human_count).map(|n| format!("human-{n:02}")).collect();
    let everyone: Vec<String> = agents.iter().chain(&humans).cloned().collect();
    let fixture = Fixture::new(options.dir.as_deref(), &everyone)?;
    let filebox = fixture::filebox_binary()?;
    println!(
        "\n### fleet: {agent_count} agents and {human_count} humans idle on one hub, {} s a \
         window (load {} before)\n",
        idle.as_secs(),
        load_average()
    );
    let hub = Hub::start(&filebox, &fixture.config(), &fixture.path().join("hub.log"))?;
    std::thread::sleep(Duration::from_secs(1));
    let alone = Idle::measure(&hub, &[], idle)?;

    let streams = everyone
        .iter()
        .map(|name| Connection::open(hub.address)?.events(&format!("/events?agent={name}")))
        .collect::<std::io::Result<Vec<EventStream>>>()?;
    let mut sessions = Vec::with_capacity(agents.len());
    for (n, agent) in agents.iter().enumerate() {
        let mut server = Server::start(&filebox, &fixture, agent, &[])?;
        server.request(
            n as u64 + 1,
            "tools/call",
            json!({ "name": "wait_for_messages", "arguments": { "timeout": idle.as_secs() * 4 + 60 } }),
        )?;
        sessions.push(server);
    }
    std::thread::sleep(Duration::from_secs(2)); // every call blocked, every stream subscribed
    let crowded = Idle::measure(&hub, &sessions, idle)?;

    let (woke, wake_time) = wake_every_session(&fixture, &agents, &mut sessions)?;
    drop(streams);

    let clients = everyone.len() as f64;
    let sessions_count = sessions.len() as u64;
    let mib = |kib: u64| format!("{:.1} MiB", kib as f64 / 1024.0);
    let per_second =
        |cpu: Duration| format!("{:.2} ms", cpu.as_secs_f64() * 1000.0 / idle.as_secs_f64());
    let per_client =
        |more: u64, less: u64| format!("{:.1} KiB", more.saturating_sub(less) as f64 / clients);
    table(
        "fleet: resident memory (all, and its own: RssAnon) and CPU per idle second",
        &["process", "RSS", "own (RssAnon)", "CPU per idle second"],
        &[
            vec![
                "baseline: hub, no client".into(),
                mib(alone.hub_rss_kib),
                mib(alone.hub_anonymous_kib),
                per_second(alone.hub_cpu),
            ],
            vec![
                format!("hub, {} event streams", everyone.len()),
                mib(crowded.hub_rss_kib),
                mib(crowded.hub_anonymous_kib),
                per_second(crowded.hub_cpu),
            ],
            vec![
                "hub, per event stream (difference)".into(),
                per_client(crowded.hub_rss_kib, alone.hub_rss_kib),
                per_client(crowded.hub_anonymous_kib, alone.hub_anonymous_kib),
                format!(
                    "{:.3} ms",
                    crowded.hub_cpu.saturating_sub(alone.hub_cpu).as_secs_f64() * 1000.0
                        / idle.as_secs_f64()
                        / clients
                ),
            ],
            vec![
                format!("filebox mcp blocked in wait_for_messages, mean of {sessions_count}"),
                mib(crowded.session_rss_kib / sessions_count),
                mib(crowded.session_anonymous_kib / sessions_count),
                per_second(crowded.session_cpu / sessions_count as u32),
            ],
        ],
    );
    println!(
        "\nthen one message to each agent, all sent at once: {woke} of {} waits returned it, the \
         last {:.0} ms after the first send (load {} after)",
        agents.len(),
        wake_time.as_secs_f64() * 1000.0,
        load_average()
    );
    Ok(())
}

/// One idle window's figures.
struct Idle {
    hub_rss_kib: u64,
    hub_anonymous_kib: u64,
    hub_cpu: Duration,
    /// Summed over the sessions.
    session_rss_kib: u64,
    session_anonymous_kib: u64,
    session_cpu: Duration,
}

impl Idle {
    /// CPU used over `window` with nothing sent; memory at its end.
    fn measure(hub: &Hub, sessions: &[Server], window: Duration) -> Result<Idle> {
        let cpu_of_sessions =
            || -> Result<Duration> { sessions.iter().map(Server::cpu).sum::<Result<Duration>>() };
        let (hub_before, sessions_before) = (process::cpu_time(hub.pid())?, cpu_of_sessions()?);
        std::thread::sleep(window);
        Ok(Idle {
            hub_rss_kib: hub.rss_kib()?,
            hub_anonymous_kib: process::anonymous_kib(hub.pid())?,
            hub_cpu: process::cpu_time(hub.pid())?.saturating_sub(hub_before),
            session_rss_kib: sessions.iter().map(Server::rss_kib).sum::<Result<u64>>()?,
            session_anonymous_kib: sessions
                .iter()
                .map(Server::anonymous_kib)
                .sum::<Result<u64>>()?,
            session_cpu: cpu_of_sessions()?.saturating_sub(sessions_before),
        })
    }
}

/// Send one message to every agent, then read each session's answer: how many waits returned
/// their message, and the time from the first send to the last answer.
fn wake_every_session(
    fixture: &Fixture,
    agents: &[String],
    sessions: &mut [Server],
) -> Result<(usize, Duration)> {
    let sender = fixture.mailroom(&agents[0])?;
    let kind = filebox_core::MessageType::new("DIS")?;
    let started = Instant::now();
    for agent in agents {
        sender.send(&filebox_core::SendRequest::new(
            agent,
            kind.clone(),
            "wake up",
        ))?;
    }
    let mut woke = 0;
    for session in sessions.iter_mut() {
        let (_, line) = session.next_line()?;
        let messages = line["result"]["structuredContent"]["messages"].as_array();
        if messages.is_some_and(|m| m.iter().any(|m| m["title"] == "wake up")) {
            woke += 1;
        }
    }
    Ok((woke, started.elapsed()))
}
