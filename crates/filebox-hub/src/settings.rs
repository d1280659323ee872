//! What the hub reads from the config besides each agent's `mailbox_path`: the `hub` section
//! (`callback_allow`, `webhook_secret`, `webhook_attempts`, `webhook_first_retry_ms`) and, per
//! agent, `kind` and `runner` (tokens are the access policy's, `filebox_api::access`).

use filebox_core::Config;
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
}

impl Default for HubSection {
    fn default() -> HubSection {
        HubSection {
            callback_allow: Vec::new(),
            webhook_secret: None,
            webhook_attempts: default_attempts(),
            webhook_first_retry_ms: default_first_retry_ms(),
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

    /// Whether a callback endpoint starts with an allowed prefix.
    pub(crate) fn allows_callback(&self, endpoint: &str) -> bool {
        self.callback_allow
            .iter()
            .any(|prefix| !prefix.is_empty() && endpoint.starts_with(prefix.as_str()))
    }
}
