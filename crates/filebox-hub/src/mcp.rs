//! `/mcp`: the MCP server (Streamable HTTP) of `filebox mcp`, mounted, serving the hub's
//! agent. Its sessions end when the hub shuts down.

use axum::Router;
use filebox_core::Mailroom;

use crate::hub::Hub;

/// The route group: `/mcp`, or nothing when the hub has no agent to serve it as.
pub(crate) fn routes(hub: &Hub) -> Router {
    let mailroom = hub
        .config()
        .ok()
        .and_then(|config| Mailroom::new(config, hub.mcp_agent()).ok());
    match mailroom {
        Some(mailroom) => filebox_mcp::http_router(
            mailroom,
            hub.allowed_hosts()
                .iter()
                .cloned()
                .chain([hub.listen().ip().to_string()])
                .collect(),
            hub.sessions(),
        ),
        None => Router::new(),
    }
}
