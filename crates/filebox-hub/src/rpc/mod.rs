//! JSON-RPC 2.0: one request or a batch in, responses out, each call dispatched through the
//! method table ([`methods`]). The same function serves `POST /rpc` and the Unix socket.
//!
//! A batch is bounded twice, so one small body cannot make the hub build a huge answer: at
//! most [`MAX_BATCH_CALLS`] calls, and once the answers reach [`MAX_ANSWER_BYTES`] the calls
//! left are not run and each answers [`RpcError::answer_too_large`].

mod call;
mod casing;
mod discover;
mod error;
pub(crate) mod http;
mod methods;
mod verbs;

use serde_json::{Map, Value, json};

pub(crate) use call::Ctx;
pub(crate) use error::RpcError;

use self::methods::{ALIASES, METHODS};

/// The most calls one batch may hold; a longer batch is refused whole, before any call runs.
pub(crate) const MAX_BATCH_CALLS: usize = 100;
/// Once a batch's answers add up to this many bytes (as JSON), its remaining calls are not
/// run. The call that crosses the bound keeps its answer, so any single call still works.
pub(crate) const MAX_ANSWER_BYTES: usize = 2 << 20;

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
        Value::Array(calls) if calls.len() > MAX_BATCH_CALLS => Some(response(
            Value::Null,
            Err(RpcError::invalid_request(format!(
                "a batch of {} calls: at most {MAX_BATCH_CALLS} are taken at once, send the rest \
                 in further batches (none of these was run)",
                calls.len()
            ))),
        )),
        Value::Array(calls) => handle_batch(ctx, calls),
        call => handle_one(ctx, call),
    }
}

/// The calls of a batch in order, until the answers reach [`MAX_ANSWER_BYTES`]; every call
/// after that answers an error without being run (a notification among them is dropped).
fn handle_batch(ctx: &Ctx, calls: Vec<Value>) -> Option<Value> {
    let mut answers = Vec::new();
    let mut size = 0;
    for call in calls {
        if size >= MAX_ANSWER_BYTES {
            if let Some(id) = call_id(&call) {
                answers.push(response(
                    id,
                    Err(RpcError::answer_too_large(MAX_ANSWER_BYTES)),
                ));
            }
            continue;
        }
        if let Some(answer) = handle_one(ctx, call) {
            size += json_size(&answer);
            answers.push(answer);
        }
    }
    (!answers.is_empty()).then_some(Value::Array(answers))
}

/// The id an answer to `call` carries, `None` for a notification (as [`handle_one`] decides).
fn call_id(call: &Value) -> Option<Value> {
    match call {
        Value::Object(call) => match call.get("id")? {
            id @ (Value::String(_) | Value::Number(_) | Value::Null) => Some(id.clone()),
            _ => Some(Value::Null),
        },
        _ => Some(Value::Null),
    }
}

/// How many bytes `value` takes as compact JSON, counted without building the text.
fn json_size(value: &Value) -> usize {
    struct Counter(usize);
    impl std::io::Write for Counter {
        fn write(&mut self, bytes: &[u8]) -> std::io::Result<usize> {
            self.0 += bytes.len();
            Ok(bytes.len())
        }
        fn flush(&mut self) -> std::io::Result<()> {
            Ok(())
        }
    }
    let mut counter = Counter(0);
    // Writing a `Value` into a sink that never fails cannot fail.
    let _ = serde_json::to_writer(&mut counter, value);
    counter.0
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

/// Run a method by name: a verb of the table by its own name or an alias, a method of
/// [`METHODS`], or `rpc.discover`.
pub(crate) fn dispatch(ctx: &Ctx, method: &str, params: Value) -> Result<Value, RpcError> {
    let verb_name = ALIASES
        .iter()
        .find(|(alias, _)| *alias == method)
        .map_or(method, |(_, verb)| verb);
    if let Some(verb) = filebox_api::verbs::find(verb_name) {
        // A verb that waits holds a blocking thread until it returns: at the bound, refused.
        let _slot = match verb.waits {
            true => Some(ctx.waits.enter().map_err(RpcError::busy)?),
            false => None,
        };
        return verbs::call(ctx, verb, params);
    }
    if method == discover::NAME {
        return discover::handler(call::params(params)?);
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
