//! The procedures and the Connect unary protocol around them: the codec from
//! `Content-Type`, identity encoding only, `Connect-Timeout-Ms` bounding the wait, the caller
//! from `UserToken` (else `Authorization: Bearer`), the verb run on a blocking thread. Every
//! request's body is read before it is answered, errors included (an unknown procedure, a
//! wrong content type): a client still sending when the answer comes would see its
//! connection cut instead of the error.
//!
//! Who asks: the agent of the token; without one, the agent the hub serves (`filebox serve
//! --agent`, else the config's current agent, as `/mcp`), if that agent has no token. A client that hangs up
//! withdraws its question (as a cancelled MCP call does); a hub that stops leaves it open.

use std::future::Future;
use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use axum::Router;
use axum::body::{Body, Bytes};
use axum::extract::State;
use axum::http::{HeaderMap, HeaderName, HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use axum::routing::post;
use filebox_api::access::Caller;
use filebox_api::verbs::{AskQuestion, TaskFinish};
use filebox_api::{AskArgs, QuestionResult, ReportArgs, Verb, VerbContext};
use filebox_core::client_info::ClientInfo;
use filebox_core::{AskedBy, Mailroom};
use serde::Serialize;
use serde::de::DeserializeOwned;

use super::answer;
use super::codec::{ACCEPTED, Codec};
use super::error::{Code, ConnectError};
use super::proto::{
    AnswerResponse, AskQuestionRequest, McpAskQuestionRequest, McpClientInfoRequest,
    McpClientInfoResponse, McpTaskFinishRequest, TaskFinishRequest,
};
use crate::connections::{BodyError, read_body};
use crate::hub::Hub;

/// The service's path prefix.
const SERVICE: &str = "/agentassistproto.SrvAgentAssist";

/// The route group: `POST /agentassistproto.SrvAgentAssist/{AskQuestion,TaskFinish,WorkReport,
/// SendMcpClientInfo}`; any other procedure of the service is `unimplemented`.
pub(crate) fn routes(hub: &Hub) -> Router {
    let at = |procedure: &str| format!("{SERVICE}/{procedure}");
    Router::new()
        .route(&at("AskQuestion"), post(unary::<AskQuestionRequest>))
        // `WorkReport` is the origin's newer name of `TaskFinish`: the same messages.
        .route(&at("TaskFinish"), post(unary::<TaskFinishRequest>))
        .route(&at("WorkReport"), post(unary::<TaskFinishRequest>))
        .route(
            &at("SendMcpClientInfo"),
            post(unary::<McpClientInfoRequest>),
        )
        .route(&at("{procedure}"), post(unknown_procedure))
        .with_state(hub.clone())
}

/// The client name a question records when it came over Connect and the client did not say.
const CLIENT: &str = "connect";

/// A request message of this service and how the hub answers it.
trait Procedure: prost::Message + Default + DeserializeOwned + Send + 'static {
    type Response: prost::Message + Serialize;
    fn answer(
        self,
        hub: Hub,
        headers: HeaderMap,
    ) -> impl Future<Output = Result<Self::Response, ConnectError>> + Send;
}

/// A request that asks the human and waits: `AskQuestion`, `TaskFinish` / `WorkReport`.
trait Question: Send + 'static {
    fn id(&self) -> &str;
    fn user_token(&self) -> &str;
    /// The timeout the request asks for (0: the default).
    fn timeout(&self) -> i32;
    /// The MCP client the asking agent runs in, if the request says.
    fn mcp_client_name(&self) -> &str;
    fn asked_by(&self) -> AskedBy;
    /// Run the verb; `timeout` is the wait in seconds, `None` for the default.
    fn run(
        self,
        cx: &VerbContext<'_>,
        timeout: Option<u64>,
    ) -> Result<QuestionResult, ConnectError>;
}

/// The accessors of a question request: both carry `ID`, `UserToken`, `Timestamp` and a
/// `Request` with `Timeout`, `AgentName`, `ReasoningModelName` and `McpClientName`, under the
/// same names.
macro_rules! question_accessors {
    () => {
        fn id(&self) -> &str {
            &self.id
        }
        fn user_token(&self) -> &str {
            &self.user_token
        }
        fn timeout(&self) -> i32 {
            self.request.as_ref().map_or(0, |r| r.timeout)
        }
        fn mcp_client_name(&self) -> &str {
            self.request.as_ref().map_or("", |r| &r.mcp_client_name)
        }
        fn asked_by(&self) -> AskedBy {
            let said = |value: &str| Some(value.trim().to_owned()).filter(|v| !v.is_empty());
            AskedBy {
                agent_name: self.request.as_ref().and_then(|r| said(&r.agent_name)),
                reasoning_model: self
                    .request
                    .as_ref()
                    .and_then(|r| said(&r.reasoning_model_name)),
                sent_at: filebox_core::time::from_unix(self.timestamp),
            }
        }
    };
}

