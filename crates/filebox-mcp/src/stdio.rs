//! `filebox mcp`: the server over stdin/stdout (stdout carries only protocol messages), or over
//! any other byte-stream transport (an in-memory pipe in tests).

use std::sync::Arc;

use anyhow::Context;
use filebox_core::Mailroom;
use rmcp::transport::IntoTransport;
use rmcp::{RoleServer, ServiceExt};

use crate::channel::{Channel, ChannelMode};
use crate::server::{FileboxServer, fixed};
use crate::tasks::Tasks;
use crate::tools::HostFiles;

/// Serve MCP on stdin/stdout until the client closes the connection, acting as `mailroom`'s
/// agent and looking into what the access policy lets it; a Claude Code channel pushing mail
/// as `channel` says (`crate::channel`).
pub async fn serve_stdio(mailroom: Mailroom, channel: ChannelMode) -> anyhow::Result<()> {
    serve_transport(mailroom, channel, rmcp::transport::stdio()).await
}

/// Serve one MCP session on `transport` (for example one end of `tokio::io::duplex`) until the
/// client closes it. When it ends, the permission prompts still waiting are withdrawn.
pub async fn serve_transport<T, E, A>(
    mailroom: Mailroom,
    channel: ChannelMode,
    transport: T,
) -> anyhow::Result<()>
where
    T: IntoTransport<RoleServer, E, A>,
    E: std::error::Error + Send + Sync + 'static,
{
    tracing::debug!(agent = %mailroom.me(), ?channel, "MCP session starting");
    let channel = Arc::new(Channel::new(channel));
    let server = FileboxServer::new(fixed(mailroom)?, HostFiles::Offered, Tasks::default())
        .with_channel(Arc::clone(&channel));
    let running = server
        .serve(transport)
        .await
        .context("starting the MCP session")?;
    let served = running.waiting().await.context("serving MCP");
    channel.end().await;
    tracing::debug!("MCP session ended");
    served?;
    Ok(())
}
