//! The tool list and the dispatch of `tools/call`, both generated from `filebox_api`'s verb
//! table: a tool is a verb offered to models, its schemas and annotations are the verb's, and
//! a call runs the verb on a blocking thread. Adding a verb to the table adds the tool; update
//! the snapshot (`UPDATE_SNAPSHOTS=1 cargo test -p filebox-mcp`).

mod answer;
mod host_form;
mod outcome;
mod progress;

use std::sync::Arc;
use std::time::{Duration, Instant};

use filebox_api::{CallError, Effect, Reply, VerbInfo, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Tool, ToolAnnotations,
};
use rmcp::service::{RequestContext, RoleServer};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use crate::tasks::{self, Tasks};
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

/// One verb call with its JSON arguments, as the client made it.
#[derive(Clone)]
pub(crate) struct Call {
    pub(crate) mailroom: Arc<Mailroom>,
    pub(crate) verb: &'static VerbInfo,
    pub(crate) args: serde_json::Value,
    client: Option<String>,
    cancel: CancellationToken,
}

impl Call {
    /// A call the server makes itself (a task's poll): no client, never cancelled.
    pub(crate) fn internal(
        mailroom: Arc<Mailroom>,
        verb: &'static VerbInfo,
        args: serde_json::Value,
    ) -> Call {
        Call {
            mailroom,
            verb,
            args,
            client: None,
            cancel: CancellationToken::new(),
        }
    }

    /// The same call waiting `secs` at most.
    pub(crate) fn with_timeout(mut self, secs: u64) -> Call {
        if let Some(args) = self.args.as_object_mut() {
            args.insert("timeout".into(), secs.into());
        }
        self
    }

    /// Run it to its tool result, without progress.
    pub(crate) async fn run(self) -> Result<CallToolResult, ErrorData> {
        outcome::respond(Shape::of(self.verb), self.spawn().await)
    }

    /// Wait for the answer to question `id` this call asked at `asked`, as the call itself
    /// would have (its timeout, its cancellation).
    fn wait_for_answer(self, id: String, asked: Instant) -> JoinHandle<Replied> {
        let Call {
            mailroom,
            args,
            cancel,
            ..
        } = self;
        let timeout = args.get("timeout").and_then(serde_json::Value::as_u64);
        tokio::task::spawn_blocking(move || {
            let cancelled = || cancel.is_cancelled();
            let cx = filebox_api::VerbContext::with_cancel(&mailroom, &cancelled);
            with_attachments(&mailroom, verbs::wait_for_answer(&cx, &id, asked, timeout))
        })
    }

    fn spawn(self) -> JoinHandle<Replied> {
        let Call {
            mailroom,
            verb,
            args,
            client,
            cancel,
        } = self;
        tokio::task::spawn_blocking(move || {
            let cancelled = || cancel.is_cancelled();
            let cx = filebox_api::VerbContext::with_cancel(&mailroom, &cancelled)
                .with_client(client.as_deref());
            with_attachments(&mailroom, verb.call(&cx, args))
        })
    }
}

/// A question's answer or state, looked at once, as the tool result its asking call gives
/// (`filebox_api::verbs::look_for_answer`).
pub(crate) async fn look_for_answer(
    mailroom: Arc<Mailroom>,
    id: String,
    waited: Duration,
) -> Result<CallToolResult, ErrorData> {
    let looked = tokio::task::spawn_blocking(move || {
        let cx = filebox_api::VerbContext::new(&mailroom);
        with_attachments(&mailroom, verbs::look_for_answer(&cx, &id, waited))
    });
    // Every verb that asks a question answers with its structure (the task reads its status).
    outcome::respond(Shape::Structured, looked.await)
}

/// A verb's reply, with the content blocks of the files of the answer it carries.
type Replied = (Result<Reply, CallError>, Vec<ContentBlock>);

/// A verb's reply with the content blocks of the answer's files it carries.
fn with_attachments(mailroom: &Mailroom, reply: Result<Reply, CallError>) -> Replied {
    let attached = match &reply {
        Ok(reply) => answer::attachments(mailroom, &reply.value),
        Err(_) => Vec::new(),
    };
    (reply, attached)
}

/// The id of the question a call just asked, while it is open (its result otherwise).
pub(crate) fn open_question(result: &CallToolResult) -> Option<String> {
    let value = result.structured_content.as_ref()?;
    (value["status"] == "open").then(|| value["id"].as_str().map(str::to_owned))?
}
