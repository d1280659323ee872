//! `filebox mcp --listen ADDR`: the server over Streamable HTTP at `/mcp`, with rmcp's
//! DNS-rebinding protection (the Host header must name an allowed host).

use std::future::Future;
use std::sync::Arc;

use anyhow::Context;
use filebox_core::Mailroom;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::server::FileboxServer;

/// Hosts a request may name when nothing else is allowed: loopback only.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Serve MCP over Streamable HTTP at `http://<listener>/mcp` until `shutdown` completes.
/// `allowed_hosts` adds hosts (or `host:port`) to the loopback ones the Host header may name.
pub async fn serve_http(
    mailroom: Mailroom,
    listener: TcpListener,
    allowed_hosts: Vec<String>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let mailroom = Arc::new(mailroom);
    let sessions = CancellationToken::new();
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(
            LOOPBACK_HOSTS
                .iter()
                .map(|host| (*host).to_owned())
                .chain(allowed_hosts),
        )
        .with_cancellation_token(sessions.child_token());
    let service = StreamableHttpService::new(
        move || Ok(FileboxServer::new(Arc::clone(&mailroom))),
        Arc::new(LocalSessionManager::default()),
        config,
    );
    let router = axum::Router::new().nest_service("/mcp", service);
    let address = listener
        .local_addr()
        .context("reading the listener's address")?;
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            sessions.cancel();
        })
        .await
        .with_context(|| format!("serving MCP over HTTP on {address}"))
}
