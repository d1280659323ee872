//! The tool list and the dispatch of `tools/call`: one module per tool, each with a `NAME`,
//! a `definition()` and a `call()`. Argument structs come from `filebox_api`, so the JSON
//! Schema a model sees is the one the CLI's `--json` and the JSON-RPC API document.
//!
//! To add a tool: add a module here, list its `definition()` in [`definitions`], route its
//! `NAME` in [`call`], and update the snapshot (`UPDATE_SNAPSHOTS=1 cargo test -p filebox-mcp`).

mod fork_thread;
mod get_thread;
mod hold_message;
mod list_agents;
mod list_messages;
mod list_threads;
mod message_status;
mod outcome;
mod read_message;
mod reject_message;
mod reply_message;
mod resolve_message;
mod search_messages;
mod send_message;
mod transition;
mod wait_for_messages;

use std::sync::Arc;

use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolRequestParams, CallToolResult, JsonObject, Tool, ToolAnnotations};
use rmcp::service::{RequestContext, RoleServer};
use schemars::JsonSchema;
use serde::de::DeserializeOwned;

/// Every tool, in the order `tools/list` shows them.
pub(crate) fn definitions() -> Vec<Tool> {
    vec![
        list_messages::definition(),
        read_message::definition(),
        send_message::definition(),
        reply_message::definition(),
        resolve_message::definition(),
        reject_message::definition(),
        hold_message::definition(),
        list_agents::definition(),
        wait_for_messages::definition(),
        search_messages::definition(),
        message_status::definition(),
        list_threads::definition(),
        get_thread::definition(),
        fork_thread::definition(),
    ]
}

/// Run one `tools/call`. A malformed call (unknown tool, arguments that do not fit the schema)
/// is a protocol error; a call that ran and failed is a result with `isError`.
pub(crate) async fn call(
    mailroom: &Arc<Mailroom>,
    params: CallToolRequestParams,
    context: &RequestContext<RoleServer>,
) -> Result<CallToolResult, ErrorData> {
    let name = params.name.as_ref();
    let args = params.arguments;
    match name {
        list_messages::NAME => list_messages::call(mailroom, parse(name, args)?).await,
        read_message::NAME => read_message::call(mailroom, parse(name, args)?).await,
        send_message::NAME => send_message::call(mailroom, parse(name, args)?).await,
        reply_message::NAME => reply_message::call(mailroom, parse(name, args)?).await,
        resolve_message::NAME => resolve_message::call(mailroom, parse(name, args)?).await,
        reject_message::NAME => reject_message::call(mailroom, parse(name, args)?).await,
        hold_message::NAME => hold_message::call(mailroom, parse(name, args)?).await,
        list_agents::NAME => list_agents::call(mailroom, parse(name, args)?).await,
        wait_for_messages::NAME => {
            wait_for_messages::call(mailroom, parse(name, args)?, context).await
        }
        search_messages::NAME => search_messages::call(mailroom, parse(name, args)?).await,
        message_status::NAME => message_status::call(mailroom, parse(name, args)?).await,
        list_threads::NAME => list_threads::call(mailroom, parse(name, args)?).await,
        get_thread::NAME => get_thread::call(mailroom, parse(name, args)?).await,
        fork_thread::NAME => fork_thread::call(mailroom, parse(name, args)?).await,
        _ => Err(ErrorData::invalid_params(
            format!("unknown tool {name:?}: tools/list names the tools this server has"),
            None,
        )),
    }
}

/// What a tool does to the mailboxes, for the annotations a host shows and gates on.
#[derive(Debug, Clone, Copy)]
enum Effect {
    /// Only looks.
    ReadOnly,
    /// Adds messages; changes nothing that is there.
    Additive,
    /// Updates state without losing anything, so a second call does something else: a reply
    /// moves the message it answers on, a fork marks later messages obsolete, a wait moves
    /// the wait cursor past what it returns.
    Updates,
    /// Moves an existing message on (to done, cancel, hold); not undone by calling again.
    Changes,
}

/// A tool's definition: name, description, input schema from `Args`, output schema from
/// `Output`, and annotations from `effect`. Every FileBox tool is closed-world: it touches
/// only the configured mailboxes.
fn definition<Args, Output>(
    name: &'static str,
    title: &'static str,
    description: &'static str,
    effect: Effect,
) -> Tool
where
    Args: JsonSchema + 'static,
    Output: JsonSchema + 'static,
{
    let annotations = ToolAnnotations::with_title(title).open_world(false);
    let annotations = match effect {
        Effect::ReadOnly => annotations.read_only(true),
        Effect::Additive => annotations.read_only(false).destructive(false),
        Effect::Updates => annotations
            .read_only(false)
            .destructive(false)
            .idempotent(false),
        Effect::Changes => annotations
            .read_only(false)
            .destructive(true)
            .idempotent(false),
    };
    // `with_input_schema` rejects a schema whose root is not an object; every `Args` is a
    // struct, and the tool-list snapshot test builds each definition.
    Tool::new(name, description, JsonObject::new())
        .with_input_schema::<Args>()
        .with_title(title)
        .with_output_schema::<Output>()
        .annotate(annotations)
}

fn parse<T: DeserializeOwned>(tool: &str, args: Option<JsonObject>) -> Result<T, ErrorData> {
    let value = serde_json::Value::Object(args.unwrap_or_default());
    serde_json::from_value(value)
        .map_err(|e| ErrorData::invalid_params(format!("invalid arguments for {tool}: {e}"), None))
}
