//! `GET /attachments/{agent}/{id}/{name}`: a file attached to a message of `agent`'s mailbox,
//! for the page, to a caller the access policy lets act as `agent`. `POST` to the same path
//! with the form field `token` is the page's download link when it holds a token: a click
//! cannot send an `Authorization` header, and a token never goes in a URL.
//!
//! An attachment is whatever another program wrote, so every answer of this route is inert:
//! `Content-Disposition: attachment` (a file to save, never a document a tab renders),
//! `Content-Security-Policy: sandbox` (opened anyway, it has no origin and runs no script) and
//! `X-Content-Type-Options: nosniff`.

use axum::Router;
use axum::body::Bytes;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::get;
use filebox_api::access::Denied;
use filebox_core::AgentId;
use filebox_core::attachment::guess_mime;

use crate::hub::Hub;
use crate::refusal::refused;

/// The policy of everything this route answers, the file and a refusal alike.
const SANDBOX: &str = "sandbox; default-src 'none'";

/// The form field a download link's `POST` carries the page's token in.
const TOKEN_FIELD: &str = "token";

pub(super) fn routes(hub: &Hub) -> Router {
    Router::new()
        .route(
            "/attachments/{agent}/{id}/{name}",
            get(by_header).post(by_form),
        )
        .with_state(hub.clone())
}

/// Where an attachment is: the agent, the message id and the file name from the path.
type Place = (String, String, String);

async fn by_header(
    State(hub): State<Hub>,
    Path(place): Path<Place>,
    headers: HeaderMap,
) -> Response {
    let authorization = headers
        .get(header::AUTHORIZATION)
        .and_then(|v| v.to_str().ok())
        .map(str::to_owned);
    attachment(hub, place, authorization).await
}

async fn by_form(State(hub): State<Hub>, Path(place): Path<Place>, body: Bytes) -> Response {
    let authorization = url::form_urlencoded::parse(&body)
        .find(|(field, token)| field == TOKEN_FIELD && !token.is_empty())
        .map(|(_, token)| format!("Bearer {token}"));
    attachment(hub, place, authorization).await
}

async fn attachment(hub: Hub, (agent, id, name): Place, authorization: Option<String>) -> Response {
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
        Ok::<_, (StatusCode, String)>((name, bytes))
    })
    .await;
    let mut response = match read {
        Ok(Ok((name, bytes))) => {
            let mut response = ([(header::CONTENT_TYPE, guess_mime(&name))], bytes).into_response();
            // `read_attachment` served only a stored name (ASCII letters, digits, `._-`), so
            // the name needs no quoting; without it, the file is still one to save.
            let disposition = HeaderValue::from_str(&format!("attachment; filename=\"{name}\""))
                .unwrap_or(HeaderValue::from_static("attachment"));
            response
                .headers_mut()
                .insert(header::CONTENT_DISPOSITION, disposition);
            response
        }
        Ok(Err((status, message))) => (status, message).into_response(),
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, e.to_string()).into_response(),
    };
    let headers = response.headers_mut();
    headers.insert(
        header::CONTENT_SECURITY_POLICY,
        HeaderValue::from_static(SANDBOX),
    );
    headers.insert(
        header::X_CONTENT_TYPE_OPTIONS,
        HeaderValue::from_static("nosniff"),
    );
    response
}
