//! The config's `federation` section: `{"nats": "nats://host:4222", "hub": "laptop",
//! "credentials": "hub.creds", "tls": {"ca": "ca.pem", "cert": "hub.pem", "key": "hub.key"}}`
//! (or, instead of `credentials`, `"nkey": "hub.nk"` or `"user"` and `"password"`;
//! `"resend_after_secs": 300` and `"replicas": 3` optional), and which agents live on other hubs (`"hub": "ci-1"`
//! in their entry).

use std::path::PathBuf;

use anyhow::Context;
use filebox_core::{AgentId, Config};
use serde::Deserialize;

/// The longest hub name accepted.
const MAX_HUB_LEN: usize = 64;
/// How long mail may go without its delivery receipt before the publisher looks whether the
/// stream lost it, when the config does not say.
const RESEND_AFTER_SECS: u64 = 300;
/// The most replicas JetStream keeps of a stream.
const MAX_REPLICAS: usize = 5;

/// The config's `federation` section.
#[derive(Debug, Clone, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Settings {
    /// The NATS server(s): one URL, or several separated by commas.
    pub nats: String,
    /// This machine's hub name, unique in the cluster.
    pub hub: String,
    /// A NATS `.creds` file (JWT and NKey seed); relative to the config's folder.
    #[serde(default)]
    pub credentials: Option<PathBuf>,
    /// A file holding this hub's NKey seed (`SU...`), for a server that lists the hub's public
    /// NKey as a user; relative to the config's folder.
    #[serde(default)]
    pub nkey: Option<PathBuf>,
    /// This hub's NATS user name and password, for a server with an `authorization` block.
    #[serde(default)]
    pub user: Option<String>,
    #[serde(default)]
    pub password: Option<String>,
    /// TLS to the NATS server; relative paths resolve against the config's folder.
    #[serde(default)]
    pub tls: Option<Tls>,
    /// Seconds mail may go without its delivery receipt before it is published again if the
    /// stream no longer holds it (default 300).
    #[serde(default = "resend_after_default")]
    pub resend_after_secs: u64,
    /// How many NATS servers keep each message of the stream when this hub is the one that
    /// creates it (default 1; 3 on a three-node cluster: a publish is acknowledged once a
    /// majority stored it).
    #[serde(default = "replicas_default")]
    pub replicas: usize,
}

fn replicas_default() -> usize {
    1
}

fn resend_after_default() -> u64 {
    RESEND_AFTER_SECS
}

/// TLS settings: a CA to trust, and a client certificate when the server asks for one.
#[derive(Debug, Clone, Default, Deserialize)]
#[serde(deny_unknown_fields)]
pub struct Tls {
    #[serde(default)]
    pub ca: Option<PathBuf>,
    #[serde(default)]
    pub cert: Option<PathBuf>,
    #[serde(default)]
    pub key: Option<PathBuf>,
}

impl Settings {
    /// The section of `config`, when it has one; a malformed one is a config error.
    pub fn of(config: &Config) -> anyhow::Result<Option<Settings>> {
        let Some(value) = config.file.extra.get("federation") else {
            return Ok(None);
        };
        let context = || {
            format!(
                "config {}: the \"federation\" section",
                config.path.display()
            )
        };
        let mut settings: Settings = serde_json::from_value(value.clone()).with_context(context)?;
        check_hub_name(&settings.hub).with_context(context)?;
        let ways = [
            settings.credentials.is_some(),
            settings.nkey.is_some(),
            settings.user.is_some() || settings.password.is_some(),
        ];
        if ways.iter().filter(|&&way| way).count() > 1 {
            anyhow::bail!(
                "config {}: federation: give one of credentials, nkey, or user and password",
                config.path.display()
            );
        }
        if settings.user.is_some() != settings.password.is_some() {
            anyhow::bail!(
                "config {}: federation.user needs federation.password, and the other way round",
                config.path.display()
            );
        }
        if !(1..=MAX_REPLICAS).contains(&settings.replicas) {
            anyhow::bail!(
                "config {}: federation.replicas must be 1 to {MAX_REPLICAS}",
                config.path.display()
            );
        }
        if settings.resend_after_secs == 0 {
            anyhow::bail!(
                "config {}: federation.resend_after_secs must be at least 1",
                config.path.display()
            );
        }
        let base = config.base_dir();
        settings.credentials = settings.credentials.map(|p| base.join(p));
        settings.nkey = settings.nkey.map(|p| base.join(p));
        if let Some(tls) = &mut settings.tls {
            for path in [&mut tls.ca, &mut tls.cert, &mut tls.key]
                .into_iter()
                .flatten()
            {
                *path = base.join(&*path);
            }
            if tls.cert.is_some() != tls.key.is_some() {
                anyhow::bail!(
                    "config {}: federation.tls needs both cert and key, or neither",
                    config.path.display()
                );
            }
        }
        for (agent, entry) in &config.file.agents {
            if let Some(hub) = entry.hub() {
                check_remote_agent(agent, hub).with_context(context)?;
            }
        }
        Ok(Some(settings))
    }
}

/// A hub name: 1–64 ASCII letters, digits, `_` and `-` (one token of a NATS subject).
pub(crate) fn check_hub_name(hub: &str) -> anyhow::Result<()> {
    let valid = !hub.is_empty()
        && hub.len() <= MAX_HUB_LEN
        && hub
            .chars()
            .all(|c| c.is_ascii_alphanumeric() || matches!(c, '_' | '-'));
    anyhow::ensure!(
        valid,
        "hub name {hub:?}: only 1-64 ASCII letters, digits, `_` and `-` are allowed"
    );
    Ok(())
}

/// An agent on another hub is named `name@hub` after the hub it lives on (a valid hub name).
pub fn check_remote_agent(agent: &AgentId, hub: &str) -> anyhow::Result<()> {
    check_hub_name(hub)?;
    match agent.as_str().split_once('@') {
        Some((_, domain)) if domain == hub => Ok(()),
        _ => anyhow::bail!(
            "agent {agent} lives on hub {hub:?}, so it must be named NAME@{hub} (aliases with \
             another name are not supported)"
        ),
    }
}

/// The hub an agent of `config` lives on, when it is not this machine.
pub(crate) fn hub_of(config: &Config, agent: &AgentId) -> Option<String> {
    config
        .file
        .agents
        .get(agent)
        .and_then(|entry| entry.hub())
        .map(str::to_owned)
}
