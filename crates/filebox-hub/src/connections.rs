//! Serving connections, on the TCP listener and the Unix socket alike: HTTP/1.1 by hyper with
//! a timer, so a client that sends half a header, drips a body or stops reading its answer is
//! closed instead of holding a connection (and a file descriptor) forever, and at most
//! `max_connections` served at once per listener (the next one waits in the listen backlog
//! until one closes). The bounds are the config's `hub` section (`settings.rs`). A request that
//! came over the Unix socket carries who sent it, as the kernel says ([`SocketPeer`], a request
//! extension), for the access policy.

use std::future::Future;
use std::io;
use std::pin::Pin;
use std::sync::Arc;
use std::task::{Context, Poll};
use std::time::Duration;

use axum::Router;
use axum::body::{Body, HttpBody};
use axum::extract::Request;
use axum::serve::Listener;
use filebox_api::access::SocketPeer;
use hyper::body::{Frame, Incoming};
use hyper_util::rt::{TokioIo, TokioTimer};
use hyper_util::service::TowerToHyperService;
use tokio::io::{AsyncRead, AsyncWrite, ReadBuf};
use tokio::sync::Semaphore;
use tokio::time::Sleep;

use crate::settings::HubSection;

/// How connections are served.
#[derive(Debug, Clone)]
pub(crate) struct ConnectionSettings {
    /// A whole request header must arrive within this, counted from the moment the
    /// connection is ready for one (so it also closes a kept-alive connection left idle).
    header_read_timeout: Duration,
    /// A body that brings no byte, or an answer the client takes no byte of, for this long
    /// closes the connection.
    idle_timeout: Duration,
    /// Connections served at once on one listener.
    max_connections: usize,
}

impl ConnectionSettings {
    pub(crate) fn of(section: &HubSection) -> ConnectionSettings {
        ConnectionSettings {
            header_read_timeout: Duration::from_secs(section.header_read_timeout_secs),
            idle_timeout: Duration::from_secs(section.idle_timeout_secs),
            max_connections: section.max_connections,
        }
    }
}

/// Serve `router` on `listener` until `stop` completes; then accept no more, let every
/// connection finish the request it is answering, and return once they all closed.
pub(crate) async fn serve<L>(
    mut listener: L,
    router: Router,
    settings: &ConnectionSettings,
    stop: impl Future<Output = ()>,
) where
    L: Listener,
    L::Io: Peer,
{
    let idle = settings.idle_timeout;
    let router =
        router.layer(axum::middleware::map_request(
            move |request: Request| async move {
                request.map(|body| Body::new(Patient::new(body, idle)))
            },
        ));
    let service = TowerToHyperService::new(router);
    let mut http = hyper::server::conn::http1::Builder::new();
    http.timer(TokioTimer::new())
        .header_read_timeout(settings.header_read_timeout);
    let slots = Arc::new(Semaphore::new(settings.max_connections));
    // Told to every connection at the stop: it finishes the request it is answering, then
    // closes.
    let stopping = tokio_util::sync::CancellationToken::new();
    tokio::pin!(stop);
    loop {
        // The slot first: at the cap, connections wait in the kernel's backlog, unaccepted.
        let slot = tokio::select! {
            () = &mut stop => break,
            slot = Arc::clone(&slots).acquire_owned() => slot,
        };
        // The semaphore is never closed.
        let Ok(slot) = slot else { break };
        let (io, _) = tokio::select! {
            () = &mut stop => break,
            accepted = listener.accept() => accepted,
        };
        let peer = io.peer();
        let io = TokioIo::new(Watched {
            io,
            stall: Stall::new(idle),
        });
        let service = service.clone();
        let service = hyper::service::service_fn(move |mut request: Request<Incoming>| {
            if let Some(peer) = peer {
                request.extensions_mut().insert(peer);
            }
            hyper::service::Service::call(&service, request)
        });
        // With upgrades, for the WebSocket at `/ws`: an upgraded connection leaves this one
        // (and its slot); the WebSocket session is bounded by the hub's stream bound and ends
        // with the hub's sessions.
        let connection = http.serve_connection(io, service).with_upgrades();
        let stopping = stopping.clone();
        tokio::spawn(async move {
            tokio::pin!(connection);
            // A connection's end (a timeout, a reset) concerns that client alone.
            tokio::select! {
                _ = connection.as_mut() => {}
                () = stopping.cancelled() => {
                    connection.as_mut().graceful_shutdown();
                    let _ = connection.await;
                }
            }
            drop(slot);
        });
    }
    drop(listener);
    stopping.cancel();
    // Every slot back: every connection has closed.
    let all = u32::try_from(settings.max_connections).unwrap_or(u32::MAX);
    let _ = slots.acquire_many(all).await;
}

/// Who is at the other end of a connection, when the kernel can say.
pub(crate) trait Peer {
    fn peer(&self) -> Option<SocketPeer>;
}

impl Peer for tokio::net::TcpStream {
    fn peer(&self) -> Option<SocketPeer> {
        None
    }
}