impl Question for AskQuestionRequest {
    question_accessors!();
    fn run(
        self,
        cx: &VerbContext<'_>,
        timeout: Option<u64>,
    ) -> Result<QuestionResult, ConnectError> {
        let McpAskQuestionRequest {
            project_directory,
            question,
            ..
        } = self.request.ok_or_else(|| missing("Request"))?;
        let args = AskArgs {
            project_directory,
            question,
            timeout,
            options: None,
        };
        Ok(AskQuestion::run(cx, args)?.value)
    }
}

impl Question for TaskFinishRequest {
    question_accessors!();
    fn run(
        self,
        cx: &VerbContext<'_>,
        timeout: Option<u64>,
    ) -> Result<QuestionResult, ConnectError> {
        let McpTaskFinishRequest {
            project_directory,
            summary,
            ..
        } = self.request.ok_or_else(|| missing("Request"))?;
        let args = ReportArgs {
            project_directory,
            summary,
            timeout,
        };
        Ok(TaskFinish::run(cx, args)?.value)
    }
}

impl Procedure for AskQuestionRequest {
    type Response = AnswerResponse;
    fn answer(
        self,
        hub: Hub,
        headers: HeaderMap,
    ) -> impl Future<Output = Result<AnswerResponse, ConnectError>> + Send {
        wait_for_answer(hub, headers, self)
    }
}

impl Procedure for TaskFinishRequest {
    type Response = AnswerResponse;
    fn answer(
        self,
        hub: Hub,
        headers: HeaderMap,
    ) -> impl Future<Output = Result<AnswerResponse, ConnectError>> + Send {
        wait_for_answer(hub, headers, self)
    }
}

/// `SendMcpClientInfo`: recorded with the asking agent, so its later questions name the client.
impl Procedure for McpClientInfoRequest {
    type Response = McpClientInfoResponse;
    async fn answer(
        self,
        hub: Hub,
        headers: HeaderMap,
    ) -> Result<McpClientInfoResponse, ConnectError> {
        let data = self.request.ok_or_else(|| missing("Request"))?;
        let info = ClientInfo {
            name: data.client_name,
            version: data.client_version,
            protocol_version: data.protocol_version,
        };
        let token = Some(self.user_token).filter(|t| !t.is_empty());
        let authorization = authorization(&headers);
        let recorded = tokio::task::spawn_blocking(move || {
            let mailroom = asker(&hub, token.as_deref(), authorization.as_deref())?;
            mailroom.record_client_info(&info)?;
            Ok::<_, ConnectError>(())
        });
        recorded
            .await
            .map_err(|e| ConnectError::new(Code::Internal, format!("the call failed: {e}")))??;
        Ok(McpClientInfoResponse { success: true })
    }
}

fn missing(field: &str) -> ConnectError {
    ConnectError::new(Code::InvalidArgument, format!("{field} is missing"))
}

async fn unary<P: Procedure>(State(hub): State<Hub>, headers: HeaderMap, body: Body) -> Response {
    let content_type = headers
        .get(header::CONTENT_TYPE)
        .and_then(|v| v.to_str().ok())
        .unwrap_or_default();
    let body = read_request(&hub, body).await;
    let Some(codec) = Codec::of_content_type(content_type) else {
        return unsupported_media_type(content_type);
    };
    let answered = async {
        check_protocol(&headers)?;
        let request: P = codec.decode(&body?)?;
        request.answer(hub, headers.clone()).await
    };
    match answered.await {
        Ok(response) => (
            StatusCode::OK,
            [(header::CONTENT_TYPE, codec.content_type())],
            codec.encode(&response),
        )
            .into_response(),
        Err(error) => error.into_response(),
    }
}

/// A procedure this service does not have: `unimplemented` (HTTP 404), once its body is read.
async fn unknown_procedure(
    State(hub): State<Hub>,
    axum::extract::Path(procedure): axum::extract::Path<String>,
    body: Body,
) -> Response {
    let _ = read_request(&hub, body).await;
    ConnectError::new(
        Code::Unimplemented,
        format!(
            "{SERVICE}/{procedure} is not a procedure of this hub: it serves AskQuestion, \
             TaskFinish, WorkReport and SendMcpClientInfo"
        ),
    )
    .into_response()
}

