//! Browser safety: a request must name this hub in `Host` (loopback names, the listen address,
//! or an `--allow-host`), and an `Origin`, when sent, must be one of this hub's origins: the
//! same scheme, host and port (a page of another local server, `http://localhost:3000`, is
//! another origin). This stops DNS rebinding and cross-site requests; no CORS header is ever
//! sent, so browsers keep other sites' scripts from reading answers.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

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
    let own = own_origins(hub.listen(), hub.allowed_hosts());
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

/// The origins a page of this hub has: `http://` with the listen port on the listen address
/// and on the loopback names; for an allowed host with a port, `http://` and `https://` with
/// that port; for one without, `http://` on the listen port and `http://`/`https://` on their
/// default ports (the hub reached through a proxy that keeps the name).
fn own_origins(listen: SocketAddr, allowed_hosts: &[String]) -> Vec<url::Origin> {
    let port = listen.port();
    let on_port = |ip: IpAddr| format!("http://{}", SocketAddr::new(ip, port));
    let mut origins = vec![
        on_port(listen.ip()),
        on_port(IpAddr::V4(Ipv4Addr::LOCALHOST)),
        on_port(IpAddr::V6(Ipv6Addr::LOCALHOST)),
        format!("http://localhost:{port}"),
    ];
    for allowed in allowed_hosts {
        if has_port(allowed) {
            origins.extend([format!("http://{allowed}"), format!("https://{allowed}")]);
        } else {
            origins.extend([
                format!("http://{allowed}:{port}"),
                format!("http://{allowed}"),
                format!("https://{allowed}"),
            ]);
        }
    }
    // An entry that is no host (an `--allow-host` typo) names no origin.
    origins
        .iter()
        .filter_map(|origin| Url::parse(origin).ok())
        .map(|url| url.origin())
        .collect()
}

/// Whether an authority (`host:port`, `[v6]:port`) names a port.
fn has_port(authority: &str) -> bool {
    let after_host = match authority.strip_prefix('[') {
        Some(rest) => rest.split_once(']').map_or("", |(_, after)| after),
        None => authority,
    };
    after_host
        .rsplit_once(':')
        .is_some_and(|(_, port)| !port.is_empty() && port.bytes().all(|b| b.is_ascii_digit()))
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
        assert!(has_port("localhost:8765") && has_port("[::1]:80"));
        assert!(!has_port("[::1]") && !has_port("example.com"));
    }

    fn is_own(origin: &str, allowed_hosts: &[&str]) -> bool {
        let listen = SocketAddr::from(([127, 0, 0, 1], 8765));
        let allowed: Vec<String> = allowed_hosts.iter().map(|h| h.to_string()).collect();
        own_origins(listen, &allowed).contains(&Url::parse(origin).unwrap().origin())
    }

    #[test]
    fn an_origin_is_the_hubs_only_with_its_scheme_host_and_port() {
        for own in [
            "http://127.0.0.1:8765",
            "http://localhost:8765",
            "http://LOCALHOST:8765/",
            "http://[::1]:8765",
        ] {
            assert!(is_own(own, &[]), "{own}");
        }
        for foreign in [
            "http://localhost:3000",
            "http://127.0.0.1:8766",
            "http://[::1]:876",
            "http://localhost",
            "https://localhost:8765",
            "ws://localhost:8765",
            "http://hub.example:8765",
        ] {
            assert!(!is_own(foreign, &[]), "{foreign}");
        }
    }

    #[test]
    fn an_allowed_host_is_an_origin_on_its_port_or_the_default_ones() {
        let proxied = ["hub.example"];
        for own in [
            "https://hub.example",
            "http://hub.example",
            "http://hub.example:8765",
        ] {
            assert!(is_own(own, &proxied), "{own}");
        }
        assert!(!is_own("http://hub.example:3000", &proxied));
        let with_port = ["hub.example:8443"];
        assert!(is_own("https://hub.example:8443", &with_port));
        assert!(!is_own("https://hub.example", &with_port));
        assert!(!is_own("http://hub.example:8765", &with_port));
    }
}
