//! Running the hub: the checks before listening, the TCP and Unix-socket servers, and a
//! graceful stop.

use std::future::Future;
use std::path::{Path, PathBuf};
use std::sync::Arc;

use anyhow::Context;
use filebox_core::{AgentId, Config, LiveConfig};
use tokio::net::{TcpListener, UnixListener};

use crate::hub::Hub;
use crate::routes::{self, GROUPS};
use crate::settings::HubSection;
use crate::{events, runner, webhook};
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
        check_webhooks(&config)?;
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
                address,
                options.agent,
                options.allowed_hosts,
            ),
            config,
            bridges,
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
            listener,
            socket,
            socket_path,
        } = self;
        let bridges = crate::bridges::start(&config, bridges, hub.sessions());
        let federation = filebox_federation::start(hub.live_config(), hub.sessions()).await?;
        let address = hub.listen();
        let router = routes::router(&hub, GROUPS);
        // Subscribed before the feed starts: no arrival is missed between the two.
        let runners = tokio::spawn(runner::supervise(hub.clone(), hub.events().live()));
        let webhooks = tokio::spawn(webhook::supervise(hub.clone(), hub.events().live()));
        let follower = {
            let hub = hub.clone();
            std::thread::spawn(move || follower.run(&hub.events(), &|| hub.stopping()))
        };
        let socket_server = {
            let router = router.clone();
            let stop = hub.sessions();
            tokio::spawn(async move {
                axum::serve(socket, router)
                    .with_graceful_shutdown(async move { stop.cancelled().await })
                    .await
            })
        };
        let stopping = hub.clone();
        let served = axum::serve(listener, router)
            .with_graceful_shutdown(async move {
                shutdown.await;
                stopping.shut_down();
            })
            .await
            .with_context(|| format!("serving on {address}"));
        hub.shut_down();
        let socket_served = socket_server.await;
        for bridge in bridges {
            // A bridge stops within one pass of the shutdown; it only ever reports on stderr.
            let _ = bridge.await;
        }
        if let Some(federation) = federation {
            // Both halves stop at the shutdown; unacknowledged mail is redelivered next time.
            federation.stopped().await;
        }
        // The socket is ours: we bound it. A failure to remove it is harmless (the next start
        // replaces it), so it is not reported over the result of serving.
        let _ = std::fs::remove_file(&socket_path);
        let followed = follower.join();
        // Runs in flight are dropped (their commands killed); a restart resumes them.
        runners.abort();
        // Deliveries stop at the shutdown; what is still due is in the files for the next start.
        webhooks.abort();
        served?;
        match followed {
            Ok(result) => result.context("following the mailboxes for live events")?,
            Err(_) => anyhow::bail!("the live-event thread panicked"),
        }
        socket_served
            .context("the Unix socket server stopped abnormally")?
            .with_context(|| format!("serving on {}", socket_path.display()))
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

/// The `hub` section must be readable, and a webhook secret usable, before serving.
fn check_webhooks(config: &Config) -> anyhow::Result<()> {
    let settings = HubSection::of(config)?;
    if let Some(secret) = &settings.webhook_secret {
        webhook::Secret::parse(secret)
            .map_err(|why| anyhow::anyhow!("config {}: {why}", config.path.display()))?;
    }
    Ok(())
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
