//! The connection to NATS (credentials and TLS from the config) and the stream every hub
//! shares, created by whichever hub comes first.

use std::time::Duration;

use anyhow::Context;
use async_nats::jetstream::{self, stream};
use futures_util::StreamExt;
use tracing::Instrument as _;

use crate::settings::Settings;
use crate::wire::{PREFIX, STREAM};

/// How long the stream remembers a `Nats-Msg-Id` to drop a retried publish.
const DUPLICATE_WINDOW: Duration = Duration::from_secs(120);

/// Connect as hub `settings.hub`. `patient`: keep trying in the background when NATS is not
/// reachable yet (a hub); otherwise fail at once (a status query).
pub(crate) async fn connect(
    settings: &Settings,
    patient: bool,
) -> anyhow::Result<async_nats::Client> {
    let mut options = async_nats::ConnectOptions::new()
        .name(format!("filebox hub {}", settings.hub))
        .connection_timeout(Duration::from_secs(5));
    if patient {
        let hub = settings.hub.clone();
        options = options
            .retry_on_initial_connect()
            .event_callback(move |event| {
                let span = tracing::info_span!("federation", hub = %hub);
                async move { tracing::info!("NATS {event}") }.instrument(span)
            });
    }
    if let Some(path) = &settings.credentials {
        options = options
            .credentials_file(path)
            .await
            .with_context(|| format!("reading the NATS credentials {}", path.display()))?;
    }
    if let Some(path) = &settings.nkey {
        let seed = std::fs::read_to_string(path)
            .with_context(|| format!("reading the NKey seed {}", path.display()))?;
        options = options.nkey(seed.trim().to_owned());
    }
    if let (Some(user), Some(password)) = (&settings.user, &settings.password) {
        options = options.user_and_password(user.clone(), password.clone());
    }
    if let Some(tls) = &settings.tls {
        options = options.require_tls(true);
        if let Some(ca) = &tls.ca {
            options = options.add_root_certificates(ca.clone());
        }
        if let (Some(cert), Some(key)) = (&tls.cert, &tls.key) {
            options = options.add_client_certificate(cert.clone(), key.clone());
        }
    }
    options
        .connect(settings.nats.as_str())
        .await
        .with_context(|| format!("connecting to NATS at {}", settings.nats))
}

/// The JetStream context of a connection.
pub(crate) fn jetstream(client: async_nats::Client) -> jetstream::Context {
    jetstream::new(client)
}

/// The mail stream, created when it does not exist yet, on disk (`File` storage) with
/// `replicas` copies. That is all of durability a client sets on any server version: how
/// often a server fsyncs is its own option (`jetstream { sync_interval: always }`, 2.10 and
/// later; DEPLOY.md), and a stream's `persist_mode` (2.12 and later) is left at its default,
/// which acknowledges a publish only once stored.
pub(crate) async fn stream(
    js: &jetstream::Context,
    replicas: usize,
) -> anyhow::Result<stream::Stream> {
    js.get_or_create_stream(stream::Config {
        name: STREAM.to_owned(),
        subjects: vec![format!("{PREFIX}.>")],
        retention: stream::RetentionPolicy::WorkQueue,
        storage: stream::StorageType::File,
        num_replicas: replicas,
        duplicate_window: DUPLICATE_WINDOW,
        ..Default::default()
    })
    .await
    .with_context(|| format!("opening the JetStream stream {STREAM}"))
}

/// How many messages the stream holds on subjects matching `filter`.
pub(crate) async fn messages_on(stream: &stream::Stream, filter: &str) -> anyhow::Result<u64> {
    let mut subjects = stream
        .info_builder()
        .subjects(filter)
        .fetch()
        .await
        .with_context(|| format!("reading the stream's subjects {filter}"))?;
    let mut total = 0u64;
    while let Some(subject) = subjects.next().await {
        total += subject.context("reading the stream's subjects")?.1 as u64;
    }
    Ok(total)
}
