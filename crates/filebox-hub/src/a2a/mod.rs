//! A2A (the Agent2Agent protocol, 1.0 and its 0.3 method names) as one more surface over the
//! verbs: every FileBox agent the hub serves is an A2A agent with a card and a JSON-RPC
//! endpoint at `/a2a/<agent>`; a message sent there is a file in the agent's inbox and the
//! task's state is the message's (`task.rs` has the table). `card.rs` the cards, `wire.rs` the
//! shapes of both dialects, `methods.rs` the calls, `stream.rs` the SSE answers driven by the
//! change feed, `push.rs` push-notification configs and their deliveries, `error.rs` A2A's error codes;
//! `outbound/` the other way: mail to an agent entry naming a remote A2A agent, handed to it.

mod card;
mod error;
mod methods;
pub(crate) mod outbound;
pub(crate) mod push;
mod stream;
mod task;
mod wire;

use axum::Router;
use axum::body::Body;
use axum::extract::{Path, State};
use axum::http::{HeaderMap, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::{get, post};
use filebox_core::AgentId;
use serde_json::{Map, Value, json};

use crate::connections::read_body;
use crate::hub::Hub;
use error::A2aError;
use methods::Cx;
use wire::Dialect;

/// Whether `remote` is an A2A agent the hub can hand mail to (`agents add --a2a` asks before
/// it writes the entry): an `http://` URL (no TLS in the hub) without a user name.
pub fn check_a2a_remote(agent: &AgentId, remote: &filebox_core::A2aRemote) -> anyhow::Result<()> {
    crate::webhook::check_endpoint(&remote.url).map_err(|why| {
        anyhow::anyhow!(
            "agent {agent}: the A2A URL {} will not do: {why} (give the remote agent's base URL, \
             http://HOST[:PORT]/PATH)",
            remote.url
        )
    })?;
    Ok(())
}

/// What a method name asks for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Method {
    Send,
    Stream,
    Get,
    List,
    Cancel,
    Subscribe,
    CreatePush,
    GetPush,
    ListPush,
    DeletePush,
    ExtendedCard,
}

/// Every method name, both dialects.
const METHODS: &[(&str, Method, Dialect)] = &[
    ("SendMessage", Method::Send, Dialect::V1),
    ("SendStreamingMessage", Method::Stream, Dialect::V1),
    ("GetTask", Method::Get, Dialect::V1),
    ("ListTasks", Method::List, Dialect::V1),
    ("CancelTask", Method::Cancel, Dialect::V1),
    ("SubscribeToTask", Method::Subscribe, Dialect::V1),
    (
        "CreateTaskPushNotificationConfig",
        Method::CreatePush,
        Dialect::V1,
    ),
    (
        "GetTaskPushNotificationConfig",
        Method::GetPush,
        Dialect::V1,
    ),
    (
        "ListTaskPushNotificationConfigs",
        Method::ListPush,
        Dialect::V1,
    ),
    (
        "DeleteTaskPushNotificationConfig",
        Method::DeletePush,
        Dialect::V1,
    ),
    ("GetExtendedAgentCard", Method::ExtendedCard, Dialect::V1),
    ("message/send", Method::Send, Dialect::V03),
    ("message/stream", Method::Stream, Dialect::V03),
    ("tasks/get", Method::Get, Dialect::V03),
    ("tasks/list", Method::List, Dialect::V03),
    ("tasks/cancel", Method::Cancel, Dialect::V03),
    ("tasks/resubscribe", Method::Subscribe, Dialect::V03),
    (
        "tasks/pushNotificationConfig/set",
        Method::CreatePush,
        Dialect::V03,
    ),
    (
        "tasks/pushNotificationConfig/get",
        Method::GetPush,
        Dialect::V03,
    ),
    (
        "tasks/pushNotificationConfig/list",
        Method::ListPush,
        Dialect::V03,
    ),
    (
        "tasks/pushNotificationConfig/delete",
        Method::DeletePush,
        Dialect::V03,
    ),
    (
        "agent/getAuthenticatedExtendedCard",
        Method::ExtendedCard,
        Dialect::V03,
    ),
];

/// The route group: the hub's card, each agent's card, each agent's endpoint.
pub(crate) fn routes(hub: &Hub) -> Router {
    Router::new()
        .route("/.well-known/agent-card.json", get(hub_card))
        .route("/a2a/{agent}/.well-known/agent-card.json", get(agent_card))
        .route("/a2a/{agent}", post(endpoint))
        .with_state(hub.clone())
}

/// `http://host:port` as the request named the hub (the guard has checked the Host header).
fn base_url(hub: &Hub, headers: &HeaderMap) -> String {
    let host = headers
        .get(header::HOST)
        .and_then(|h| h.to_str().ok())
        .map_or_else(|| hub.listen().to_string(), str::to_owned);
    format!("http://{host}")
}

