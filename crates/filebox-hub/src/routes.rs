//! The router: route groups composed, then the guards every route shares. A new surface (the
//! web page, Connect endpoints) adds its group to [`GROUPS`].

use axum::Router;
use axum::extract::Request;
use axum::middleware::Next;
use axum::response::Response;
use tracing::Instrument as _;

use crate::hub::Hub;
use crate::{a2a, assistant_ws, connect, events, guard, health, human, mcp, rpc};

/// A route group: the routes of one surface, with the hub as their state.
pub type RouteGroup = fn(&Hub) -> Router;

/// Every surface the hub serves.
pub const GROUPS: &[RouteGroup] = &[
    health::routes,
    rpc::http::routes,
    events::routes,
    mcp::routes,
    human::routes,
    connect::routes,
    assistant_ws::routes,
    a2a::routes,
];

/// The hub's router: `groups` merged, behind the Host/Origin check, each request in its span.
pub fn router(hub: &Hub, groups: &[RouteGroup]) -> Router {
    groups
        .iter()
        .fold(Router::new(), |router, group| router.merge(group(hub)))
        .layer(axum::middleware::from_fn_with_state(
            hub.clone(),
            guard::check,
        ))
        .layer(axum::middleware::from_fn(in_request_span))
}

/// Run a request in a `request` span (its method and path), so whatever it logs names the
/// request, and log its status. Debug level: no cost per request unless asked for.
async fn in_request_span(request: Request, next: Next) -> Response {
    let span = tracing::debug_span!(
        "request",
        method = %request.method(),
        path = %request.uri().path()
    );
    async move {
        let response = next.run(request).await;
        tracing::debug!(status = response.status().as_u16(), "answered");
        response
    }
    .instrument(span)
    .await
}
