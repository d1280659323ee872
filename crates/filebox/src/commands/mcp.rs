//! `filebox mcp`: the MCP server, over stdio or Streamable HTTP.

use anyhow::Context;

use super::acting::mailroom;
use crate::cli::{Global, McpArgs};
use crate::output::Outcome;

pub(crate) fn run(global: &Global, args: &McpArgs) -> anyhow::Result<Outcome> {
    // Before anything else: no token protects this server yet, so it stays on this machine.
    if let Some(addr) = &args.listen {
        filebox_mcp::check_listen_address(addr)?;
    }
    let mailroom = mailroom(global)?;
    // A session lasts as long as its host: keep the indexes' caches small, as the hub does.
    filebox_core::index::keep_caches_small();
    let runtime = tokio::runtime::Builder::new_multi_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    runtime.block_on(async {
        match &args.listen {
            None => {
                let channel = if args.channel {
                    filebox_mcp::ChannelMode::Always
                } else {
                    filebox_mcp::ChannelMode::WhenDeclared
                };
                filebox_mcp::serve_stdio(mailroom, channel).await
            }
            Some(addr) => {
                let listener = tokio::net::TcpListener::bind(addr)
                    .await
                    .with_context(|| format!("cannot listen on {addr}"))?;
                eprintln!("filebox: MCP at http://{}/mcp", listener.local_addr()?);
                let shutdown = async {
                    let _ = tokio::signal::ctrl_c().await;
                };
                filebox_mcp::serve_http(mailroom, listener, args.allow_hosts.clone(), shutdown)
                    .await
            }
        }
    })?;
    Ok(Outcome::Success)
}