/// The request body, read whole (bounded by the hub's body limit).
async fn read_request(hub: &Hub, body: Body) -> Result<Bytes, ConnectError> {
    read_body(body, hub.body_limit()).await.map_err(|error| {
        let code = match error {
            BodyError::TooLarge(_) => Code::ResourceExhausted,
            BodyError::Unread(_) => Code::InvalidArgument,
        };
        ConnectError::new(code, error.to_string())
    })
}

/// HTTP 415 with `Accept-Post`, as the protocol asks, and a Connect error body saying why.
fn unsupported_media_type(content_type: &str) -> Response {
    let error = ConnectError::new(
        Code::InvalidArgument,
        format!("Content-Type {content_type:?} is not one of {ACCEPTED}"),
    );
    let mut response = error.into_response();
    *response.status_mut() = StatusCode::UNSUPPORTED_MEDIA_TYPE;
    response.headers_mut().insert(
        HeaderName::from_static("accept-post"),
        HeaderValue::from_static(ACCEPTED),
    );
    response
}

fn authorization(headers: &HeaderMap) -> Option<String> {
    headers
        .get(header::AUTHORIZATION)
        .map(|v| v.to_str().unwrap_or_default().to_owned())
}

/// Ask as the request's agent and wait for the answer on a blocking thread.
async fn wait_for_answer<Q: Question>(
    hub: Hub,
    headers: HeaderMap,
    request: Q,
) -> Result<AnswerResponse, ConnectError> {
    let deadline_secs = connect_timeout_secs(&headers)?;
    let timeout = wait_secs(request.timeout(), deadline_secs)?;
    let token = Some(request.user_token().to_owned()).filter(|t| !t.is_empty());
    let authorization = authorization(&headers);

    // Each call waits for an answer on a blocking thread: at the bound, refused.
    let slot = hub
        .waits()
        .enter()
        .map_err(|full| ConnectError::new(Code::ResourceExhausted, full.to_string()))?;
    let hung_up = HangUp::default();
    let cancelled = hung_up.flag();
    let stop = hub.sessions();
    let stopping = stop.clone();
    let served = hub.clone();
    let task = tokio::task::spawn_blocking(move || {
        let mailroom = asker(&served, token.as_deref(), authorization.as_deref())?;
        let client = client_label(&mailroom, request.mcp_client_name());
        let asked_by = request.asked_by();
        let cancelled = || cancelled.load(Ordering::Relaxed);
        let stopping = || stopping.is_cancelled();
        let cx = VerbContext::with_cancel(&mailroom, &cancelled)
            .with_stopping(&stopping)
            .with_client(Some(&client))
            .with_asked_by(&asked_by);
        let id = request.id().to_owned();
        let result = request.run(&cx, timeout)?;
        drop(slot);
        Ok::<_, ConnectError>(answer::response(&mailroom, id, &result))
    });
    let joined = task.await;
    // The call ran to its end: nothing to withdraw, whatever happens to the connection now.
    hung_up.disarm();
    joined.map_err(|e| ConnectError::new(Code::Internal, format!("the call failed: {e}")))?
}

/// How a question names the program that asks: the client the agent recorded
/// (`SendMcpClientInfo`: name, version, protocol) when the request names no other one, else
/// the request's `McpClientName`, else "connect".
fn client_label(mailroom: &Mailroom, named: &str) -> String {
    let named = named.trim();
    match mailroom.client_info() {
        Some(info) if named.is_empty() || info.name.trim().eq_ignore_ascii_case(named) => {
            info.label()
        }
        _ if !named.is_empty() => named.to_owned(),
        _ => CLIENT.to_owned(),
    }
}

/// `Connect-Protocol-Version`, when sent, must be 1; only the identity encoding is spoken.
fn check_protocol(headers: &HeaderMap) -> Result<(), ConnectError> {
    if let Some(version) = headers.get("connect-protocol-version")
        && version.as_bytes() != b"1"
    {
        return Err(ConnectError::new(
            Code::InvalidArgument,
            "Connect-Protocol-Version must be 1",
        ));
    }
    if let Some(encoding) = headers.get(header::CONTENT_ENCODING)
        && !encoding.as_bytes().eq_ignore_ascii_case(b"identity")
    {
        return Err(ConnectError::new(
            Code::Unimplemented,
            "only the identity Content-Encoding is supported: send the body uncompressed",
        ));
    }
    Ok(())
}

