//! `filebox mcp`: the server over stdin/stdout. Stdout carries only protocol messages.

use std::sync::Arc;

use anyhow::Context;
use filebox_core::Mailroom;
use rmcp::ServiceExt;

use crate::server::FileboxServer;

/// Serve MCP on stdin/stdout until the client closes the connection.
pub async fn serve_stdio(mailroom: Mailroom) -> anyhow::Result<()> {
    let server = FileboxServer::new(Arc::new(mailroom));
    let running = server
        .serve(rmcp::transport::stdio())
        .await
        .context("starting the MCP session on stdio")?;
    running.waiting().await.context("serving MCP on stdio")?;
    Ok(())
}
