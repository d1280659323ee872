//! The tool list and the dispatch of `tools/call`, both generated from `filebox_api`'s verb
//! table: a tool is a verb offered to models, its schemas and annotations are the verb's, and
//! a call runs the verb on a blocking thread. Adding a verb to the table adds the tool; update
//! the snapshot (`UPDATE_SNAPSHOTS=1 cargo test -p filebox-mcp`).

mod answer;
pub(crate) mod call;
mod host_form;
mod outcome;
mod progress;

use std::sync::Arc;

use filebox_api::{Effect, VerbInfo, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CallToolResponse, Tool, ToolAnnotations};
use rmcp::service::{RequestContext, RoleServer};

use crate::tasks::{self, Tasks};
use call::Call;
use host_form::HostForm;
use outcome::Shape;

/// Whether a server offers the verbs that work on the host's own files outside the mailboxes
/// (Claude Code's team inboxes): a server the files' owner runs does (stdio, `filebox mcp
/// --listen`); the hub's `/mcp`, whose callers are not the owner, withholds them
/// (`filebox_api::access::Caller::may_run`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum HostFiles {
    Offered,
    Withheld,
}

/// Every tool, in the order `tools/list` shows them.
pub(crate) fn definitions(host_files: HostFiles) -> Vec<Tool> {
    offered(host_files).map(definition).collect()
}

/// The verbs MCP offers to models.
pub(crate) fn offered(host_files: HostFiles) -> impl Iterator<Item = &'static VerbInfo> {
    verbs::TABLE.iter().filter(move |verb| {
        verb.for_models && (host_files == HostFiles::Offered || !verb.uses_host_files())
    })
}

/// A verb as a tool: name, title, description, schemas, and annotations from its effect.
/// Every FileBox tool is closed-world: it touches only local files (the configured mailboxes,
/// Claude Code's team inboxes).
fn definition(verb: &VerbInfo) -> Tool {
    let annotations = ToolAnnotations::with_title(verb.title).open_world(false);
    let annotations = match verb.effect {
        Effect::ReadOnly => annotations.read_only(true),
        Effect::Additive => annotations.read_only(false).destructive(false),
        Effect::Updating => annotations
            .read_only(false)
            .destructive(false)
            .idempotent(false),
        Effect::Destructive => annotations
            .read_only(false)
            .destructive(true)
            .idempotent(false),
    };
    let tool = Tool::new(verb.name, verb.description, Arc::new(verb.args_schema()))
        .with_title(verb.title)
        .annotate(annotations);
    match Shape::of(verb) {
        Shape::Structured => tool.with_raw_output_schema(Arc::new(verb.output_schema())),
        Shape::TextOnly => tool,
    }
}

/// Run one `tools/call`. An unknown tool is a protocol error; arguments that do not fit the
/// schema, and a call that ran and failed, are results with `isError`. A long wait becomes a
/// task for a client that declared the tasks extension (`crate::tasks`); otherwise the call
/// runs on a blocking thread, sees the request's cancellation, and reports progress while it
/// lasts.
pub(crate) async fn call(
    mailroom: &Arc<Mailroom>,
    host_files: HostFiles,
    tasks: &Tasks,
    params: CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResponse, ErrorData> {
    let name = params.name.as_ref();
    let verb = offered(host_files)
        .find(|verb| verb.name == name)
        .ok_or_else(|| {
            ErrorData::invalid_params(
                format!("unknown tool {name:?}: tools/list names the tools this server has"),
                None,
            )
        })?;
    // The client's name, which a question to a human shows: from `initialize`, or (in the
    // stateless lifecycle, which has none) from the request's `_meta` client info.
    let client = context
        .peer
        .peer_info()
        .map(|info| info.client_info.name.clone())
        .or_else(|| context.meta.client_info().map(|info| info.name));
    let call = Call {
        mailroom: Arc::clone(mailroom),
        verb,
        args: serde_json::Value::Object(params.arguments.clone().unwrap_or_default()),
        client,
        // The blocking call checks the request's token (a wait every few tens of
        // milliseconds), so a `notifications/cancelled` (or the session ending) frees its
        // thread promptly.
        cancel: context.ct.clone(),
    };
    let declared_tasks = context
        .client_capabilities()
        .is_some_and(|capabilities| capabilities.supports_tasks());
    if declared_tasks && tasks::runs_as_task(verb) {
        return tasks.start(call).await;
    }
    match host_form::host_form(verb, context) {
        Some(HostForm::Request) => return host_form::ask_with_request(call, context).await,
        Some(HostForm::InputRequired) => {
            return host_form::ask_with_input_required(
                call,
                params.request_state,
                params.input_responses,
                context,
            )
            .await;
        }
        None => {}
    }
    let total = call.args.get("timeout").and_then(serde_json::Value::as_f64);
    let work = call.spawn();
    outcome::respond(
        Shape::of(verb),
        progress::report_while(work, context, total).await,
    )
    .map(Into::into)
}
