//! `GET /healthz`: the hub answers and can read its config.

use axum::Router;
use axum::extract::State;
use axum::http::StatusCode;
use axum::routing::get;

use crate::hub::Hub;

/// The route group: `GET /healthz`.
pub(crate) fn routes(hub: &Hub) -> Router {
    Router::new()
        .route("/healthz", get(healthz))
        .with_state(hub.clone())
}

async fn healthz(State(hub): State<Hub>) -> (StatusCode, String) {
    match hub.config() {
        Ok(_) => (StatusCode::OK, "ok\n".into()),
        Err(e) => (StatusCode::SERVICE_UNAVAILABLE, format!("{e}\n")),
    }
}
