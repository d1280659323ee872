//! One casing on the wire for the `email.*` family: its params and `AgentEmail` are camelCase,
//! so the verb views it also answers with (threads, a thread, search hits, agents, a status's
//! recipients) are written camelCase too, and so are their schemas in `rpc.discover`. The verbs
//! called by their own names keep the verbs' snake_case, as MCP and `--json` show them.

use serde_json::{Map, Value};

/// `last_activity` → `lastActivity`; a name without `_` is left as it is.
fn camel(name: &str) -> String {
    let mut out = String::with_capacity(name.len());
    let mut upper = false;
    for c in name.chars() {
        match c {
            '_' if !out.is_empty() => upper = true,
            c if upper => {
                out.extend(c.to_uppercase());
                upper = false;
            }
            c => out.push(c),
        }
    }
    out
}

/// A value with every object key in camelCase.
pub(crate) fn camel_case(value: Value) -> Value {
    match value {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| (camel(&key), camel_case(value)))
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(camel_case).collect()),
        other => other,
    }
}

/// A JSON Schema whose property names (and the `required` lists naming them) are camelCase.
pub(crate) fn camel_case_schema(schema: Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| {
                    let value = match key.as_str() {
                        "properties" => camel_case_properties(value),
                        "required" => camel_case_names(value),
                        _ => camel_case_schema(value),
                    };
                    (key, value)
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(camel_case_schema).collect()),
        other => other,
    }
}

fn camel_case_properties(properties: Value) -> Value {
    match properties {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(name, schema)| (camel(&name), camel_case_schema(schema)))
                .collect::<Map<_, _>>(),
        ),
        other => camel_case_schema(other),
    }
}

fn camel_case_names(names: Value) -> Value {
    match names {
        Value::Array(names) => Value::Array(
            names
                .into_iter()
                .map(|name| match name {
                    Value::String(name) => Value::String(camel(&name)),
                    other => other,
                })
                .collect(),
        ),
        other => other,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn keys_and_property_names_become_camel_case() {
        assert_eq!(camel("last_activity"), "lastActivity");
        assert_eq!(camel("id"), "id");
        assert_eq!(camel("_private"), "_private");
        let value = json!({ "nodes": [{ "fork_reason": "x", "to": "dev" }], "has_token": true });
        assert_eq!(
            camel_case(value),
            json!({ "nodes": [{ "forkReason": "x", "to": "dev" }], "hasToken": true })
        );
        let schema = json!({
            "type": "object",
            "required": ["mailbox_path"],
            "properties": { "mailbox_path": { "type": "string", "description": "a_b stays" } }
        });
        assert_eq!(
            camel_case_schema(schema),
            json!({
                "type": "object",
                "required": ["mailboxPath"],
                "properties": { "mailboxPath": { "type": "string", "description": "a_b stays" } }
            })
        );
    }
}
