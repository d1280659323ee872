//! What the hub reads from the config besides each agent's `mailbox_path`: the `hub` section
//! (`callback_allow`, `webhook_secret`, `webhook_attempts`, `webhook_first_retry_ms`; the
//! connection bounds `header_read_timeout_secs`, `idle_timeout_secs`, `max_connections`,
//! `max_event_streams`, `max_waiting_calls`, read once at start) and, per agent, `kind` and
//! `runner` (tokens are the access policy's, `filebox_api::access`).

use std::sync::{Arc, Mutex};

use filebox_core::Config;
use serde::Deserialize;
use url::Url;

/// The `hub` section as read from one version of the config, or why it cannot be read.
pub(crate) type Settings = Arc<Result<HubSection, String>>;

/// The `hub` section parsed once per version of the config, not per request: it is parsed
/// again when the live config parsed its file again (`LiveConfig::current_numbered`).
#[derive(Debug, Default)]
pub(crate) struct SettingsCache {
    parsed: Mutex<Option<(u64, Settings)>>,
}

impl SettingsCache {
    /// The section of `config`, parse number `number` of the config file.
    pub(crate) fn of(&self, number: u64, config: &Config) -> Settings {
        let mut parsed = self.parsed.lock().unwrap_or_else(|e| e.into_inner());
        match parsed.as_ref() {
            Some((seen, settings)) if *seen == number => Arc::clone(settings),
            _ => {
                let settings = Arc::new(HubSection::of(config).map_err(|e| e.to_string()));
                *parsed = Some((number, Arc::clone(&settings)));
                settings
            }
        }
    }
}

/// The config's `hub` section.
#[derive(Debug, Clone, Deserialize)]
pub(crate) struct HubSection {
    /// Where a message's `callback.endpoint` may point: under one of these URLs.
    #[serde(default)]
    pub(crate) callback_allow: Vec<CallbackAllow>,
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

    /// Whether a callback endpoint is under an entry of `callback_allow` (see
    /// [`CallbackAllow::covers`]). An endpoint that is not a URL, or that carries a user name or
    /// password (`http://127.0.0.1:2001@elsewhere/`, which names the host after the `@`), never
    /// is.
    pub(crate) fn allows_callback(&self, endpoint: &str) -> bool {
        let Ok(endpoint) = Url::parse(endpoint) else {
            return false;
        };
        !has_userinfo(&endpoint) && self.callback_allow.iter().any(|a| a.covers(&endpoint))
    }
}

/// An entry of `hub.callback_allow`: an absolute URL with a host and no user name, password,
/// query or fragment; an entry that is none is a config error, reported when the hub starts.
#[derive(Debug, Clone, Deserialize)]
#[serde(try_from = "String")]
pub(crate) struct CallbackAllow(Url);

impl TryFrom<String> for CallbackAllow {
    type Error = String;

    fn try_from(entry: String) -> Result<CallbackAllow, String> {
        let refused = |why: &str| format!("callback_allow entry {entry:?} {why}");
        let url = Url::parse(&entry).map_err(|e| refused(&format!("is not a URL ({e})")))?;
        if url.host().is_none() {
            return Err(refused("has no host"));
        }
        if has_userinfo(&url) {
            return Err(refused("has a user name or password"));
        }
        if url.query().is_some() || url.fragment().is_some() {
            return Err(refused("has a query or fragment"));
        }
        Ok(CallbackAllow(url))
    }
}

impl CallbackAllow {
    /// Whether `endpoint` is under this entry: the same scheme, host and port (the scheme's
    /// default when none is written), and this entry's path as whole leading segments. So
    /// `http://127.0.0.1:2001` covers neither port 20011 nor `http://127.0.0.1:2001@…`, and
    /// `http://h/hooks` covers `/hooks` and `/hooks/a`, not `/hooksa`. (Dot segments are
    /// resolved when a URL is parsed: `/hooks/../admin` is `/admin`; the webhook is posted to
    /// the URL so parsed, `webhook/post.rs`, never to the text as written.)
    fn covers(&self, endpoint: &Url) -> bool {
        let allowed = &self.0;
        endpoint.scheme() == allowed.scheme()
            && endpoint.host() == allowed.host()
            && endpoint.port_or_known_default() == allowed.port_or_known_default()
            && endpoint
                .path_segments()
                .is_some_and(|segments| starts_with(segments, directory(allowed)))
    }
}

/// The path segments of `url` without a final empty one (`/hooks/` is `["hooks"]`, `/` none).
fn directory(url: &Url) -> Vec<&str> {
    let mut segments: Vec<&str> = url.path_segments().into_iter().flatten().collect();
    if segments.last() == Some(&"") {
        segments.pop();
    }
    segments
}

fn starts_with<'a>(mut segments: impl Iterator<Item = &'a str>, prefix: Vec<&str>) -> bool {
    prefix
        .into_iter()
        .all(|wanted| segments.next() == Some(wanted))
}

