//! FileBox federation: hubs on several machines exchange mail over NATS JetStream, an adapter
//! of the hub (`filebox serve` starts it when the config has a `federation` section). Each
//! hub's mailbox files stay the truth for its agents; an agent of another hub is `name@hub`
//! in the config (`"hub": "ci-1"`), with a local stand-in mailbox (`remote/name@hub/`) whose
//! inbox is the outgoing spool and whose other folders mirror that agent's copies of what was
//! sent to it. See `wire` for the stream and its subjects, `outbound` for what is published,
//! `inbound` and `receive` for how arrivals become files.

mod connect;
mod gate;
mod inbound;
pub mod local_nats;
mod names;
mod outbound;
mod published;
mod receive;
mod settings;
pub mod status;
mod wire;

use std::sync::{Arc, Mutex};
use std::time::Duration;

use filebox_core::LiveConfig;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;
use tracing::Instrument as _;

pub use settings::{Settings, Tls, check_remote_agent};

/// How long the publisher waits before starting again after a failure.
const RESTART_DELAY: Duration = Duration::from_secs(2);

/// A running federation: the receiver and the publisher.
pub struct Running {
    tasks: Vec<JoinHandle<()>>,
}

impl Running {
    /// Wait until both stopped (after the `stop` given to [`start`] was cancelled).
    pub async fn stopped(self) {
        for task in self.tasks {
            let _ = task.await;
        }
    }
}

/// Start the federation of the hub whose config `live` keeps current (the hub's handle: both
/// halves read the config through it), when the config has a `federation` section; `Ok(None)`
/// when it has none. Returns at once: NATS is reached in the background, and both halves keep
/// trying while it is away. A malformed section is an error (the hub refuses to start rather
/// than silently not federating).
pub async fn start(
    live: &Arc<LiveConfig>,
    stop: CancellationToken,
) -> anyhow::Result<Option<Running>> {
    let config = &live.current()?;
    let Some(settings) = Settings::of(config)? else {
        return Ok(None);
    };
    let client = connect::connect(&settings, true).await?;
    let js = connect::jetstream(client);
    let published = Arc::new(Mutex::new(published::Published::load(config)?));
    let inbound = inbound::Inbound {
        config: Arc::clone(live),
        me: settings.hub.clone(),
        js: js.clone(),
        replicas: settings.replicas,
        published: published.clone(),
    };
    let outbound = outbound::Outbound {
        config: Arc::clone(live),
        me: settings.hub.clone(),
        js,
        replicas: settings.replicas,
        runtime: tokio::runtime::Handle::current(),
        published,
        resend_after: Duration::from_secs(settings.resend_after_secs),
    };
    // Every line either half logs names this hub: the span carries it.
    let span = tracing::info_span!("federation", hub = %settings.hub);
    let receiving = tokio::spawn(inbound.run(stop.clone()).instrument(span.clone()));
    let publishing_span = span.clone();
    let publishing = tokio::task::spawn_blocking(move || {
        let _in_span = publishing_span.enter();
        let stopped = || stop.is_cancelled();
        while !stopped() {
            match outbound.run(&stopped) {
                Ok(()) => return,
                Err(e) => tracing::warn!("publishing stopped (starting again): {e:#}"),
            }
            std::thread::sleep(RESTART_DELAY);
        }
    });
    span.in_scope(|| tracing::info!(nats = %settings.nats, "federated through NATS"));
    Ok(Some(Running {
        tasks: vec![receiving, publishing],
    }))
}
