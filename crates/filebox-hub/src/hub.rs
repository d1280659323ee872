//! The hub's shared state: where things are, and the one config handle every request, runner,
//! webhook and federated message reads (`LiveConfig`: parsed again only when the file changed,
//! so `filebox agents add` or a new token takes effect at the next request).

use std::net::SocketAddr;
use std::path::Path;
use std::sync::Arc;

use filebox_api::access::{Caller, Denied, SocketPeer};
use filebox_core::{AgentId, Config, LiveConfig};

use crate::events::ring::EventLog;
use crate::limits::Bound;
use crate::settings::{HubSection, Settings, SettingsCache};
use crate::task_states::Tasks;
use tokio_util::sync::CancellationToken;

/// Cheap to clone; every route group gets one.
#[derive(Debug, Clone)]
pub struct Hub {
    inner: Arc<Inner>,
}

#[derive(Debug)]
struct Inner {
    config: Arc<LiveConfig>,
    /// The config's `hub` section, parsed again only when the config file was.
    settings: SettingsCache,
    listen: SocketAddr,
    mcp_agent: Option<AgentId>,
    allowed_hosts: Vec<String>,
    body_limit: usize,
    shutdown: CancellationToken,
    events: Arc<EventLog>,
    /// The open `/events` streams (`hub.max_event_streams`).
    streams: Bound,
    /// The waiting calls under way, JSON-RPC and Connect together (`hub.max_waiting_calls`).
    waits: Bound,
    /// The long-lived tasks and whether each is up, for `/healthz`.
    tasks: Arc<Tasks>,
    /// The page's own session (`human/session.rs`), drawn at start, in memory only; `None`
    /// when no random bytes could be had (then only a token or the socket answers a prompt).
    page_session: Option<String>,
}

impl Hub {
    pub(crate) fn new(
        live: Arc<LiveConfig>,
        config: &Config,
        section: &HubSection,
        listen: SocketAddr,
        mcp_agent: Option<AgentId>,
        allowed_hosts: Vec<String>,
    ) -> Hub {
        Hub {
            inner: Arc::new(Inner {
                config: live,
                settings: SettingsCache::default(),
                listen,
                mcp_agent,
                allowed_hosts,
                body_limit: body_limit(config.max_body_bytes()),
                shutdown: CancellationToken::new(),
                events: Arc::new(EventLog::new()),
                streams: Bound::streams(section.max_event_streams),
                waits: Bound::waits(section.max_waiting_calls),
                tasks: Arc::default(),
                page_session: filebox_api::access::new_token().ok(),
            }),
        }
    }

    /// The config as it is on disk now.
    pub fn config(&self) -> filebox_core::Result<Config> {
        self.inner.config.current()
    }

    /// The config as it is on disk now, and its `hub` section.
    pub(crate) fn current(&self) -> filebox_core::Result<(Config, Settings)> {
        let (number, config) = self.inner.config.current_numbered()?;
        let settings = self.inner.settings.of(number, &config);
        Ok((config, settings))
    }

    /// The handle that keeps the config current, shared with the federation.
    pub fn live_config(&self) -> &Arc<LiveConfig> {
        &self.inner.config
    }

    pub fn config_path(&self) -> &Path {
        self.inner.config.path()
    }

    /// Who calls with this `Authorization` header (if any), as the access policy sees a caller
    /// of this hub: without a token, a stranger when the hub listens beyond this machine.
    pub(crate) fn caller(
        &self,
        config: &Config,
        authorization: Option<&str>,
    ) -> Result<Caller, Denied> {
        self.caller_from(config, authorization, None, false)
    }

    /// [`Hub::caller`] for a request that came over the Unix socket from `peer`
    /// (`connections::peer`), which may ask to be known by its process (`Authorization: Peer`),
    /// and that carried the page's own session or not (`page`, `human::session`).
    pub(crate) fn caller_from(
        &self,
        config: &Config,
        authorization: Option<&str>,
        peer: Option<SocketPeer>,
        page: bool,
    ) -> Result<Caller, Denied> {
        let exposed = !self.listen().ip().to_canonical().is_loopback();
        let caller = Caller::from_authorization(config, authorization, peer)?;
        Ok(caller.with_page_session(page).on_network(exposed))
    }

    /// The page's own session, if the hub has one.
    pub(crate) fn page_session(&self) -> Option<&str> {
        self.inner.page_session.as_deref()
    }

    /// The address the hub listens on.
    pub fn listen(&self) -> SocketAddr {
        self.inner.listen
    }

    /// The agent `/mcp` serves (the `--agent` given, else the config's current agent).
    pub fn mcp_agent(&self) -> Option<&AgentId> {
        self.inner.mcp_agent.as_ref()
    }

    /// Hosts the Host header may name besides loopback and the listen address.
    pub fn allowed_hosts(&self) -> &[String] {
        &self.inner.allowed_hosts
    }

    /// Cancelled when the hub shuts down: long-lived responses (event streams, MCP sessions)
    /// end with it.
    pub fn sessions(&self) -> CancellationToken {
        self.inner.shutdown.child_token()
    }

    /// The live events and the recent ones.
    pub(crate) fn events(&self) -> Arc<EventLog> {
        Arc::clone(&self.inner.events)
    }

    /// The bound on open event streams.
    pub(crate) fn streams(&self) -> &Bound {
        &self.inner.streams
    }

    /// The bound on waiting calls.
    pub(crate) fn waits(&self) -> &Bound {
        &self.inner.waits
    }

    /// The long-lived tasks.
    pub(crate) fn tasks(&self) -> Arc<Tasks> {
        Arc::clone(&self.inner.tasks)
    }

    /// Whether the hub is stopping.
    pub(crate) fn stopping(&self) -> bool {
        self.inner.shutdown.is_cancelled()
    }

    pub(crate) fn shut_down(&self) {
        self.inner.shutdown.cancel();
    }

    /// The largest request body accepted, in bytes.
    pub fn body_limit(&self) -> usize {
        self.inner.body_limit
    }
}

/// A request may carry a body of `max_body_bytes`, JSON-escaped (up to 6 bytes per byte for
/// control characters is pathological; twice is what text needs), plus the other fields.
fn body_limit(max_body_bytes: usize) -> usize {
    max_body_bytes.saturating_mul(2).saturating_add(1 << 20)
}
