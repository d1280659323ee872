//! Browser safety: a request must name this hub in `Host` (loopback names, the listen address,
//! or an `--allow-host`), and an `Origin`, when sent, must be one of this hub's origins: the
//! same scheme, host and port (a page of another local server, `http://localhost:3000`, is
//! another origin). This stops DNS rebinding and cross-site requests; no CORS header is ever
//! sent, so browsers keep other sites' scripts from reading answers.

use axum::extract::{Request, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use url::Url;

use crate::hub::Hub;

/// Names every request may use for a loopback hub.
const LOOPBACK_HOSTS: [&str; 3] = ["localhost", "127.0.0.1", "::1"];

/// The middleware: refuse with 403 unless Host and Origin name this hub.
pub(crate) async fn check(State(hub): State<Hub>, request: Request, next: Next) -> Response {
    match refusal(&hub, request.headers()) {
        None => next.run(request).await,
        Some(reason) => (StatusCode::FORBIDDEN, reason).into_response(),
    }
}

fn refusal(hub: &Hub, headers: &HeaderMap) -> Option<String> {
    let host = headers.get(header::HOST).and_then(|h| h.to_str().ok());
    match host {
        None => return Some("a Host header is required".into()),
        Some(host) if !allowed_host(hub, host) => {
            return Some(format!("Host {host:?} is not this hub's address"));
        }
        Some(_) => {}
    }
    let origin = headers
        .get(header::ORIGIN)
        .map(|o| o.to_str().unwrap_or_default())?;
    let own = filebox_mcp::own_origins(hub.listen(), hub.allowed_hosts());
    match Url::parse(origin) {
        Ok(url) if own.contains(&url.origin()) => None,
        _ => Some(format!(
            "Origin {origin:?} is not this hub (scheme, host and port must be the hub's own)"
        )),
    }
}

/// Whether `authority` (`host` or `host:port`) names this hub in a Host header.
fn allowed_host(hub: &Hub, authority: &str) -> bool {
    let host = host_of(authority);
    let listen_ip = hub.listen().ip().to_string();
    LOOPBACK_HOSTS
        .iter()
        .copied()
        .chain([listen_ip.as_str()])
        .any(|allowed| allowed.eq_ignore_ascii_case(host))
        || hub
            .allowed_hosts()
            .iter()
            .any(|a| a.eq_ignore_ascii_case(host) || a.eq_ignore_ascii_case(authority))
}

/// The host of `host`, `host:port`, `[v6]` or `[v6]:port`.
fn host_of(authority: &str) -> &str {
    if let Some(rest) = authority.strip_prefix('[') {
        return rest.split(']').next().unwrap_or_default();
    }
    match authority.rsplit_once(':') {
        Some((host, port)) if port.bytes().all(|b| b.is_ascii_digit()) => host,
        _ => authority,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn hosts_are_taken_from_authorities() {
        assert_eq!(host_of("localhost:8765"), "localhost");
        assert_eq!(host_of("[::1]:80"), "::1");
        assert_eq!(host_of("[::1]"), "::1");
        assert_eq!(host_of("example.com"), "example.com");
    }
}
