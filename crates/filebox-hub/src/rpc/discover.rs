//! `rpc.discover`: the OpenRPC document, generated from the method table's types, this method
//! and the verb table once, then served as is. Not a row of the method table, which it
//! describes.

use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use super::methods::{ALIASES, Casing, METHODS};
use super::{RpcError, casing, verbs};
use crate::email::wire::NoParams;

/// The OpenRPC version this document follows.
const OPENRPC_VERSION: &str = "1.3.2";

/// The method's name, and what it answers.
pub(crate) const NAME: &str = "rpc.discover";
const SUMMARY: &str = "This API as an OpenRPC document.";

pub(crate) fn handler(_params: NoParams) -> Result<Value, RpcError> {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    Ok(DOCUMENT.get_or_init(document).clone())
}

/// Where shared schemas live in the document.
const COMPONENTS: &str = "#/components/schemas/";

/// Every method with its params (by name) and result, and the shared schemas.
pub(crate) fn document() -> Value {
    let mut generator = filebox_api::schema_settings()
        .with(|s| s.definitions_path = COMPONENTS.trim_end_matches('/').into())
        .into_generator();
    // The `email.*` results are written camelCase (`casing.rs`), so their schemas are inlined
    // and renamed, not shared with the verbs' snake_case ones.
    let mut inline = filebox_api::schema_settings()
        .with(|s| s.inline_subschemas = true)
        .into_generator();
    let mut methods: Vec<Value> = METHODS
        .iter()
        .map(|method| {
            let params = (method.params)(&mut generator).to_value();
            let result = (method.result)(&mut inline).to_value();
            let result = match method.casing {
                Casing::Camel => casing::camel_case_schema(result),
                Casing::AsWritten => result,
            };
            describe(method.name, method.summary, &params, result)
        })
        .collect();
    let params = generator.root_schema_for::<NoParams>().to_value();
    let result = inline.subschema_for::<Value>().to_value();
    methods.push(describe(NAME, SUMMARY, &params, result));
    let mut components = generator.take_definitions(true);
    let aliases = ALIASES
        .iter()
        .filter_map(|(alias, name)| Some((*alias, filebox_api::verbs::find(name)?)));
    let names = filebox_api::verbs::TABLE
        .iter()
        .map(|verb| (verb.name, verb));
    let verbs: Vec<Value> = names
        .chain(aliases)
        .map(|(name, verb)| {
            let result = hoist_definitions(verb.output_schema(), &mut components);
            describe(name, verb.description, &verbs::params_schema(verb), result)
        })
        .collect();
    json!({
        "openrpc": OPENRPC_VERSION,
        "info": { "title": "FileBox hub", "version": env!("CARGO_PKG_VERSION") },
        "methods": methods.into_iter().chain(verbs).collect::<Vec<_>>(),
        "components": { "schemas": components },
    })
}

fn describe(name: &str, summary: &str, params: &Value, result: Value) -> Value {
    json!({
        "name": name,
        "summary": summary,
        "paramStructure": "by-name",
        "params": content_descriptors(params),
        "result": { "name": "result", "schema": result },
    })
}

/// A self-contained schema (its own `$defs`) with its definitions moved into the document's
/// components and its references pointed there.
fn hoist_definitions(mut schema: Map<String, Value>, components: &mut Map<String, Value>) -> Value {
    if let Some(Value::Object(definitions)) = schema.remove("$defs") {
        for (name, definition) in definitions {
            components
                .entry(name)
                .or_insert_with(|| repoint(definition));
        }
    }
    repoint(Value::Object(schema))
}

/// Every `$ref` to `#/$defs/X` made a reference to the components' `X`.
fn repoint(schema: Value) -> Value {
    match schema {
        Value::Object(map) => Value::Object(
            map.into_iter()
                .map(|(key, value)| match (key.as_str(), value) {
                    ("$ref", Value::String(target)) => {
                        let target = match target.strip_prefix("#/$defs/") {
                            Some(name) => format!("{COMPONENTS}{name}"),
                            None => target,
                        };
                        (key, Value::String(target))
                    }
                    (_, value) => (key, repoint(value)),
                })
                .collect(),
        ),
        Value::Array(items) => Value::Array(items.into_iter().map(repoint).collect()),
        other => other,
    }
}

/// One OpenRPC content descriptor per property of an object schema.
fn content_descriptors(schema: &Value) -> Vec<Value> {
    let required: Vec<&str> = schema["required"]
        .as_array()
        .map(|r| r.iter().filter_map(Value::as_str).collect())
        .unwrap_or_default();
    let empty = Map::new();
    schema["properties"]
        .as_object()
        .unwrap_or(&empty)
        .iter()
        .map(|(name, property)| {
            let mut descriptor = json!({
                "name": name,
                "required": required.contains(&name.as_str()),
                "schema": property,
            });
            if let Some(description) = property.get("description") {
                descriptor["description"] = description.clone();
            }
            descriptor
        })
        .collect()
}