/// Whether a URL carries a user name or password (which hide the host after the `@`).
pub(crate) fn has_userinfo(url: &Url) -> bool {
    !url.username().is_empty() || url.password().is_some()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_section_is_parsed_again_only_for_a_new_parse_of_the_config() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        std::fs::write(&path, r#"{"agents": {}, "hub": {"webhook_attempts": 3}}"#).unwrap();
        let live = filebox_core::LiveConfig::load(&path).unwrap();
        let cache = SettingsCache::default();
        let (number, config) = live.current_numbered().unwrap();
        let first = cache.of(number, &config);
        let (again, config) = live.current_numbered().unwrap();
        assert!(Arc::ptr_eq(&first, &cache.of(again, &config)));
        std::fs::write(&path, r#"{"agents": {}, "hub": {"webhook_attempts": 12}}"#).unwrap();
        let (number, config) = live.current_numbered().unwrap();
        let section = cache.of(number, &config);
        assert_eq!(section.as_ref().as_ref().unwrap().webhook_attempts, 12);
        std::fs::write(&path, r#"{"agents": {}, "hub": {"webhook_attempts": "x"}}"#).unwrap();
        let (number, config) = live.current_numbered().unwrap();
        let broken = cache.of(number, &config);
        assert!(
            broken
                .as_ref()
                .as_ref()
                .unwrap_err()
                .contains("\"hub\" section")
        );
    }

    fn allowing(entries: &[&str]) -> HubSection {
        let hub = serde_json::json!({ "callback_allow": entries });
        serde_json::from_value(hub).unwrap()
    }

    #[test]
    fn another_port_that_starts_with_the_allowed_one_is_refused() {
        let hub = allowing(&["http://127.0.0.1:2001"]);
        assert!(hub.allows_callback("http://127.0.0.1:2001/hook"));
        assert!(hub.allows_callback("http://127.0.0.1:2001"));
        assert!(!hub.allows_callback("http://127.0.0.1:20011/hook"));
        assert!(!hub.allows_callback("http://127.0.0.1:200/hook"));
        assert!(!hub.allows_callback("http://127.0.0.1/hook"), "port 80");
    }

    #[test]
    fn a_user_name_before_another_host_is_refused() {
        let hub = allowing(&["http://127.0.0.1:2001"]);
        for endpoint in [
            "http://127.0.0.1:2001@127.0.0.1:42817/hook",
            "http://127.0.0.1:2001:pw@127.0.0.1:2001/hook",
            "http://user@127.0.0.1:2001/hook",
        ] {
            assert!(!hub.allows_callback(endpoint), "{endpoint}");
        }
    }

    #[test]
    fn scheme_and_host_must_match_exactly() {
        let hub = allowing(&["http://hooks.example:9000/"]);
        assert!(
            hub.allows_callback("http://HOOKS.example:9000/x"),
            "hosts ignore case"
        );
        for endpoint in [
            "https://hooks.example:9000/x",
            "http://hooks.example.evil:9000/x",
            "http://hooks.example:9000.evil/x",
            "http://evil.hooks.example:9000/x",
            "not a url",
            "",
        ] {
            assert!(!hub.allows_callback(endpoint), "{endpoint}");
        }
    }

    #[test]
    fn the_path_is_compared_by_whole_segments() {
        for entry in ["http://h:9000/hooks", "http://h:9000/hooks/"] {
            let hub = allowing(&[entry]);
            assert!(hub.allows_callback("http://h:9000/hooks"), "{entry}");
            assert!(
                hub.allows_callback("http://h:9000/hooks/filebox?x=1"),
                "{entry}"
            );
            for endpoint in [
                "http://h:9000/hooksx",
                "http://h:9000/hook",
                "http://h:9000/",
                "http://h:9000/hooks/../admin",
                "http://h:9000/other/hooks",
            ] {
                assert!(!hub.allows_callback(endpoint), "{entry} {endpoint}");
            }
        }
    }

    #[test]
    fn a_default_port_may_be_written_or_not() {
        let hub = allowing(&["http://h/"]);
        assert!(hub.allows_callback("http://h:80/x"));
        assert!(!hub.allows_callback("http://h:8080/x"));
    }

    #[test]
    fn an_entry_that_is_no_url_is_a_config_error() {
        for (entry, why) in [
            ("127.0.0.1:2001", "is not a URL"),
            ("http://", "is not a URL"),
            ("http://u@h/", "has a user name or password"),
            ("http://h/?q", "has a query or fragment"),
        ] {
            let hub = serde_json::json!({ "callback_allow": [entry] });
            let error = serde_json::from_value::<HubSection>(hub)
                .unwrap_err()
                .to_string();
            assert!(
                error.contains(entry) && error.contains(why),
                "{entry}: {error}"
            );
        }
    }

    #[test]
    fn nothing_is_allowed_without_entries() {
        assert!(!HubSection::default().allows_callback("http://127.0.0.1:2001/"));
    }
}