/// The client's deadline (`Connect-Timeout-Ms`) in whole seconds, if it sent one.
fn connect_timeout_secs(headers: &HeaderMap) -> Result<Option<u64>, ConnectError> {
    let Some(value) = headers.get("connect-timeout-ms") else {
        return Ok(None);
    };
    let ms: u64 = value
        .to_str()
        .ok()
        .filter(|v| (1..=10).contains(&v.len()))
        .and_then(|v| v.parse().ok())
        .ok_or_else(|| {
            ConnectError::new(
                Code::InvalidArgument,
                "Connect-Timeout-Ms must be a positive integer of at most 10 digits",
            )
        })?;
    Ok(Some(ms / 1000))
}

/// How long the verb waits: the request's `Timeout` (0 for the default), no longer than the
/// client's own deadline, so the client gets the "still open" result rather than giving up.
fn wait_secs(requested: i32, deadline_secs: Option<u64>) -> Result<Option<u64>, ConnectError> {
    let requested = match requested {
        0 => None,
        n => Some(u64::try_from(n).map_err(|_| {
            ConnectError::new(
                Code::InvalidArgument,
                format!("Request.Timeout must not be negative (got {n})"),
            )
        })?),
    };
    Ok(match (requested, deadline_secs) {
        (_, None) => requested,
        (None, Some(deadline)) => Some(deadline.min(filebox_api::verbs::DEFAULT_TIMEOUT_SECS)),
        (Some(asked), Some(deadline)) => Some(asked.min(deadline)),
    })
}

/// The mailroom of the agent that asks: the token's (`UserToken`, else the `Authorization`
/// header's), else the hub's own agent.
fn asker(
    hub: &Hub,
    user_token: Option<&str>,
    authorization: Option<&str>,
) -> Result<Mailroom, ConnectError> {
    let config = hub.config()?;
    let caller = match user_token {
        Some(token) => Caller::from_token(&config, token)?,
        None => hub.caller(&config, authorization)?,
    };
    let agent = match caller.agent() {
        Some(agent) => agent.clone(),
        None => Mailroom::new(config.clone(), hub.mcp_agent())?.me().clone(),
    };
    Ok(caller.act_as(&config, &agent)?)
}

/// Set when the handler is dropped before the call ended: the client hung up.
#[derive(Debug, Default)]
struct HangUp {
    flag: Arc<AtomicBool>,
    disarmed: bool,
}

impl HangUp {
    fn flag(&self) -> Arc<AtomicBool> {
        Arc::clone(&self.flag)
    }

    fn disarm(mut self) {
        self.disarmed = true;
    }
}

impl Drop for HangUp {
    fn drop(&mut self) {
        if !self.disarmed {
            self.flag.store(true, Ordering::Relaxed);
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_wait_is_the_request_timeout_bounded_by_the_client_deadline() {
        assert_eq!(wait_secs(0, None).unwrap(), None);
        assert_eq!(wait_secs(30, None).unwrap(), Some(30));
        assert_eq!(wait_secs(30, Some(5)).unwrap(), Some(5));
        assert_eq!(wait_secs(3, Some(5)).unwrap(), Some(3));
        assert_eq!(wait_secs(0, Some(5)).unwrap(), Some(5));
        assert_eq!(wait_secs(0, Some(100_000)).unwrap(), Some(600));
        assert_eq!(wait_secs(-1, None).unwrap_err().code, Code::InvalidArgument);
    }

    #[test]
    fn connect_headers_are_checked() {
        let mut headers = HeaderMap::new();
        assert_eq!(connect_timeout_secs(&headers).unwrap(), None);
        headers.insert("connect-timeout-ms", HeaderValue::from_static("2500"));
        assert_eq!(connect_timeout_secs(&headers).unwrap(), Some(2));
        headers.insert("connect-timeout-ms", HeaderValue::from_static("-1"));
        assert!(connect_timeout_secs(&headers).is_err());
        headers.insert(
            "connect-timeout-ms",
            HeaderValue::from_static("12345678901"),
        );
        assert!(connect_timeout_secs(&headers).is_err());

        assert!(check_protocol(&HeaderMap::new()).is_ok());
        let mut headers = HeaderMap::new();
        headers.insert("connect-protocol-version", HeaderValue::from_static("2"));
        assert_eq!(
            check_protocol(&headers).unwrap_err().code,
            Code::InvalidArgument
        );
        let mut headers = HeaderMap::new();
        headers.insert(header::CONTENT_ENCODING, HeaderValue::from_static("gzip"));
        assert_eq!(
            check_protocol(&headers).unwrap_err().code,
            Code::Unimplemented
        );
    }
}
