//! `filebox mcp --listen ADDR`: the server over Streamable HTTP at `/mcp`, with rmcp's
//! DNS-rebinding protection (the Host header must name an allowed host) and its Origin check
//! (a request from a page must come from one of this server's own origins).

use std::future::Future;
use std::net::SocketAddr;
use std::sync::Arc;

use anyhow::Context;
use axum::response::IntoResponse;
use filebox_core::Mailroom;
use rmcp::transport::streamable_http_server::session::local::LocalSessionManager;
use rmcp::transport::streamable_http_server::{StreamableHttpServerConfig, StreamableHttpService};
use tokio::net::TcpListener;
use tokio_util::sync::CancellationToken;

use crate::origins::{own_origins, with_port};
use crate::server::{FileboxServer, MailroomSource, fixed};
use crate::tasks::Tasks;
use crate::tools::HostFiles;

/// Hosts a request may name when nothing else is allowed: loopback only.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// Why a listen address off this machine is refused: the hub binds loopback, and any other
/// bind requires a token, which this server does not check.
const LOOPBACK_ONLY: &str = "--listen must be a loopback address (127.0.0.1, ::1, localhost); \
     serving MCP beyond this machine needs a token, which the hub will provide";

/// Refuse a `--listen` address that is not loopback: an IP literal (`127.0.0.1:8765`,
/// `[::1]:8765`) must be a loopback address, and the only name accepted is `localhost`.
/// Other names are refused rather than resolved: what they resolve to can change.
pub fn check_listen_address(address: &str) -> anyhow::Result<()> {
    let loopback = match address.parse::<SocketAddr>() {
        Ok(socket) => socket.ip().to_canonical().is_loopback(),
        // Without a port, binding fails on its own with a clearer error than ours.
        Err(_) => address
            .rsplit_once(':')
            .map_or(address, |(host, _port)| host)
            .eq_ignore_ascii_case("localhost"),
    };
    if loopback {
        Ok(())
    } else {
        anyhow::bail!(LOOPBACK_ONLY)
    }
}

/// Serve MCP over Streamable HTTP at `http://<listener>/mcp` until `shutdown` completes.
/// `allowed_hosts` adds hosts (or `host:port`) to the loopback ones the Host header may name.
/// A listener bound to anything but a loopback address is refused (there is no token yet).
pub async fn serve_http(
    mailroom: Mailroom,
    listener: TcpListener,
    allowed_hosts: Vec<String>,
    shutdown: impl Future<Output = ()> + Send + 'static,
) -> anyhow::Result<()> {
    let address = listener
        .local_addr()
        .context("reading the listener's address")?;
    if !address.ip().to_canonical().is_loopback() {
        anyhow::bail!("{LOOPBACK_ONLY} (bound to {address})");
    }
    let sessions = CancellationToken::new();
    let origins = own_origins(address, &allowed_hosts);
    let router = router(
        fixed(mailroom)?,
        HostFiles::Offered,
        Browsers {
            hosts: allowed_hosts,
            origins,
        },
        sessions.child_token(),
    );
    axum::serve(listener, router)
        .with_graceful_shutdown(async move {
            shutdown.await;
            sessions.cancel();
        })
        .await
        .with_context(|| format!("serving MCP over HTTP on {address}"))
}

/// Whom a browser may reach the server as.
pub struct Browsers {
    /// Added to the loopback hosts the Host header may name.
    pub hosts: Vec<String>,
    /// The server's own origins ([`own_origins`]): a request with any other `Origin` is
    /// refused (403); one without `Origin` (not from a page) is not.
    pub origins: Vec<url::Origin>,
}

/// The MCP service mounted at `/mcp`, for this server and for the hub (which merges it into
/// its own router), each request running in the mailroom `mailrooms` gives. Cancelling
/// `sessions` ends the open sessions (their SSE streams), so a server can stop.
pub fn router(
    mailrooms: MailroomSource,
    host_files: HostFiles,
    browsers: Browsers,
    sessions: CancellationToken,
) -> axum::Router {
    let config = StreamableHttpServerConfig::default()
        .with_allowed_hosts(
            LOOPBACK_HOSTS
                .iter()
                .map(|host| (*host).to_owned())
                .chain(browsers.hosts),
        )
        .with_allowed_origins(browsers.origins.iter().filter_map(with_port))
        .enforce_origin_validation()
        .with_cancellation_token(sessions);
    let tasks = Tasks::default();
    let service = StreamableHttpService::new(
        move || {
            Ok(FileboxServer::new(
                Arc::clone(&mailrooms),
                host_files,
                tasks.clone(),
            ))
        },
        Arc::new(LocalSessionManager::default()),
        config,
    );
    axum::Router::new()
        .nest_service("/mcp", service)
        .layer(axum::middleware::from_fn(session_ended))
}

/// A `DELETE /mcp` that ended its session is answered 204 No Content: the session is gone by
/// then, and rmcp's 202 Accepted ("not yet done") makes the Python SDK warn `Session
/// termination failed: 202`.
async fn session_ended(
    request: axum::extract::Request,
    next: axum::middleware::Next,
) -> axum::response::Response {
    let delete = request.method() == axum::http::Method::DELETE;
    let response = next.run(request).await;
    if delete && response.status() == axum::http::StatusCode::ACCEPTED {
        return axum::http::StatusCode::NO_CONTENT.into_response();
    }
    response
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_loopback_addresses_may_be_listened_on() {
        for address in [
            "127.0.0.1:8765",
            "127.1.2.3:0",
            "[::1]:0",
            "[::ffff:127.0.0.1]:0",
            "localhost:8765",
            "LocalHost:0",
        ] {
            assert!(check_listen_address(address).is_ok(), "{address}");
        }
        for address in [
            "0.0.0.0:0",
            "[::]:0",
            "192.168.1.2:8765",
            "example.com:80",
            "localhost.example.com:80",
            "",
        ] {
            let error = check_listen_address(address).unwrap_err();
            assert_eq!(error.to_string(), LOOPBACK_ONLY, "{address}");
        }
    }
}
