//! Running the hub: the checks before listening, the TCP and Unix-socket servers
//! (`connections.rs`), the long-lived tasks each kept running (`tasks.rs`), and a graceful
//! stop.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use filebox_core::{AgentId, Config, LiveConfig};
use tokio::net::{TcpListener, UnixListener};

use crate::connections::{self, ConnectionSettings};
use crate::hub::Hub;
use crate::routes::{self, GROUPS};
use crate::settings::HubSection;
use crate::tasks::keep_running;
use crate::{events, indexer, prompts, runner, webhook};
use filebox_api::access::token_sha256;

/// The socket's name, in the config's folder.
pub const SOCKET_NAME: &str = "hub.sock";

/// How the hub is run besides its config and listener.
#[derive(Debug, Clone, Default)]
pub struct Options {
    /// The agent `/mcp` serves (default: the config's current agent).
    pub agent: Option<AgentId>,
    /// Host names requests may use besides loopback and the listen address.
    pub allowed_hosts: Vec<String>,
}

/// Serve the hub for `config` on `listener` (and on `.filebox/hub.sock` beside the config)
/// until `shutdown` completes; then stop accepting, finish the requests in flight, end the
/// event streams and remove the socket.
pub async fn run(
    config: Config,
    listener: TcpListener,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    run_with(config, listener, Options::default(), shutdown).await
}

/// [`run`] with [`Options`].
pub async fn run_with(
    config: Config,
    listener: TcpListener,
    options: Options,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    Server::bind(config, listener, options)?
        .serve(shutdown)
        .await
}

/// A hub whose checks passed and whose socket is bound, ready to serve: when `bind` returns,
/// both addresses accept connections.
pub struct Server {
    hub: Hub,
    follower: events::Follower,
    config: Config,
    bridges: Vec<crate::bridges::Planned>,
    connections: ConnectionSettings,
    listener: TcpListener,
    socket: UnixListener,
    socket_path: PathBuf,
}

impl Server {
    /// Check that the hub may listen where it is asked to, and bind the Unix socket.
    pub fn bind(config: Config, listener: TcpListener, options: Options) -> anyhow::Result<Server> {
        let address = listener
            .local_addr()
            .context("reading the listener's address")?;
        check_exposure(&config, address.ip())?;
        runner::check(&config)?;
        let section = check_section(&config)?;
        raise_open_file_limit();
        filebox_core::index::keep_caches_small();
        let bridges = crate::bridges::plan(&config)?;
        filebox_federation::Settings::of(&config)?;
        let socket_path = socket_path(&config);
        let socket = bind_socket(&socket_path)?;
        Ok(Server {
            follower: events::Follower::watch(&config)
                .context("watching the mailboxes for live events")?,
            hub: Hub::new(
                Arc::new(LiveConfig::load(&config.path)?),
                &config,
                &section,
                address,
                options.agent,
                options.allowed_hosts,
            ),
            config,
            bridges,
            connections: ConnectionSettings::of(&section),
            listener,
            socket,
            socket_path,
        })
    }

    /// Serve until `shutdown` completes (see [`run`]).
    pub async fn serve(
        self,
        shutdown: impl Future<Output = ()> + Send + 'static,
    ) -> anyhow::Result<()> {
        let Server {
            hub,
            follower,
            config,
            bridges,
            connections,
            listener,
            socket,
            socket_path,
        } = self;
        let router = routes::router(&hub, GROUPS);
        // Subscribed before the feed starts: no arrival is missed between the two.
        let tasks = vec![
            tokio::spawn(runner::supervise(hub.clone(), hub.events().live())),
            tokio::spawn(webhook::supervise(hub.clone(), hub.events().live())),
            tokio::spawn(crate::a2a::push::supervise(
                hub.clone(),
                hub.events().live(),
            )),
            tokio::spawn(crate::a2a::outbound::supervise(hub.clone())),
            tokio::spawn(indexer::keep_indexes(hub.clone(), hub.events().live())),
            tokio::spawn(prompts::keep_watch(hub.clone(), hub.events().live())),
            tokio::spawn(events::follow(hub.clone(), follower)),
            tokio::spawn(federation(hub.clone())),
        ];
        let bridges = crate::bridges::start(&hub, &config, bridges);
        let socket_server = {
            let (router, connections, stop) = (router.clone(), connections.clone(), hub.sessions());
            tokio::spawn(async move {
                connections::serve(socket, router, &connections, stop.cancelled_owned()).await;
            })
        };
        let stopping = hub.clone();
        connections::serve(listener, router, &connections, async move {
            shutdown.await;
            stopping.shut_down();
        })
        .await;
        hub.shut_down();
        let socket_served = socket_server.await;
        for bridge in bridges {
            // A bridge stops within one pass of the shutdown; it only ever reports on stderr.
            let _ = bridge.await;
        }
        // The socket is ours: we bound it. A failure to remove it is harmless (the next start
        // replaces it), so it is not reported over the result of serving.
        let _ = std::fs::remove_file(&socket_path);
        // Each task ends at the shutdown: the follower within one look, the federation once
        // both halves stopped (unacknowledged mail is redelivered next time), runs in flight
        // are dropped (their commands killed; a restart resumes them), and what webhooks still
        // owe is in the files for the next start.
        for task in tasks {
            task.await
                .context("a task of the hub ended abnormally at the shutdown")?;
        }
        socket_served
            .context("the Unix socket server stopped abnormally")
            .with_context(|| format!("serving on {}", socket_path.display()))
    }
}

