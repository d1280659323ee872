//! `/mcp`: the MCP server (Streamable HTTP) of `filebox mcp`, mounted, serving the hub's
//! agent. When that agent has a token, every MCP request must carry it. Its sessions end when
//! the hub shuts down.

use axum::Router;
use axum::extract::{Request, State};
use axum::http::{StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Response};
use filebox_core::Mailroom;

use crate::auth::Caller;
use crate::hub::Hub;

/// The route group: `/mcp`, or nothing when the hub has no agent to serve it as.
pub(crate) fn routes(hub: &Hub) -> Router {
    let mailroom = hub
        .config()
        .ok()
        .and_then(|config| Mailroom::new(config, hub.mcp_agent()).ok());
    let Some(mailroom) = mailroom else {
        return Router::new();
    };
    let agent = mailroom.me().as_str().to_owned();
    filebox_mcp::http_router(
        mailroom,
        hub.allowed_hosts()
            .iter()
            .cloned()
            .chain([hub.listen().ip().to_string()])
            .collect(),
        hub.sessions(),
    )
    .layer(axum::middleware::from_fn_with_state(
        (hub.clone(), agent),
        require_token,
    ))
}

/// The served agent's token, when it has one (the config as it is now).
async fn require_token(
    State((hub, agent)): State<(Hub, String)>,
    request: Request,
    next: Next,
) -> Response {
    let authorization = request
        .headers()
        .get(header::AUTHORIZATION)
        .map(|v| v.to_str().unwrap_or_default().to_owned());
    let allowed = hub.config().map_err(|e| e.to_string()).and_then(|config| {
        let caller =
            Caller::from_authorization(&config, authorization.as_deref()).map_err(|e| e.message)?;
        caller
            .act_as(&config, &agent, "agent")
            .map(|_| ())
            .map_err(|e| e.message)
    });
    match allowed {
        Ok(()) => next.run(request).await,
        Err(reason) => (StatusCode::UNAUTHORIZED, reason).into_response(),
    }
}
