//! `filebox mcp`: the server over stdin/stdout (stdout carries only protocol messages), or over
//! any other byte-stream transport (an in-memory pipe in tests).

use anyhow::Context;
use filebox_core::Mailroom;
use rmcp::transport::IntoTransport;
use rmcp::{RoleServer, ServiceExt};

use crate::server::{FileboxServer, fixed};
use crate::tasks::Tasks;
use crate::tools::HostFiles;

/// Serve MCP on stdin/stdout until the client closes the connection, acting as `mailroom`'s
/// agent and looking into what the access policy lets it.
pub async fn serve_stdio(mailroom: Mailroom) -> anyhow::Result<()> {
    serve_transport(mailroom, rmcp::transport::stdio()).await
}

/// Serve one MCP session on `transport` (for example one end of `tokio::io::duplex`) until the
/// client closes it.
pub async fn serve_transport<T, E, A>(mailroom: Mailroom, transport: T) -> anyhow::Result<()>
where
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    let server = FileboxServer::new(fixed(mailroom)?, HostFiles::Offered, Tasks::default());
    let running = server
        .serve(transport)
        .await
        .context("starting the MCP session")?;
    running.waiting().await.context("serving MCP")?;
    Ok(())
}
