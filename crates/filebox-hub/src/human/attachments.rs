//! `GET /attachments/{agent}/{id}/{name}`: a file attached to a message of `agent`'s mailbox,
//! for the page to show, to a caller the access policy lets act as `agent`; served sandboxed so an attached SVG or HTML file cannot run script.

use axum::Router;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use filebox_api::access::Denied;
use filebox_core::AgentId;
use filebox_core::attachment::guess_mime;

use crate::hub::Hub;
use crate::refusal::refused;

pub(super) fn routes(hub: &Hub) -> Router {
    Router::new()
        .route("/attachments/{agent}/{id}/{name}", get(attachment))
        .with_state(hub.clone())
}

async fn attachment(
    State(hub): State<Hub>,
    Path((agent, id, name)): Path<(String, String, String)>,
    headers: HeaderMap,
) -> Response {
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    let read = tokio::task::spawn_blocking(move || {
        let config = hub
            .config()
            .map_err(|e| (StatusCode::SERVICE_UNAVAILABLE, e.to_string()))?;
        let mailroom = AgentId::new(&agent)
            .map_err(Denied::Agent)
            .and_then(|agent| {
                hub.caller(&config, authorization.as_deref())?
                    .act_as(&config, &agent)
            })
            .map_err(|denied| refused(&denied))?;
        let bytes = mailroom
            .mailbox_to_read(mailroom.me())
            .and_then(|mailbox| mailbox.read_attachment(&id, &name))
            .map_err(|e| (StatusCode::NOT_FOUND, e.to_string()))?;
        Ok::<_, (StatusCode, String)>((guess_mime(&name), bytes))
    })
    .await;
    match read {
        Ok(Ok((mime, bytes))) => (
            [
                (header::CONTENT_TYPE, mime),
                (
                    header::CONTENT_SECURITY_POLICY,
                    "sandbox; default-src 'none'",
                ),
                (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            ],
            bytes,
        )
            .into_response(),
        Ok(Err((status, message))) => (status, message).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    }
}