/// The federation, when the config has a `federation` section: connected again with backoff
/// when NATS cannot be reached, until the hub stops.
async fn federation(hub: Hub) {
    let name = "federation".to_owned();
    keep_running(hub.clone(), name, |run| {
        let hub = hub.clone();
        async move {
            let started = filebox_federation::start(hub.live_config(), hub.sessions())
                .await
                .context("starting the federation")?;
            if let Some(federation) = started {
                run.up();
                federation.stopped().await;
            }
            Ok(())
        }
    })
    .await;
}

/// Raise the soft limit of open files to the hard one: every connection, event stream and
/// watched folder holds a descriptor, and the usual soft limit (1024) is soon reached. Best
/// effort: a hub that cannot raise it still serves, and says so.
fn raise_open_file_limit() {
    use rustix::process::{Resource, getrlimit, setrlimit};
    let limit = getrlimit(Resource::Nofile);
    if limit.current == limit.maximum {
        return;
    }
    let raised = rustix::process::Rlimit {
        current: limit.maximum,
        maximum: limit.maximum,
    };
    if let Err(e) = setrlimit(Resource::Nofile, raised) {
        tracing::warn!(
            "could not raise the open-file limit from {:?} to {:?}: {e}",
            limit.current,
            limit.maximum
        );
    }
}

/// `.filebox/hub.sock` beside the config.
pub fn socket_path(config: &Config) -> PathBuf {
    config.config_dir().join(SOCKET_NAME)
}

/// Bind the socket, mode 0600. A socket left by a hub that is gone is replaced; one that
/// answers belongs to a running hub, which is refused.
fn bind_socket(path: &Path) -> anyhow::Result<UnixListener> {
    use std::os::unix::fs::PermissionsExt;
    if std::os::unix::net::UnixStream::connect(path).is_ok() {
        anyhow::bail!(
            "another hub is serving this config: {} answers",
            path.display()
        );
    }
    match std::fs::remove_file(path) {
        Ok(()) => {}
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {}
        Err(e) => return Err(e).with_context(|| format!("removing the stale {}", path.display())),
    }
    let listener =
        UnixListener::bind(path).with_context(|| format!("binding {}", path.display()))?;
    std::fs::set_permissions(path, std::fs::Permissions::from_mode(0o600))
        .with_context(|| format!("making {} private (0600)", path.display()))?;
    Ok(listener)
}

/// Whether `config`'s `hub` section is one a hub starts with (what `filebox hub set` checks
/// before it writes one).
pub fn check_hub_section(config: &Config) -> anyhow::Result<()> {
    check_section(config).map(drop)
}

/// The `hub` section must be readable, its bounds sane and a webhook secret usable, before
/// serving.
fn check_section(config: &Config) -> anyhow::Result<HubSection> {
    let section = HubSection::of(config)?;
    let refuse = |why: String| anyhow::anyhow!("config {}: {why}", config.path.display());
    section.check_bounds().map_err(refuse)?;
    if let Some(secret) = &section.webhook_secret {
        webhook::Secret::parse(secret).map_err(|why| refuse(why.to_string()))?;
    }
    Ok(section)
}

/// Off loopback, every agent must have a token: no one on the network may act for an agent
/// without one.
fn check_exposure(config: &Config, ip: std::net::IpAddr) -> anyhow::Result<()> {
    if ip.to_canonical().is_loopback() {
        return Ok(());
    }
    let without: Vec<String> = config
        .file
        .agents
        .iter()
        .filter(|(_, entry)| token_sha256(entry).is_none())
        .map(|(id, _)| id.to_string())
        .collect();
    if without.is_empty() {
        Ok(())
    } else {
        anyhow::bail!(
            "refusing to listen on {ip}, off this machine, while these agents have no token: {} \
             (give each one with `filebox agents token ID`, or listen on 127.0.0.1)",
            without.join(", ")
        )
    }
}
