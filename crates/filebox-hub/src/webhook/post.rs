//! One webhook POST: HTTP/1.1 over a new TCP connection (hyper's client connection, no pool,
//! no TLS: an `https://` endpoint is refused when the message is sent; put a TLS proxy in
//! front of a remote receiver). The answer's status is kept, and its first bytes (an `rpc`
//! callback's JSON-RPC response).

use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::Request;
use hyper::body::Bytes;
use hyper::header::{CONTENT_TYPE, HOST, HeaderName, HeaderValue, USER_AGENT};
use hyper_util::rt::TokioIo;
use tokio::net::TcpStream;
use url::{Position, Url};

/// How long one attempt may take, connecting included.
pub(crate) const ATTEMPT_TIMEOUT: Duration = Duration::from_secs(10);

/// Whether `endpoint` is a URL this client can POST to (`http://host[:port]/path`, no user
/// name or password): the URL as the allow-list reads it (`HubSection::allows_callback` parses
/// with the same `Url::parse`), which is the URL the request goes to. So a path with dot
/// segments (`/admin/../hooks/x`, also `%2e%2e`) is checked and sent resolved (`/hooks/x`),
/// never checked resolved and sent as written.
pub(crate) fn check_endpoint(endpoint: &str) -> Result<Url, String> {
    let url = Url::parse(endpoint).map_err(|e| format!("not a URL ({e})"))?;
    if url.scheme() != "http" {
        return Err("only http:// endpoints are supported (no TLS in the hub)".into());
    }
    if url.host_str().is_none_or(str::is_empty) {
        return Err("the URL has no host".into());
    }
    // `http://allowed@elsewhere/` names `elsewhere`: a user name only hides the real host.
    if crate::settings::has_userinfo(&url) {
        return Err(
            "the URL has a user name or password (the host is the part after the @)".into(),
        );
    }
    Ok(url)
}

/// How much of an answer's body is kept.
const KEPT_BODY: usize = 64 * 1024;

/// An endpoint's answer: its status code and the first [`KEPT_BODY`] bytes of its body.
pub(crate) struct Answer {
    pub(crate) status: u16,
    pub(crate) body: Vec<u8>,
}

/// POST `body` (JSON) with `headers`; the response, or why there is none.
pub(crate) async fn post(
    endpoint: &str,
    headers: &[(String, String)],
    body: Vec<u8>,
) -> Result<Answer, String> {
    tokio::time::timeout(ATTEMPT_TIMEOUT, send(endpoint, headers, body))
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {} s", ATTEMPT_TIMEOUT.as_secs())))
}

async fn send(
    endpoint: &str,
    headers: &[(String, String)],
    body: Vec<u8>,
) -> Result<Answer, String> {
    // Host, port and path all from the parsed URL, the one the allow-list checked.
    let url = check_endpoint(endpoint)?;
    let host = url.host_str().unwrap_or_default().trim_matches(['[', ']']);
    let port = url.port_or_known_default().unwrap_or(80);
    let stream = TcpStream::connect((host, port))
        .await
        .map_err(|e| format!("cannot connect: {e}"))?;
    let (mut sender, connection) = hyper::client::conn::http1::handshake(TokioIo::new(stream))
        .await
        .map_err(|e| format!("HTTP handshake: {e}"))?;
    let driver = tokio::spawn(connection);
    let authority = &url[Position::BeforeHost..Position::AfterPort];
    let mut request = Request::post(&url[Position::BeforePath..Position::AfterQuery])
        .header(HOST, authority)
        .header(CONTENT_TYPE, "application/json")
        .header(
            USER_AGENT,
            concat!("filebox-hub/", env!("CARGO_PKG_VERSION")),
        )
        .body(Full::new(Bytes::from(body)))
        .map_err(|e| format!("building the request: {e}"))?;
    for (name, value) in headers {
        let name =
            HeaderName::try_from(name.as_str()).map_err(|e| format!("header {name:?}: {e}"))?;
        let value =
            HeaderValue::try_from(value.as_str()).map_err(|e| format!("header {name}: {e}"))?;
        request.headers_mut().insert(name, value);
    }
    let response = sender
        .send_request(request)
        .await
        .map_err(|e| format!("sending: {e}"))?;
    let status = response.status().as_u16();
    // Read the answer to its end so the receiver is not cut off.
    let mut body = response
        .into_body()
        .collect()
        .await
        .map(|collected| collected.to_bytes().to_vec())
        .unwrap_or_default();
    body.truncate(KEPT_BODY);
    driver.abort();
    Ok(Answer { status, body })
}
