//! JSON-RPC 2.0: one request or a batch in, responses out, each call dispatched through the
//! method table ([`methods`]). The same function serves `POST /rpc` and the Unix socket.

mod casing;
mod discover;
mod error;
pub(crate) mod http;
mod methods;
mod verbs;

use filebox_api::access::Caller;
use filebox_core::{AgentId, Config, Mailroom};
use serde_json::{Map, Value, json};

pub(crate) use error::RpcError;
pub(crate) use methods::{ALIASES, METHODS};

/// What a handler knows about its call: the config as read for this request, and who calls.
#[derive(Debug)]
pub(crate) struct Ctx {
    pub(crate) config: Config,
    pub(crate) caller: Caller,
}

impl Ctx {
    /// The mailroom of the agent named by the params' `field`, as the access policy allows.
    pub(crate) fn act_as(&self, agent: &str, field: &str) -> Result<Mailroom, RpcError> {
        let agent = AgentId::new(agent).map_err(|e| RpcError::invalid_params(field, e))?;
        Ok(self.caller.act_as(&self.config, &agent)?)
    }
}

/// Answer a request body: `None` when it held only notifications (nothing to send back).
/// Blocking (mailbox I/O): run it where blocking is allowed.
pub(crate) fn handle_body(ctx: &Ctx, body: &[u8]) -> Option<Value> {
    let request: Value = match serde_json::from_slice(body) {
        Ok(value) => value,
        Err(e) => return Some(response(Value::Null, Err(RpcError::parse(e)))),
    };
    match request {
        Value::Array(calls) if calls.is_empty() => Some(response(
            Value::Null,
            Err(RpcError::invalid_request("an empty batch")),
        )),
        Value::Array(calls) => {
            let answers: Vec<Value> = calls
                .into_iter()
                .filter_map(|c| handle_one(ctx, c))
                .collect();
            (!answers.is_empty()).then_some(Value::Array(answers))
        }
        call => handle_one(ctx, call),
    }
}

/// One call; `None` for a notification (no `id`), which is still carried out.
fn handle_one(ctx: &Ctx, call: Value) -> Option<Value> {
    let Value::Object(mut call) = call else {
        return Some(response(
            Value::Null,
            Err(RpcError::invalid_request("a request must be an object")),
        ));
    };
    let id = call.remove("id");
    if let Some(bad) = id
        .as_ref()
        .filter(|id| !matches!(id, Value::String(_) | Value::Number(_) | Value::Null))
    {
        let reason = format!("id must be a string, a number or null, not {bad}");
        return Some(response(
            Value::Null,
            Err(RpcError::invalid_request(reason)),
        ));
    }
    let result = parse_call(&mut call).and_then(|(method, params)| dispatch(ctx, &method, params));
    id.map(|id| response(id, result))
}

fn parse_call(call: &mut Map<String, Value>) -> Result<(String, Value), RpcError> {
    if call.get("jsonrpc") != Some(&Value::String("2.0".into())) {
        return Err(RpcError::invalid_request(r#""jsonrpc" must be "2.0""#));
    }
    let method = match call.remove("method") {
        Some(Value::String(method)) => method,
        _ => return Err(RpcError::invalid_request(r#""method" must be a string"#)),
    };
    let params = match call.remove("params") {
        None | Some(Value::Null) => Value::Object(Map::new()),
        Some(params @ Value::Object(_)) => params,
        Some(_) => {
            return Err(RpcError::invalid_params(
                "params",
                "must be an object (parameters by name)",
            ));
        }
    };
    Ok((method, params))
}

/// Run a method by name: a verb of the table by its own name or an alias, or a method of
/// [`METHODS`].
pub(crate) fn dispatch(ctx: &Ctx, method: &str, params: Value) -> Result<Value, RpcError> {
    let verb_name = ALIASES
        .iter()
        .find(|(alias, _)| *alias == method)
        .map_or(method, |(_, verb)| verb);
    if let Some(verb) = filebox_api::verbs::find(verb_name) {
        return verbs::call(ctx, verb, params);
    }
    let method = METHODS
        .iter()
        .find(|m| m.name == method)
        .ok_or_else(|| RpcError::method_not_found(method))?;
    (method.call)(ctx, params)
}

fn response(id: Value, result: Result<Value, RpcError>) -> Value {
    match result {
        Ok(result) => json!({ "jsonrpc": "2.0", "id": id, "result": result }),
        Err(error) => json!({ "jsonrpc": "2.0", "id": id, "error": error }),
    }
}

/// Params as the method's type; a mismatch names the field (`filebox_api::decode`).
pub(crate) fn params<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    filebox_api::decode(params).map_err(|e| RpcError::invalid_params(&e.field, e.reason))
}