impl Peer for tokio::net::UnixStream {
    /// `SO_PEERCRED`: the user of the process that connected, beside the hub's own. Unknown
    /// (`None`) if the kernel does not answer: the caller is then known by its token alone.
    fn peer(&self) -> Option<SocketPeer> {
        let credentials = self.peer_cred().ok()?;
        Some(SocketPeer {
            uid: credentials.uid(),
            server_uid: rustix::process::geteuid().as_raw(),
        })
    }
}

/// Whether an operation that keeps returning `Pending` has made no progress for too long.
struct Stall {
    idle: Duration,
    since: Option<Pin<Box<Sleep>>>,
}

impl Stall {
    fn new(idle: Duration) -> Stall {
        Stall { idle, since: None }
    }

    /// `polled` as is, except a `Pending` that has lasted `idle` becomes a timeout error.
    fn check<T>(
        &mut self,
        cx: &mut Context<'_>,
        polled: Poll<T>,
        what: &str,
    ) -> Poll<Result<T, io::Error>> {
        match polled {
            Poll::Ready(value) => {
                self.since = None;
                Poll::Ready(Ok(value))
            }
            Poll::Pending => {
                let idle = self.idle;
                let since = self
                    .since
                    .get_or_insert_with(|| Box::pin(tokio::time::sleep(idle)));
                match since.as_mut().poll(cx) {
                    Poll::Ready(()) => Poll::Ready(Err(io::Error::new(
                        io::ErrorKind::TimedOut,
                        format!("{what} for {} s: the connection is closed", idle.as_secs()),
                    ))),
                    Poll::Pending => Poll::Pending,
                }
            }
        }
    }
}

/// A connection whose writes fail once the client has taken nothing for the idle timeout.
/// Reads are not watched here: between requests hyper's header timeout does, and within a
/// request the body does ([`Patient`]); a request being worked on reads nothing, rightly.
struct Watched<T> {
    io: T,
    stall: Stall,
}

const NOT_READING: &str = "the client took no byte of its answer";

impl<T: AsyncRead + Unpin> AsyncRead for Watched<T> {
    fn poll_read(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &mut ReadBuf<'_>,
    ) -> Poll<io::Result<()>> {
        Pin::new(&mut self.io).poll_read(cx, buf)
    }
}

impl<T: AsyncWrite + Unpin> AsyncWrite for Watched<T> {
    fn poll_write(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
        buf: &[u8],
    ) -> Poll<io::Result<usize>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.io).poll_write(cx, buf);
        this.stall
            .check(cx, polled, NOT_READING)
            .map(Result::flatten)
    }

    fn poll_flush(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.io).poll_flush(cx);
        this.stall
            .check(cx, polled, NOT_READING)
            .map(Result::flatten)
    }

    fn poll_shutdown(mut self: Pin<&mut Self>, cx: &mut Context<'_>) -> Poll<io::Result<()>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.io).poll_shutdown(cx);
        this.stall
            .check(cx, polled, NOT_READING)
            .map(Result::flatten)
    }
}

/// A request body that fails once no byte of it has arrived for the idle timeout, so a
/// handler reading it is not held forever by a client that sent a length and stopped.
struct Patient {
    body: Body,
    stall: Stall,
}

impl Patient {
    fn new(body: Body, idle: Duration) -> Patient {
        Patient {
            body,
            stall: Stall::new(idle),
        }
    }
}

impl HttpBody for Patient {
    type Data = axum::body::Bytes;
    type Error = axum::Error;

    fn poll_frame(
        mut self: Pin<&mut Self>,
        cx: &mut Context<'_>,
    ) -> Poll<Option<Result<Frame<Self::Data>, Self::Error>>> {
        let this = &mut *self;
        let polled = Pin::new(&mut this.body).poll_frame(cx);
        match this
            .stall
            .check(cx, polled, "no byte of the request body came")
        {
            Poll::Ready(Ok(frame)) => Poll::Ready(frame),
            Poll::Ready(Err(stalled)) => Poll::Ready(Some(Err(axum::Error::new(stalled)))),
            Poll::Pending => Poll::Pending,
        }
    }

    fn is_end_stream(&self) -> bool {
        self.body.is_end_stream()
    }

    fn size_hint(&self) -> hyper::body::SizeHint {
        self.body.size_hint()
    }
}

/// Why a request body could not be read.
#[derive(Debug)]
pub(crate) enum BodyError {
    /// Over the hub's body limit, in bytes.
    TooLarge(usize),
    /// The client stopped sending it, or the connection failed.
    Unread(String),
}

impl std::fmt::Display for BodyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        match self {
            BodyError::TooLarge(limit) => write!(f, "the request body is over {limit} bytes"),
            BodyError::Unread(why) => write!(f, "reading the request body: {why}"),
        }
    }
}

/// A request body whole, at most `limit` bytes.
pub(crate) async fn read_body(body: Body, limit: usize) -> Result<axum::body::Bytes, BodyError> {
    axum::body::to_bytes(body, limit).await.map_err(|e| {
        let too_large = std::error::Error::source(&e)
            .is_some_and(|source| source.is::<http_body_util::LengthLimitError>());
        match too_large {
            true => BodyError::TooLarge(limit),
            false => BodyError::Unread(e.to_string()),
        }
    })
}
