//! `GET /healthz`: 200 when the hub can read its config and every long-lived task (the event
//! follower, webhooks, runners, bridges, federation) is up and doing all of its work; else 503
//! and, one per line, what is wrong: a hub that answers but no longer sees the mailboxes, or a
//! bridge that refuses a team's inbox, is not healthy.

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
    let mut problems: Vec<String> = hub
        .tasks()
        .down()
        .into_iter()
        .map(|(task, error)| format!("{task} is down (retrying): {error}"))
        .chain(
            hub.tasks()
                .degraded()
                .into_iter()
                .map(|(task, why)| format!("{task} runs, but: {why}")),
        )
        .collect();
    if let Err(e) = hub.config() {
        problems.insert(0, e.to_string());
    }
    if problems.is_empty() {
        (StatusCode::OK, "ok\n".into())
    } else {
        (StatusCode::SERVICE_UNAVAILABLE, problems.join("\n") + "\n")
    }
}
