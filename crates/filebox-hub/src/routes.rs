//! The router: route groups composed, then the guards every route shares. A new surface (the
//! web page, Connect endpoints) adds its group to [`GROUPS`].

use axum::Router;

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

/// The hub's router: `groups` merged, behind the Host/Origin check.
pub fn router(hub: &Hub, groups: &[RouteGroup]) -> Router {
    groups
        .iter()
        .fold(Router::new(), |router, group| router.merge(group(hub)))
        .layer(axum::middleware::from_fn_with_state(
            hub.clone(),
            guard::check,
        ))
}
