//! Just enough HTTP/1.1 to load the hub from benchmarks over loopback: keep-alive `POST`s of
//! JSON, and a Server-Sent Events stream read event by event. A client this small costs the
//! shared CPU little, so the figures are the hub's, not a client library's.

use std::io::{self, BufRead, BufReader, Read, Write};
use std::net::{SocketAddr, TcpStream};

/// One keep-alive connection.
pub(crate) struct Connection {
    address: SocketAddr,
    reader: BufReader<TcpStream>,
    writer: TcpStream,
}

/// A response: its status and its whole body.
pub(crate) struct Response {
    pub(crate) status: u16,
    pub(crate) body: Vec<u8>,
}

impl Connection {
    pub(crate) fn open(address: SocketAddr) -> io::Result<Connection> {
        let stream = TcpStream::connect(address)?;
        stream.set_nodelay(true)?;
        Ok(Connection {
            address,
            reader: BufReader::new(stream.try_clone()?),
            writer: stream,
        })
    }

    /// Let reads wait at most `timeout` (an event stream's reader can then look at a flag).
    pub(crate) fn read_timeout(&self, timeout: std::time::Duration) -> io::Result<()> {
        self.writer.set_read_timeout(Some(timeout))
    }

    /// `POST path` with a JSON body; the whole response.
    pub(crate) fn post_json(&mut self, path: &str, body: &[u8]) -> io::Result<Response> {
        let head = format!(
            "POST {path} HTTP/1.1\r\nHost: {}\r\nContent-Type: application/json\r\n\
             Content-Length: {}\r\n\r\n",
            self.address,
            body.len()
        );
        self.writer.write_all(&[head.as_bytes(), body].concat())?;
        let (status, framing) = read_head(&mut self.reader)?;
        let mut body = Vec::new();
        match framing {
            Framing::Length(n) => {
                body.resize(n, 0);
                self.reader.read_exact(&mut body)?;
            }
            Framing::Chunked => {
                Chunked::new(&mut self.reader).read_to_end(&mut body)?;
            }
        }
        Ok(Response { status, body })
    }

    /// `GET path` as an event stream.
    pub(crate) fn events(mut self, path: &str) -> io::Result<EventStream> {
        let head = format!(
            "GET {path} HTTP/1.1\r\nHost: {}\r\nAccept: text/event-stream\r\n\r\n",
            self.address
        );
        self.writer.write_all(head.as_bytes())?;
        let (status, framing) = read_head(&mut self.reader)?;
        if status != 200 || !matches!(framing, Framing::Chunked) {
            return Err(io::Error::other(format!(
                "GET {path} answered {status}, not a chunked 200 stream"
            )));
        }
        Ok(EventStream {
            lines: BufReader::new(Chunked::new(self.reader)),
        })
    }
}

/// How a response body is delimited.
enum Framing {
    Length(usize),
    Chunked,
}

/// The status line and headers; what delimits the body.
fn read_head(reader: &mut impl BufRead) -> io::Result<(u16, Framing)> {
    let mut line = String::new();
    reader.read_line(&mut line)?;
    let status = line
        .split_whitespace()
        .nth(1)
        .and_then(|s| s.parse().ok())
        .ok_or_else(|| io::Error::other(format!("not an HTTP status line: {line:?}")))?;
    let mut framing = Framing::Length(0);
    loop {
        line.clear();
        if reader.read_line(&mut line)? == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        let line = line.trim_end();
        if line.is_empty() {
            return Ok((status, framing));
        }
        let Some((name, value)) = line.split_once(':') else {
            continue;
        };
        let value = value.trim();
        if name.eq_ignore_ascii_case("content-length") {
            let n = value
                .parse()
                .map_err(|_| io::Error::other(format!("bad Content-Length {value:?}")))?;
            framing = Framing::Length(n);
        } else if name.eq_ignore_ascii_case("transfer-encoding")
            && value.eq_ignore_ascii_case("chunked")
        {
            framing = Framing::Chunked;
        }
    }
}

/// A chunked body as a plain reader (ends at the last chunk).
struct Chunked<R> {
    inner: R,
    /// Bytes left in the current chunk; `None` after the last chunk.
    left: Option<usize>,
}

impl<R: BufRead> Chunked<R> {
    fn new(inner: R) -> Chunked<R> {
        Chunked {
            inner,
            left: Some(0),
        }
    }
}

impl<R: BufRead> Read for Chunked<R> {
    fn read(&mut self, buf: &mut [u8]) -> io::Result<usize> {
        let Some(mut left) = self.left else {
            return Ok(0);
        };
        if left == 0 {
            let mut line = String::new();
            self.inner.read_line(&mut line)?;
            let size = line.trim_end().split(';').next().unwrap_or_default();
            left = usize::from_str_radix(size, 16)
                .map_err(|_| io::Error::other(format!("bad chunk size line {line:?}")))?;
            if left == 0 {
                self.left = None;
                return Ok(0);
            }
        }
        let want = buf.len().min(left);
        let n = self.inner.read(&mut buf[..want])?;
        if n == 0 {
            return Err(io::ErrorKind::UnexpectedEof.into());
        }
        left -= n;
        if left == 0 {
            let mut crlf = [0; 2];
            self.inner.read_exact(&mut crlf)?;
        }
        self.left = Some(left);
        Ok(n)
    }
}

/// One Server-Sent Event.
pub(crate) struct SseEvent {
    pub(crate) event: String,
    pub(crate) data: String,
}

/// A Server-Sent Events stream.
pub(crate) struct EventStream {
    lines: BufReader<Chunked<BufReader<TcpStream>>>,
}

impl EventStream {
    /// The next event (comments, such as keep-alives, are skipped).
    pub(crate) fn next_event(&mut self) -> io::Result<SseEvent> {
        let mut event = SseEvent {
            event: "message".into(),
            data: String::new(),
        };
        let mut line = String::new();
        loop {
            line.clear();
            if self.lines.read_line(&mut line)? == 0 {
                return Err(io::ErrorKind::UnexpectedEof.into());
            }
            let line = line.trim_end_matches(['\r', '\n']);
            if line.is_empty() {
                if !event.data.is_empty() {
                    return Ok(event);
                }
                continue;
            }
            let (field, value) = line.split_once(':').unwrap_or((line, ""));
            let value = value.strip_prefix(' ').unwrap_or(value);
            match field {
                "event" => event.event = value.to_owned(),
                "data" => event.data.push_str(value),
                _ => {} // id, retry, comments
            }
        }
    }
}
