//! What the hub reads from the config besides seed 000's fields: the `hub` section
//! (`callback_allow`, `webhook_secret`, `webhook_attempts`, `webhook_first_retry_ms`; the
//! connection bounds `header_read_timeout_secs`, `idle_timeout_secs`, `max_connections`,
//! `max_event_streams`, `max_waiting_calls`, read once at start) and, per agent, `kind` and
//! `runner` (tokens are the access policy's, `filebox_api::access`).

use filebox_core::{AgentEntry, Config};
use serde::Deserialize;

/// The config's `hub` section.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct HubSection {
    /// URL prefixes a message's `callback.endpoint` must start with.
    #[serde(default)]
    pub(crate) callback_allow: Vec<String>,
    /// The key webhooks are signed with (Standard Webhooks: `whsec_` + base64, or any text).
    #[serde(default)]
    pub(crate) webhook_secret: Option<String>,
    /// How many times a webhook is tried before it is given up.
    #[serde(default = "default_attempts")]
    pub(crate) webhook_attempts: u32,
    /// The wait after the first failed try; it doubles after each (at most an hour).
    #[serde(default = "default_first_retry_ms")]
    pub(crate) webhook_first_retry_ms: u64,
    /// How long a client has to send a whole request header, counted from the moment the
    /// connection is ready for one: accepted, or its previous answer sent. So it is also how
    /// long a kept-alive connection may sit idle between requests.
    #[serde(default = "default_header_read_timeout_secs")]
    pub(crate) header_read_timeout_secs: u64,
    /// How long a connection may go without a byte of the request body arriving, or without
    /// the client taking a byte of the answer, before it is closed. A request that is being
    /// worked on (a wait, a question) or an event stream (which sends a comment every 15 s) is
    /// not idle.
    #[serde(default = "default_idle_timeout_secs")]
    pub(crate) idle_timeout_secs: u64,
    /// Connections served at once, on the TCP listener and, counted apart, on the Unix socket;
    /// the next one is accepted when one closes.
    #[serde(default = "default_max_connections")]
    pub(crate) max_connections: usize,
    /// `GET /events` streams open at once; one more is answered 503.
    #[serde(default = "default_max_event_streams")]
    pub(crate) max_event_streams: usize,
    /// Calls that wait (`wait_for_messages`, `ask_question`, `task_finish`, `work_report`
    /// over JSON-RPC, the Connect procedures) under way at once; one more is answered
    /// "busy, retry later". Each holds a blocking thread, so keep it well under 512.
    #[serde(default = "default_max_waiting_calls")]
    pub(crate) max_waiting_calls: usize,
}

impl Default for HubSection {
    fn default() -> HubSection {
        HubSection {
            callback_allow: Vec::new(),
            webhook_secret: None,
            webhook_attempts: default_attempts(),
            webhook_first_retry_ms: default_first_retry_ms(),
            header_read_timeout_secs: default_header_read_timeout_secs(),
            idle_timeout_secs: default_idle_timeout_secs(),
            max_connections: default_max_connections(),
            max_event_streams: default_max_event_streams(),
            max_waiting_calls: default_max_waiting_calls(),
        }
    }
}

/// 12 tries: the last about 34 minutes after the first.
fn default_attempts() -> u32 {
    12
}

fn default_first_retry_ms() -> u64 {
    1000
}

fn default_header_read_timeout_secs() -> u64 {
    10
}

fn default_idle_timeout_secs() -> u64 {
    60
}

/// Far under the file descriptors the hub raises its soft limit to (the hard limit).
fn default_max_connections() -> usize {
    1024
}

fn default_max_event_streams() -> usize {
    256
}

/// Leaves most of tokio's 512 blocking threads to ordinary requests.
fn default_max_waiting_calls() -> usize {
    128
}

impl HubSection {
    /// The section of `config`; a malformed one is a config error.
    pub(crate) fn of(config: &Config) -> anyhow::Result<HubSection> {
        match config.file.extra.get("hub") {
            None => Ok(HubSection::default()),
            Some(value) => serde_json::from_value(value.clone()).map_err(|e| {
                anyhow::anyhow!("config {}: the \"hub\" section: {e}", config.path.display())
            }),
        }
    }

    /// The connection bounds: timeouts of at least a second and caps of at least one, so a
    /// typo cannot make the hub refuse everyone.
    pub(crate) fn check_bounds(&self) -> Result<(), String> {
        let timeouts = [
            ("header_read_timeout_secs", self.header_read_timeout_secs),
            ("idle_timeout_secs", self.idle_timeout_secs),
        ];
        let caps = [
            ("max_connections", self.max_connections),
            ("max_event_streams", self.max_event_streams),
            ("max_waiting_calls", self.max_waiting_calls),
        ];
        let zero = timeouts
            .iter()
            .map(|(name, value)| (*name, *value as usize))
            .chain(caps)
            .find(|(_, value)| *value == 0);
        match zero {
            Some((name, _)) => Err(format!("the \"hub\" section: {name} must be at least 1")),
            None => Ok(()),
        }
    }

    /// Whether a callback endpoint starts with an allowed prefix.
    pub(crate) fn allows_callback(&self, endpoint: &str) -> bool {
        self.callback_allow
            .iter()
            .any(|prefix| !prefix.is_empty() && endpoint.starts_with(prefix.as_str()))
    }
}

/// Whether an entry is a person's mailbox (`"kind": "human"`).
pub(crate) fn is_human(entry: &AgentEntry) -> bool {
    entry.kind == Some(filebox_core::AgentKind::Human)
}
