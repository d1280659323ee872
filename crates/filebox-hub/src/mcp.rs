//! `/mcp`: the MCP server (Streamable HTTP) of `filebox mcp`, mounted, serving the hub's
//! agent. The access policy decides at every request: a caller who may not act as that agent
//! (it has a token the request lacks, or the token is another agent's) gets 401/403, and a
//! call sees only the mailboxes the policy lets that agent look into. A call of a tool that
//! waits takes a slot of the hub's waiting calls (`hub.max_waiting_calls`, shared with
//! JSON-RPC and Connect) for as long as its answer is open. Its sessions end when the hub
//! shuts down.

use std::sync::Arc;

use axum::Router;
use axum::body::Body;
use axum::extract::{Request, State};
use axum::http::{Method, StatusCode, header};
use axum::middleware::Next;
use axum::response::{IntoResponse, Json, Response};
use filebox_api::access::{Caller, Denied};
use filebox_core::{AgentId, Mailroom};
use http_body_util::BodyExt;
use serde_json::{Value, json};

use crate::connections::{BodyError, read_body};
use crate::hub::Hub;
use crate::refusal::refused;
use crate::rpc::RpcError;

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
        filebox_mcp::Browsers {
            hosts: hub
                .allowed_hosts()
                .iter()
                .cloned()
                .chain([hub.listen().ip().to_string()])
                .collect(),
            origins: filebox_mcp::own_origins(hub.listen(), hub.allowed_hosts()),
        },
        hub.sessions(),
    )
    .layer(axum::middleware::from_fn_with_state(
        hub.clone(),
        count_waiting,
    ))
    .layer(axum::middleware::from_fn_with_state(
        (hub.clone(), agent),
        require_access,
    ))
}

/// A `tools/call` of a tool that waits holds a slot of the hub's waiting calls until its
/// answer (a JSON body or an event stream) is dropped; at the bound it is answered at once
/// with the JSON-RPC error `busy`, as on `/rpc`.
async fn count_waiting(State(hub): State<Hub>, request: Request, next: Next) -> Response {
    if request.method() != Method::POST {
        return next.run(request).await;
    }
    let (parts, body) = request.into_parts();
    let bytes = match read_body(body, hub.body_limit()).await {
        Ok(bytes) => bytes,
        Err(error @ BodyError::TooLarge(_)) => {
            return (StatusCode::PAYLOAD_TOO_LARGE, error.to_string()).into_response();
        }
        Err(error) => return (StatusCode::REQUEST_TIMEOUT, error.to_string()).into_response(),
    };
    let waiting = waiting_call(&bytes);
    let request = Request::from_parts(parts, Body::from(bytes));
    let Some(id) = waiting else {
        return next.run(request).await;
    };
    match hub.waits().enter() {
        Ok(slot) => next.run(request).await.map(|body| {
            // The slot goes back when the answer's body is dropped: sent whole, or the
            // client gone.
            Body::new(body.map_frame(move |frame| {
                let _held = &slot;
                frame
            }))
        }),
        Err(full) => Json(json!({ "jsonrpc": "2.0", "id": id, "error": RpcError::busy(full) }))
            .into_response(),
    }
}

/// The id of a JSON-RPC `tools/call` of a verb that waits, if `body` is one.
fn waiting_call(body: &[u8]) -> Option<Value> {
    let call: Value = serde_json::from_slice(body).ok()?;
    let tool = call
        .get("method")
        .filter(|method| *method == "tools/call")
        .and_then(|_| call.pointer("/params/name"))
        .and_then(Value::as_str)?;
    let waits = filebox_api::verbs::TABLE
        .iter()
        .any(|verb| verb.name == tool && verb.waits);
    waits.then(|| call.get("id").cloned().unwrap_or(Value::Null))
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
