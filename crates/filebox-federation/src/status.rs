//! `filebox federation status`: the connection, each known hub with what waits for it in the
//! stream (its lag: work-queue retention keeps a message until its hub acknowledges it), what
//! this hub has not handed to the stream yet, and the mail it still owes (no delivery receipt
//! yet) with the age of the oldest.

use std::collections::BTreeMap;

use filebox_core::Config;
use futures_util::StreamExt;
use serde::Serialize;

use crate::connect;
use crate::inbound::REFUSED;
use crate::outbound;
use crate::published::{DIR, Published};
use crate::settings::Settings;
use crate::wire;

/// What `federation status` reports.
#[derive(Debug, Clone, Serialize)]
pub struct Report {
    /// This hub.
    pub hub: String,
    pub nats: String,
    /// `connected`, or why not.
    pub connection: String,
    /// Messages and bytes in the stream, all hubs together (when connected).
    #[serde(skip_serializing_if = "Option::is_none")]
    pub stream: Option<StreamFigures>,
    pub hubs: Vec<HubReport>,
    /// Messages from other hubs this hub refused (kept in `federation/refused`).
    pub refused: usize,
}

#[derive(Debug, Clone, Serialize)]
pub struct StreamFigures {
    pub messages: u64,
    pub bytes: u64,
    /// How many servers keep each message.
    pub replicas: usize,
    /// The version of the NATS server this status came through.
    pub server: String,
}

/// One hub, as seen from here.
#[derive(Debug, Clone, Serialize)]
pub struct HubReport {
    pub hub: String,
    /// Its agents this config knows (`name@hub`).
    pub agents: usize,
    /// Whether it ever consumed (its durable consumer exists); unknown when not connected.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub consumer: Option<bool>,
    /// Messages waiting for it in the stream, not yet acknowledged: its lag.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub waiting: Option<u64>,
    /// What this hub has not handed to the stream for it yet.
    pub queued: usize,
    /// Mail for its agents without a delivery receipt yet (queued or in the stream): what this
    /// hub owes it.
    pub owed: usize,
    /// How long the oldest owed mail has waited, in seconds.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub oldest_owed_secs: Option<u64>,
}

/// The status of `config`'s federation.
pub async fn report(config: &Config) -> anyhow::Result<Report> {
    let settings = Settings::of(config)?.ok_or_else(|| {
        anyhow::anyhow!(
            "config {}: no \"federation\" section",
            config.path.display()
        )
    })?;
    let published = Published::load(config)?;
    let mut hubs: BTreeMap<String, HubReport> = BTreeMap::new();
    entry(&mut hubs, &settings.hub);
    for agent in config.file.agents.values() {
        if let Some(hub) = agent.hub() {
            entry(&mut hubs, hub).agents += 1;
        }
    }
    for item in outbound::pending(config, &settings.hub)? {
        if !published.contains(&item.key) {
            entry(&mut hubs, &item.hub).queued += 1;
        }
    }
    // Oldest first: the first one of each hub sets its age.
    for owed in outbound::owed(config, &settings.hub)? {
        let report = entry(&mut hubs, &owed.mail().hub);
        report.owed += 1;
        report.oldest_owed_secs.get_or_insert(owed.age().as_secs());
    }
    let refused = std::fs::read_to_string(config.config_dir().join(DIR).join(REFUSED))
        .map(|text| text.lines().count())
        .unwrap_or(0);
    let mut report = Report {
        hub: settings.hub.clone(),
        nats: settings.nats.clone(),
        connection: "connected".to_owned(),
        stream: None,
        hubs: Vec::new(),
        refused,
    };
    match stream_figures(&settings, &mut hubs).await {
        Ok(figures) => report.stream = Some(figures),
        Err(e) => report.connection = format!("{e:#}"),
    }
    report.hubs = hubs.into_values().collect();
    Ok(report)
}

/// Fill in, from the stream, every hub's consumer and lag (and hubs seen only there).
async fn stream_figures(
    settings: &Settings,
    hubs: &mut BTreeMap<String, HubReport>,
) -> anyhow::Result<StreamFigures> {
    let client = connect::connect(settings, false).await?;
    let js = connect::jetstream(client);
    let server = js.client().server_info().version;
    let mut stream = connect::stream(&js, settings.replicas).await?;
    let info = stream.info().await?.clone();
    let mut consumers = stream.consumer_names();
    let mut consuming = Vec::new();
    while let Some(name) = consumers.next().await {
        if let Some(hub) = name?.strip_prefix("hub-") {
            consuming.push(hub.to_owned());
        }
    }
    for hub in &consuming {
        entry(hubs, hub);
    }
    for report in hubs.values_mut() {
        report.consumer = Some(consuming.contains(&report.hub));
        report.waiting = Some(connect::messages_on(&stream, &wire::filter_for(&report.hub)).await?);
    }
    Ok(StreamFigures {
        messages: info.state.messages,
        bytes: info.state.bytes,
        replicas: info.config.num_replicas,
        server,
    })
}

/// The report of `hub`, added when it is new.
fn entry<'a>(hubs: &'a mut BTreeMap<String, HubReport>, hub: &str) -> &'a mut HubReport {
    hubs.entry(hub.to_owned()).or_insert_with(|| HubReport {
        hub: hub.to_owned(),
        agents: 0,
        consumer: None,
        waiting: None,
        queued: 0,
        owed: 0,
        oldest_owed_secs: None,
    })
}

/// The report as text.
pub fn render(report: &Report) -> String {
    let mut lines = vec![format!(
        "hub {} · NATS {}: {}",
        report.hub, report.nats, report.connection
    )];
    if let Some(stream) = &report.stream {
        lines.push(format!(
            "stream {}: {} messages, {} bytes, {} replica(s), nats-server {}",
            wire::STREAM,
            stream.messages,
            stream.bytes,
            stream.replicas,
            stream.server
        ));
    }
    for hub in &report.hubs {
        let me = if hub.hub == report.hub {
            " (this hub)"
        } else {
            ""
        };
        let waiting = hub.waiting.map_or("? waiting".to_owned(), |n| {
            format!("{n} waiting in the stream")
        });
        let consumer = match hub.consumer {
            Some(true) => "",
            Some(false) => " · never connected",
            None => "",
        };
        let owed = match hub.oldest_owed_secs {
            Some(age) => format!(" · {} owed a receipt, the oldest for {age} s", hub.owed),
            None => String::new(),
        };
        let agents = match hub.agents {
            1 => "1 agent".to_owned(),
            n => format!("{n} agents"),
        };
        lines.push(format!(
            "{}{me}: {agents} known here · {waiting} · {} queued here{owed}{consumer}",
            hub.hub, hub.queued
        ));
    }
    if report.refused > 0 {
        lines.push(format!(
            "refused: {} (see {DIR}/{REFUSED} beside the config)",
            report.refused
        ));
    }
    lines.join("\n")
}
