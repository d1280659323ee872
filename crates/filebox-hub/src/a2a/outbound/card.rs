//! A remote agent's card, read as the foreign input it is: which JSON-RPC interface it names
//! (A2A 1.0: `supportedInterfaces` with `protocolBinding: "JSONRPC"` and its
//! `protocolVersion`; 0.3: `url` with `preferredTransport`, or `additionalInterfaces`), a
//! 1.0 interface before a 0.3 one, and only a URL the hub's client calls (`http`).

use serde_json::Value;
use url::Url;

use super::super::wire::Dialect;
use crate::webhook::post;

/// The most of a card that is read: cards are a few KiB; a longer answer is not a card.
pub(super) const CARD_BYTES: usize = 256 * 1024;

/// Where and how to call a remote agent.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct Endpoint {
    pub(super) url: String,
    pub(super) dialect: Dialect,
    /// Set when no card was found and the entry's URL is called as it is: why (an answer that
    /// is not JSON-RPC then says the URL is no A2A agent).
    pub(super) no_card: Option<String>,
}

/// The JSON-RPC interface the card at `card_url` names, or why there is none FileBox can use.
pub(super) fn interface(card_url: &Url, card: &Value) -> Result<Endpoint, String> {
    let (url, dialect) = v1_interface(card)
        .or_else(|| v03_interface(card))
        .ok_or_else(|| {
            format!(
                "the agent card at {card_url} names no JSON-RPC interface (FileBox speaks A2A's \
                 JSON-RPC binding); put the agent's JSON-RPC URL in the agent entry"
            )
        })?;
    let url = card_url
        .join(url)
        .map_err(|e| format!("the agent card at {card_url} names {url:?}, not a URL ({e})"))?;
    // What the hub's client cannot call is refused here, not tried again forever.
    post::check_endpoint(url.as_str())
        .map_err(|why| format!("the agent card at {card_url} names {url}: {why}"))?;
    Ok(Endpoint {
        url: url.to_string(),
        dialect,
        no_card: None,
    })
}

/// A 1.0 card's JSON-RPC interface, a 1.x one before a 0.3 one.
fn v1_interface(card: &Value) -> Option<(&str, Dialect)> {
    let interfaces = card.get("supportedInterfaces")?.as_array()?;
    let json_rpc = |wanted: Dialect| {
        interfaces.iter().find_map(|interface| {
            let binding = interface.get("protocolBinding")?.as_str()?;
            let version = interface
                .get("protocolVersion")
                .and_then(Value::as_str)
                .unwrap_or("1.0");
            let dialect = if version.starts_with("0.") {
                Dialect::V03
            } else {
                Dialect::V1
            };
            (binding.eq_ignore_ascii_case("JSONRPC") && dialect == wanted)
                .then(|| interface.get("url")?.as_str())
                .flatten()
        })
    };
    json_rpc(Dialect::V1)
        .map(|url| (url, Dialect::V1))
        .or_else(|| json_rpc(Dialect::V03).map(|url| (url, Dialect::V03)))
}

/// A 0.3 card's JSON-RPC interface: its `url` when its preferred transport is JSON-RPC (the
/// default), else an additional interface with that transport.
fn v03_interface(card: &Value) -> Option<(&str, Dialect)> {
    let preferred = card
        .get("preferredTransport")
        .and_then(Value::as_str)
        .unwrap_or("JSONRPC");
    let main = card.get("url").and_then(Value::as_str);
    let url = match main {
        Some(url) if preferred.eq_ignore_ascii_case("JSONRPC") => url,
        _ => card
            .get("additionalInterfaces")?
            .as_array()?
            .iter()
            .find_map(|interface| {
                let transport = interface.get("transport")?.as_str()?;
                transport
                    .eq_ignore_ascii_case("JSONRPC")
                    .then(|| interface.get("url")?.as_str())
                    .flatten()
            })?,
    };
    Some((url, Dialect::V03))
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    fn read(card: Value) -> Result<Endpoint, String> {
        interface(&Url::parse("http://agent.test/a/").unwrap(), &card)
    }

    #[test]
    fn a_1_0_interface_wins_and_a_0_3_card_is_read_by_its_transport() {
        let both = json!({"supportedInterfaces": [
            {"url": "http://agent.test/grpc", "protocolBinding": "GRPC", "protocolVersion": "1.0"},
            {"url": "http://agent.test/v03", "protocolBinding": "JSONRPC", "protocolVersion": "0.3"},
            {"url": "http://agent.test/rpc", "protocolBinding": "JSONRPC", "protocolVersion": "1.0"},
        ]});
        let endpoint = read(both).unwrap();
        assert_eq!(
            (endpoint.url.as_str(), endpoint.dialect),
            ("http://agent.test/rpc", Dialect::V1)
        );
        let v03 = json!({"url": "http://agent.test/grpc", "preferredTransport": "GRPC",
            "additionalInterfaces": [{"url": "rpc", "transport": "JSONRPC"}]});
        let endpoint = read(v03).unwrap();
        assert_eq!(
            (endpoint.url.as_str(), endpoint.dialect),
            ("http://agent.test/a/rpc", Dialect::V03),
            "a relative URL is read against the card's"
        );
    }

    #[test]
    fn a_card_without_json_rpc_or_with_another_scheme_is_refused() {
        let grpc = json!({"supportedInterfaces": [{"url": "http://agent.test/g",
            "protocolBinding": "GRPC"}]});
        assert!(read(grpc).unwrap_err().contains("no JSON-RPC interface"));
        for scheme in ["file:///etc/passwd", "https://agent.test/a2a"] {
            let refused = read(json!({ "url": scheme })).unwrap_err();
            assert!(refused.contains("only http://"), "{refused}");
        }
        assert!(read(json!("not a card")).is_err());
    }
}