async fn hub_card(State(hub): State<Hub>, headers: HeaderMap) -> Response {
    match hub.config() {
        Ok(config) => {
            axum::Json(card::hub_card(&config, &base_url(&hub, &headers))).into_response()
        }
        Err(e) => (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")).into_response(),
    }
}

async fn agent_card(
    State(hub): State<Hub>,
    Path(agent): Path<String>,
    headers: HeaderMap,
) -> Response {
    let config = match hub.config() {
        Ok(config) => config,
        Err(e) => return (StatusCode::INTERNAL_SERVER_ERROR, format!("{e}\n")).into_response(),
    };
    let card = AgentId::new(&agent)
        .ok()
        .and_then(|agent| card::agent_card(&config, &agent, &base_url(&hub, &headers)));
    match card {
        Some(card) => axum::Json(card).into_response(),
        None => (
            StatusCode::NOT_FOUND,
            format!("no A2A agent {agent:?} here: the hub's card at /.well-known/agent-card.json lists them\n"),
        )
            .into_response(),
    }
}

/// One JSON-RPC call, as parsed from the body.
struct Call {
    id: Value,
    method: Method,
    dialect: Dialect,
    params: Value,
}

/// The call in `body`, or the error to answer (with the id, when there was one).
fn parse_call(body: &[u8]) -> Result<Call, (Value, A2aError)> {
    let request: Value = serde_json::from_slice(body)
        .map_err(|e| (Value::Null, crate::rpc::RpcError::parse(e).into()))?;
    let Value::Object(mut request) = request else {
        return Err((
            Value::Null,
            A2aError::invalid_request("an A2A call is one JSON-RPC request object"),
        ));
    };
    let id = match request.remove("id") {
        Some(id @ (Value::String(_) | Value::Number(_))) => id,
        _ => {
            return Err((
                Value::Null,
                A2aError::invalid_request("\"id\" must be a string or a number"),
            ));
        }
    };
    let fail = |error| Err((id.clone(), error));
    if request.get("jsonrpc") != Some(&json!("2.0")) {
        return fail(A2aError::invalid_request(r#""jsonrpc" must be "2.0""#));
    }
    let Some(name) = request.get("method").and_then(Value::as_str) else {
        return fail(A2aError::invalid_request(r#""method" must be a string"#));
    };
    let Some((_, method, dialect)) = METHODS.iter().find(|(n, ..)| *n == name) else {
        return fail(A2aError::method_not_found(name));
    };
    let params = match request.remove("params") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(params @ Value::Object(_)) => params,
        Some(_) => return fail(A2aError::invalid_params("params", "must be an object")),
    };
    Ok(Call {
        id,
        method: *method,
        dialect: *dialect,
        params,
    })
}

async fn endpoint(
    State(hub): State<Hub>,
    Path(agent): Path<String>,
    headers: HeaderMap,
    body: Body,
) -> Response {
    let body = match read_body(body, hub.body_limit()).await {
        Ok(body) => body,
        Err(e) => {
            return answer(
                &A2aError::invalid_request(e.to_string()).answer(&Value::Null),
                false,
            );
        }
    };
    let call = match parse_call(&body) {
        Ok(call) => call,
        Err((id, error)) => return answer(&error.answer(&id), error.unauthorized),
    };
    let authorization = headers
        .get(header::AUTHORIZATION)
        .map(|v| v.to_str().unwrap_or_default().to_owned());
    if matches!(call.method, Method::Stream | Method::Subscribe) {
        return stream::answer(
            hub,
            authorization,
            agent,
            call.id,
            call.method == Method::Stream,
            call.dialect,
            call.params,
        )
        .await;
    }
    let id = call.id.clone();
    let done = tokio::task::spawn_blocking(move || {
        let cx = Cx::open(&hub, authorization.as_deref(), &agent, call.dialect)?;
        run(&cx, call.method, &call.params)
    })
    .await
    .unwrap_or_else(|panic| Err(A2aError::internal(format!("the call failed: {panic}"))));
    match done {
        Ok(result) => answer(
            &json!({ "jsonrpc": "2.0", "id": id, "result": result }),
            false,
        ),
        Err(error) => answer(&error.answer(&id), error.unauthorized),
    }
}

/// A unary method's result.
fn run(cx: &Cx, method: Method, params: &Value) -> Result<Value, A2aError> {
    let history = methods::history_length(params)?;
    let task = |task: task::Task| task.to_json(cx.dialect, history);
    match method {
        Method::Send => {
            let sent = task(push::send_keeping(cx, params)?);
            Ok(match cx.dialect {
                Dialect::V1 => json!({ "task": sent }),
                Dialect::V03 => sent,
            })
        }
        Method::Get => Ok(task(methods::get(cx, params)?)),
        Method::Cancel => Ok(task(methods::cancel(cx, params)?)),
        Method::List => methods::list(cx, params),
        Method::CreatePush => push::create(cx, params),
        Method::GetPush => push::get(cx, params),
        Method::ListPush => push::list(cx, params),
        Method::DeletePush => push::delete(cx, params),
        Method::ExtendedCard => Err(A2aError::extended_card_not_configured()),
        Method::Stream | Method::Subscribe => {
            Err(A2aError::internal("a stream is answered as SSE"))
        }
    }
}

/// A JSON-RPC answer; 401 when the caller did not prove who it is, as `/rpc` answers.
fn answer(body: &Value, unauthorized: bool) -> Response {
    let status = if unauthorized {
        StatusCode::UNAUTHORIZED
    } else {
        StatusCode::OK
    };
    (status, axum::Json(body)).into_response()
}
