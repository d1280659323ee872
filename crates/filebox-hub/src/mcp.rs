//! `/mcp`: the MCP server (Streamable HTTP) of `filebox mcp`, mounted, serving the hub's
//! agent. The access policy decides at every request: a caller who may not act as that agent
//! (it has a token the request lacks, or the token is another agent's) gets 401/403, and a
//! call sees only the mailboxes the policy lets that agent look into. Its sessions end when
//! the hub shuts down.

use std::sync::Arc;

use axum::Router;
use axum::extract::{Request, State};
use axum::http::header;
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use filebox_api::access::{Caller, Denied};
use filebox_core::{AgentId, Mailroom};

use crate::hub::Hub;
use crate::refusal::refused;

/// The route group: `/mcp`, or nothing when the hub has no agent to serve it as.
pub(crate) fn routes(hub: &Hub) -> Router {
    let served = hub
        .config()
        .ok()
        .and_then(|config| Mailroom::new(config, hub.mcp_agent()).ok())
        .map(|mailroom| mailroom.me().clone());
    let Some(agent) = served else {
        return Router::new();
    };
    let source = {
        let (hub, agent) = (hub.clone(), agent.clone());
        Arc::new(move || Ok(Caller::serve(&hub.config()?, &agent)?))
    };
    // Its callers are never the owner of the files: the verbs on the host's own files are
    // not offered (`filebox_api::access::Caller::may_run`).
    filebox_mcp::http_router(
        source,
        filebox_mcp::HostFiles::Withheld,
        hub.allowed_hosts()
            .iter()
            .cloned()
            .chain([hub.listen().ip().to_string()])
            .collect(),
        hub.sessions(),
    )
    .layer(axum::middleware::from_fn_with_state(
        (hub.clone(), agent),
        require_access,
    ))
}

/// The caller may act as the served agent (the config as it is now).
async fn require_access(
    State((hub, agent)): State<(Hub, AgentId)>,
    request: Request,
    next: Next,
) -> Response {
    let authorization = request
        .headers()
        .get(header::AUTHORIZATION)
        .map(|v| v.to_str().unwrap_or_default().to_owned());
    let allowed = hub.config().map_err(Denied::Agent).and_then(|config| {
        hub.caller(&config, authorization.as_deref())?
            .check(&config, &agent)
    });
    match allowed {
        Ok(()) => next.run(request).await,
        Err(denied) => refused(&denied).into_response(),
    }
}
