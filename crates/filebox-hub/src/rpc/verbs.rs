//! Every verb of `filebox_api::verbs::TABLE` as a JSON-RPC method of its own name
//! (`list_messages`, `send_message`, ...), with the verb's own arguments plus `agent`, whom to
//! act as (default: the token's agent, else the config's current agent). The access policy
//! decides whether the caller may; the verb runs in the mailroom it gives.

use filebox_api::VerbInfo;
use filebox_core::Mailroom;
use serde_json::{Map, Value, json};

use super::{Ctx, RpcError};

/// The parameter that names the agent to act as; not one of any verb's own.
const AGENT: &str = "agent";

/// Run `verb` with `params` (its arguments and `agent`).
pub(crate) fn call(ctx: &Ctx, verb: &VerbInfo, mut params: Value) -> Result<Value, RpcError> {
    let agent = match params.as_object_mut().and_then(|p| p.remove(AGENT)) {
        None | Some(Value::Null) => None,
        Some(Value::String(agent)) => Some(agent),
        Some(_) => return Err(RpcError::invalid_params(AGENT, "must be an agent id")),
    };
    let mailroom = match agent {
        Some(agent) => ctx.act_as(&agent, AGENT)?,
        None => {
            let me = match ctx.caller.agent() {
                Some(me) => me.clone(),
                None => Mailroom::new(ctx.config.clone(), None)?.me().clone(),
            };
            ctx.caller.act_as(&ctx.config, &me)?
        }
    };
    ctx.caller.may_run(verb)?;
    let reads_as = ctx.caller.reads_as(&ctx.config, mailroom.me());
    let cx = filebox_api::VerbContext::new(&mailroom).with_receipts(reads_as);
    let reply = verb.call(&cx, params)?;
    Ok(reply.value)
}

/// The verb's params as OpenRPC describes them: its arguments' schema with `agent` added.
pub(crate) fn params_schema(verb: &VerbInfo) -> Value {
    let mut schema = verb.args_schema();
    let properties = schema
        .entry("properties")
        .or_insert_with(|| Value::Object(Map::new()));
    if let Some(properties) = properties.as_object_mut() {
        properties.insert(
            AGENT.into(),
            json!({
                "type": "string",
                "description": "The agent to act as (default: the token's, else the config's current agent)."
            }),
        );
    }
    Value::Object(schema)
}
