//! `POST /rpc`: the body (bounded) and the bearer token (or, on the Unix socket, the calling
//! process: `Authorization: Peer`) and the page's own session (its cookie) in, the JSON-RPC
//! answer out.

use axum::body::Body;
use axum::extract::State;
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use axum::{Extension, Router};
use filebox_api::access::SocketPeer;
use serde_json::{Value, json};

use super::{Ctx, RpcError, handle_body};
use crate::connections::{BodyError, read_body};
use crate::hub::Hub;

/// The route group: `POST /rpc`.
pub(crate) fn routes(hub: &Hub) -> Router {
    Router::new()
        .route("/rpc", post(rpc))
        .with_state(hub.clone())
}

async fn rpc(
    State(hub): State<Hub>,
    peer: Option<Extension<SocketPeer>>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let limit = hub.body_limit();
    let body = match read_body(body, limit).await {
        Ok(body) => body,
        Err(error) => {
            let status = match error {
                BodyError::TooLarge(_) => StatusCode::PAYLOAD_TOO_LARGE,
                BodyError::Unread(_) => StatusCode::REQUEST_TIMEOUT,
            };
            return answer(
                status,
                error_body(RpcError::invalid_request(error.to_string())),
            );
        }
    };
    let authorization = headers
        .get(header::AUTHORIZATION)
        .map(|v| v.to_str().unwrap_or_default().to_owned());
    let page = crate::human::session::presented(&headers, hub.page_session());
    let handled = tokio::task::spawn_blocking(move || {
        let (config, settings) = hub.current()?;
        let caller = hub
            .caller_from(
                &config,
                authorization.as_deref(),
                peer.map(|Extension(peer)| peer),
                page,
            )
            .map_err(RpcError::from)?;
        let waits = hub.waits().clone();
        Ok::<_, RpcError>(handle_body(
            &Ctx {
                config,
                settings,
                caller,
                waits,
            },
            &body,
        ))
    })
    .await;
    match handled {
        Ok(Ok(Some(answer_body))) => answer(StatusCode::OK, answer_body),
        Ok(Ok(None)) => StatusCode::NO_CONTENT.into_response(),
        Ok(Err(error)) if error.is_unauthorized() => {
            answer(StatusCode::UNAUTHORIZED, error_body(error))
        }
        Ok(Err(error)) => answer(StatusCode::OK, error_body(error)),
        Err(panic) => answer(
            StatusCode::INTERNAL_SERVER_ERROR,
            error_body(RpcError::internal(format!("the request failed: {panic}"))),
        ),
    }
}

fn error_body(error: RpcError) -> Value {
    json!({ "jsonrpc": "2.0", "id": null, "error": error })
}

fn answer(status: StatusCode, body: Value) -> Response {
    (status, axum::Json(body)).into_response()
}
