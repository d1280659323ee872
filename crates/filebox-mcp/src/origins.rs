//! The origins of a FileBox server's own pages: a request whose `Origin` is not one of them
//! comes from another site's page (or another local server's, `http://localhost:3000`) and is
//! refused. Shared by the hub's guard and `filebox mcp --listen`.

use std::net::{IpAddr, Ipv4Addr, Ipv6Addr, SocketAddr};

use url::Url;

/// The origins a page of this server has: `http://` with the listen port on the listen address
/// and on the loopback names; for an allowed host with a port, `http://` and `https://` with
/// that port; for one without, `http://` on the listen port and `http://`/`https://` on their
/// default ports (the server reached through a proxy that keeps the name).
pub fn own_origins(listen: SocketAddr, allowed_hosts: &[String]) -> Vec<url::Origin> {
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

/// An origin as `scheme://host:port`, the port always written (rmcp matches an entry without
/// a port against any port).
pub(crate) fn with_port(origin: &url::Origin) -> Option<String> {
    match origin {
        url::Origin::Tuple(scheme, host, port) => Some(format!("{scheme}://{host}:{port}")),
        url::Origin::Opaque(_) => None,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ports_are_told_from_authorities() {
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

    #[test]
    fn every_origin_is_written_with_its_port() {
        let listen = SocketAddr::from(([127, 0, 0, 1], 8765));
        let written: Vec<String> = own_origins(listen, &["hub.example".into()])
            .iter()
            .filter_map(with_port)
            .collect();
        assert!(written.contains(&"http://localhost:8765".to_owned()));
        assert!(written.contains(&"https://hub.example:443".to_owned()));
        assert!(written.contains(&"http://[::1]:8765".to_owned()));
    }
}
