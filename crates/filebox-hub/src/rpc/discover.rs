//! `rpc.discover`: the OpenRPC document, generated from the verb table and the method table's
//! types once, then served as is.

use std::sync::OnceLock;

use serde_json::{Map, Value, json};

use super::{ALIASES, Ctx, METHODS, RpcError, verbs};
use crate::email::wire::NoParams;

/// The OpenRPC version this document follows.
const OPENRPC_VERSION: &str = "1.3.2";

pub(crate) fn handler(_ctx: &Ctx, _params: NoParams) -> Result<Value, RpcError> {
    static DOCUMENT: OnceLock<Value> = OnceLock::new();
    Ok(DOCUMENT.get_or_init(document).clone())
}

/// Every method with its params (by name) and result, and the shared schemas.
pub(crate) fn document() -> Value {
    let mut generator = filebox_api::schema_settings()
        .with(|s| s.definitions_path = "#/components/schemas".into())
        .into_generator();
    let aliases = ALIASES
        .iter()
        .filter_map(|(alias, name)| Some((*alias, filebox_api::verbs::find(name)?)));
    let names = filebox_api::verbs::TABLE
        .iter()
        .map(|verb| (verb.name, verb));
    let verbs = names.chain(aliases).map(|(name, verb)| {
        json!({
            "name": name,
            "summary": verb.description,
            "paramStructure": "by-name",
            "params": content_descriptors(&verbs::params_schema(verb)),
            "result": { "name": "result", "schema": Value::Object(verb.output_schema()) },
        })
    });
    let methods: Vec<Value> = METHODS
        .iter()
        .map(|method| {
            let params = (method.params)(&mut generator).to_value();
            let result = (method.result)(&mut generator).to_value();
            json!({
                "name": method.name,
                "summary": method.summary,
                "paramStructure": "by-name",
                "params": content_descriptors(&params),
                "result": { "name": "result", "schema": result },
            })
        })
        .chain(verbs)
        .collect();
    json!({
        "openrpc": OPENRPC_VERSION,
        "info": { "title": "FileBox hub", "version": env!("CARGO_PKG_VERSION") },
        "methods": methods,
        "components": { "schemas": generator.take_definitions(true) },
    })
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
