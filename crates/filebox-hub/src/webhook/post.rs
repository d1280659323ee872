//! One outgoing HTTP request (a webhook's POST, an A2A call, the GET of an A2A agent card):
//! HTTP/1.1 over a new TCP connection (hyper's client connection, no pool, no TLS: an
//! `https://` endpoint is refused when the message is sent; put a TLS proxy in front of a
//! remote receiver), redirects not followed. The answer's status is kept, its `Location`, and
//! its first bytes, never more than the caller's bound (an `rpc` callback's JSON-RPC response,
//! an A2A answer), so an endless answer holds no more memory than that.

use std::time::Duration;

use http_body_util::{BodyExt, Full};
use hyper::body::{Bytes, Incoming};
use hyper::header::{CONTENT_TYPE, HOST, HeaderName, HeaderValue, LOCATION, USER_AGENT};
use hyper::{Method, Request, Response};
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

/// How much of a webhook's answer is kept.
const KEPT_BODY: usize = 64 * 1024;

/// One request to send.
pub(crate) struct Call<'a> {
    pub(crate) method: Method,
    pub(crate) endpoint: &'a str,
    pub(crate) headers: &'a [(String, String)],
    /// The JSON body of a POST (a GET sends none).
    pub(crate) body: Vec<u8>,
    /// How many bytes of the answer's body are kept.
    pub(crate) keep: usize,
    /// What happens past [`Call::keep`].
    pub(crate) past_keep: PastKeep,
}

/// What is done with an answer's body past the bytes kept.
#[derive(Clone, Copy, PartialEq, Eq)]
pub(crate) enum PastKeep {
    /// Read to its end (within the attempt's time) and dropped, so a receiver that answers
    /// at length is not cut off: a webhook's.
    Drain,
    /// Not read: the answer is [`Answer::cut`] (an A2A answer over its bound is refused).
    Stop,
}

/// An endpoint's answer: its status code, where a redirect points, and the first bytes of its
/// body.
pub(crate) struct Answer {
    pub(crate) status: u16,
    /// The `Location` of a redirect (never followed).
    pub(crate) location: Option<String>,
    pub(crate) body: Vec<u8>,
    /// Whether the body went on past the bytes kept.
    pub(crate) cut: bool,
}

/// POST `body` (JSON) with `headers` (a webhook); the response, or why there is none.
pub(crate) async fn post(
    endpoint: &str,
    headers: &[(String, String)],
    body: Vec<u8>,
) -> Result<Answer, String> {
    request(Call {
        method: Method::POST,
        endpoint,
        headers,
        body,
        keep: KEPT_BODY,
        past_keep: PastKeep::Drain,
    })
    .await
}

/// Send `call` within [`ATTEMPT_TIMEOUT`] (connecting and reading the answer included); the
/// response, or why there is none.
pub(crate) async fn request(call: Call<'_>) -> Result<Answer, String> {
    tokio::time::timeout(ATTEMPT_TIMEOUT, send(call))
        .await
        .unwrap_or_else(|_| Err(format!("no answer within {} s", ATTEMPT_TIMEOUT.as_secs())))
}

async fn send(call: Call<'_>) -> Result<Answer, String> {
    // Host, port and path all from the parsed URL, the one the allow-list checked.
    let url = check_endpoint(call.endpoint)?;
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
    let mut request = Request::builder()
        .method(call.method.clone())
        .uri(&url[Position::BeforePath..Position::AfterQuery])
        .header(HOST, authority)
        .header(
            USER_AGENT,
            concat!("filebox-hub/", env!("CARGO_PKG_VERSION")),
        );
    if call.method == Method::POST {
        request = request.header(CONTENT_TYPE, "application/json");
    }
    let mut request = request
        .body(Full::new(Bytes::from(call.body)))
        .map_err(|e| format!("building the request: {e}"))?;
    for (name, value) in call.headers {
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
    let answer = read_answer(response, call.keep, call.past_keep).await;
    driver.abort();
    Ok(answer)
}

/// The status, `Location` and at most `keep` bytes of the body of `response`.
async fn read_answer(response: Response<Incoming>, keep: usize, past_keep: PastKeep) -> Answer {
    let status = response.status().as_u16();
    let location = response
        .headers()
        .get(LOCATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let mut incoming = response.into_body();
    let mut body = Vec::new();
    let mut cut = false;
    // Frame by frame, so no more than `keep` bytes (and one frame) are ever held.
    while let Some(Ok(frame)) = incoming.frame().await {
        let Ok(data) = frame.into_data() else {
            continue;
        };
        let room = keep.saturating_sub(body.len());
        if data.len() > room {
            body.extend_from_slice(&data[..room]);
            cut = true;
            if past_keep == PastKeep::Stop {
                break;
            }
        } else {
            body.extend_from_slice(&data);
        }
    }
    Answer {
        status,
        location,
        body,
        cut,
    }
}
