//! `ask_question`'s second answer path: where the client can show a form (elicitation), the
//! question is also asked in the host's own UI. It is asked once, in the files, and the first
//! answer wins wherever it is given: one in the host is written as the human's reply
//! (`verbs::answer_in_host`), one on the page (or the CLI, or `/ws`) ends the wait, and the
//! host's form is withdrawn (`notifications/cancelled`) or, on a retry, refused as answered.
//! Either way the tool result is the question's reply in the files.
//!
//! In a session (2025-06-18, 2025-11-25) the form is an `elicitation/create` request sent while
//! the call waits; on 2026-07-28 (no requests from the server) the call answers at once with an
//! `InputRequiredResult` carrying the form and the question's id as `requestState`, and the
//! client's retry brings the form's answer.

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Instant;

use filebox_api::Verb;
use filebox_api::verbs::{self, AskQuestion};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolResponse, CancelledNotificationParam, ElicitRequest, ElicitRequestParams, ElicitResult,
    ElicitationAction, ElicitationSchema, InputRequest, InputRequiredResult, InputResponses,
    ProtocolVersion, ServerRequest,
};
use rmcp::service::{PeerRequestOptions, RequestContext, RoleServer};
use serde_json::Value;

use super::call::{Call, open_question};
use super::outcome::Shape;
use super::{outcome, progress};

/// The key of the form in an `InputRequiredResult` and its retry.
const FORM: &str = "answer";

/// How a client takes the host's form, if it does.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum HostForm {
    /// An `elicitation/create` request while the call waits (a session).
    Request,
    /// An `InputRequiredResult`, answered by a retry (2026-07-28).
    InputRequired,
}

/// Whether a call of `verb` also asks in the host's form, and how.
pub(super) fn host_form(
    verb: &filebox_api::VerbInfo,
    context: &RequestContext<RoleServer>,
) -> Option<HostForm> {
    if verb.name != AskQuestion::NAME {
        return None;
    }
    let capabilities = context.client_capabilities()?.elicitation?;
    // A client that names no mode takes forms (the capability as 2025-06-18 wrote it).
    if capabilities.form.is_none() && capabilities.url.is_some() {
        return None;
    }
    let stateless = context
        .protocol_version()
        .is_some_and(|v| v.as_str() >= ProtocolVersion::V_2026_07_28.as_str());
    Some(if stateless {
        HostForm::InputRequired
    } else {
        HostForm::Request
    })
}

/// A session's call: ask, then wait for the answer while the host's form is open; the first
/// answer is the result.
pub(super) async fn ask_with_request(
    call: Call,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let asked = Instant::now();
    let question = call.args["question"]
        .as_str()
        .unwrap_or_default()
        .to_owned();
    let looked = call.clone().with_timeout(0).run().await?;
    let Some(id) = open_question(&looked) else {
        return Ok(looked.into());
    };
    let total = call.args.get("timeout").and_then(Value::as_f64);
    let mailroom = Arc::clone(&call.mailroom);
    let wait = progress::report_while(call.wait_for_answer(id.clone(), asked), context, total);
    tokio::pin!(wait);
    let form = context
        .peer
        .send_cancellable_request(
            ServerRequest::ElicitRequest(ElicitRequest::new(form(&question)?)),
            PeerRequestOptions::no_options(),
        )
        .await;
    let Ok(form) = form else {
        return outcome::respond(Shape::Structured, wait.await).map(Into::into);
    };
    let (peer, form_id) = (form.peer.clone(), form.id.clone());
    tokio::select! {
        waited = &mut wait => {
            // Answered elsewhere first (or the wait ended): the host's form is withdrawn.
            let reason = "the question was answered elsewhere, or its wait ended".to_owned();
            let _ = peer
                .notify_cancelled(CancelledNotificationParam::new(Some(form_id), Some(reason)))
                .await;
            outcome::respond(Shape::Structured, waited).map(Into::into)
        }
        filled = form.await_response() => {
            if let Ok(rmcp::model::ClientResult::ElicitResult(filled)) = filled {
                answer(mailroom, id, &filled).await?;
            }
            outcome::respond(Shape::Structured, wait.await).map(Into::into)
        }
    }
}

/// A 2026-07-28 call: the first asks and returns the form; the retry records the form's answer
/// (unless another came first) and waits for the question's reply.
pub(super) async fn ask_with_input_required(
    call: Call,
    request_state: Option<String>,
    responses: Option<InputResponses>,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let Some(id) = request_state else {
        let question = call.args["question"]
            .as_str()
            .unwrap_or_default()
            .to_owned();
        let looked = call.with_timeout(0).run().await?;
        let Some(id) = open_question(&looked) else {
            return Ok(looked.into());
        };
        let requests = BTreeMap::from([(
            FORM.to_owned(),
            InputRequest::Elicitation(ElicitRequest::new(form(&question)?)),
        )]);
        return Ok(InputRequiredResult::new(Some(requests), Some(id)).into());
    };
    let filled = responses
        .and_then(|mut responses| responses.remove(FORM))
        .and_then(|value| serde_json::from_value::<ElicitResult>(value).ok());
    if let Some(filled) = filled {
        answer(Arc::clone(&call.mailroom), id.clone(), &filled).await?;
    }
    let total = call.args.get("timeout").and_then(Value::as_f64);
    let wait = call.wait_for_answer(id, Instant::now());
    outcome::respond(
        Shape::Structured,
        progress::report_while(wait, context, total).await,
    )
    .map(Into::into)
}

/// The form: the question, and one text field for the answer.
fn form(question: &str) -> Result<ElicitRequestParams, ErrorData> {
    let schema = ElicitationSchema::builder()
        .required_string_with(FORM, |field| field.description("Your answer"))
        .build()
        .map_err(|e| ErrorData::internal_error(format!("the answer form: {e}"), None))?;
    Ok(ElicitRequestParams::FormElicitationParams {
        meta: None,
        message: question.to_owned(),
        requested_schema: schema,
    })
}

/// Record the form's answer as the human's reply, when the person filled it in. Another
/// answer that came first wins: this one is then dropped, and the wait returns that one.
async fn answer(
    mailroom: Arc<Mailroom>,
    id: String,
    filled: &ElicitResult,
) -> Result<(), ErrorData> {
    if filled.action != ElicitationAction::Accept {
        return Ok(());
    }
    let Some(text) = filled
        .content
        .as_ref()
        .and_then(|content| content[FORM].as_str())
        .map(str::to_owned)
    else {
        return Ok(());
    };
    let recorded =
        tokio::task::spawn_blocking(move || verbs::answer_in_host(&mailroom, &id, &text)).await;
    match recorded {
        Ok(Ok(())) | Ok(Err(filebox_core::Error::AlreadyHandled { .. })) => Ok(()),
        Ok(Err(error)) => Err(ErrorData::internal_error(
            format!("the answer given in the host could not be recorded: {error}"),
            None,
        )),
        Err(error) => Err(ErrorData::internal_error(
            format!("a mailbox task failed: {error}"),
            None,
        )),
    }
}
