//! The JSON Schemas of a verb's arguments and result. An argument schema is what a model reads
//! in every tool list, so it is made compact without changing what it accepts: no `$schema`,
//! no `$defs` (each reference inlined, keeping the property's own description, which also
//! stands for the descriptions of its `anyOf` branches and array items), optional
//! fields as their plain type (a `null` is still accepted: an omitted field and `null` mean the
//! same), no `default` (a description says what omitting a field means), and no Rust integer
//! `format`, `"minimum": 0` or message-type `pattern`: a value outside them is refused by the
//! call, which names the field. The result schemas keep all of these.

use schemars::JsonSchema;
use schemars::generate::SchemaSettings;
use serde_json::{Map, Value};

/// The compact schema of a verb's arguments (JSON Schema 2020-12).
pub(crate) fn input<T: JsonSchema>() -> Map<String, Value> {
    let mut root = root::<T>(schema_settings());
    root.remove("$schema");
    let defs = match root.remove("$defs") {
        Some(Value::Object(defs)) => defs,
        _ => Map::new(),
    };
    compact(&mut root, &defs);
    root
}

/// The schema of a verb's result (JSON Schema 2020-12), complete: programs validate
/// structured content against it. Portable: a nullable value is an `anyOf` of single types,
/// never a `type` array, which several MCP clients read as one string (the MCP Inspector's
/// `--strict` warns of it).
pub(crate) fn output<T: JsonSchema>() -> Map<String, Value> {
    let mut root = root::<T>(schema_settings().for_serialize());
    split_type_unions(&mut root);
    root
}

/// Keywords that describe a value whatever its type, kept beside an `anyOf` that replaces a
/// `type` array; every other keyword constrains the one type that is not `null`.
const ANNOTATIONS: [&str; 4] = ["description", "title", "default", "examples"];

/// `"type": ["string", "null"]` becomes `"anyOf": [{"type": "string", ...}, {"type": "null"}]`,
/// in this schema and every one below it (a property named `type` is not a keyword).
fn split_type_unions(schema: &mut Map<String, Value>) {
    for (key, value) in schema.iter_mut() {
        match value {
            Value::Object(properties) if key == "properties" || key == "$defs" => {
                for property in properties.values_mut().filter_map(Value::as_object_mut) {
                    split_type_unions(property);
                }
            }
            Value::Object(child) => split_type_unions(child),
            Value::Array(items) => {
                for item in items.iter_mut().filter_map(Value::as_object_mut) {
                    split_type_unions(item);
                }
            }
            _ => {}
        }
    }
    let Some(Value::Array(types)) = schema.get("type").cloned() else {
        return;
    };
    schema.remove("type");
    let constraints: Map<String, Value> = schema
        .iter()
        .filter(|(key, _)| !ANNOTATIONS.contains(&key.as_str()))
        .map(|(key, value)| (key.clone(), value.clone()))
        .collect();
    schema.retain(|key, _| ANNOTATIONS.contains(&key.as_str()));
    let some_types = types.iter().filter(|t| *t != "null").count();
    let branches = types
        .into_iter()
        .map(|t| {
            let mut branch = Map::new();
            if t != "null" && some_types == 1 {
                branch.extend(constraints.clone());
            }
            branch.insert("type".into(), t);
            Value::Object(branch)
        })
        .collect();
    schema.insert("anyOf".into(), Value::Array(branches));
}

/// JSON Schema 2020-12 as every surface publishes it: without schemars' `uint*` / `int*`
/// formats, which validators do not know (and warn about); an unsigned number says
/// `minimum: 0` instead (the compact argument schemas then drop that too).
pub fn schema_settings() -> SchemaSettings {
    SchemaSettings::draft2020_12().with_transform(PlainIntegers)
}

/// The transform of [`schema_settings`].
#[derive(Debug, Clone, Copy)]
struct PlainIntegers;

impl schemars::transform::Transform for PlainIntegers {
    fn transform(&mut self, schema: &mut schemars::Schema) {
        if let Some(object) = schema.as_object_mut()
            && let Some(format) = object.get("format").and_then(Value::as_str)
            && (format.starts_with("uint") || format.starts_with("int"))
        {
            let unsigned = format.starts_with("uint");
            object.remove("format");
            if unsigned {
                object.entry("minimum").or_insert(Value::from(0));
            }
        }
        schemars::transform::transform_subschemas(self, schema);
    }
}

/// A root schema without its top-level title and description (the Rust type's name and doc,
/// noise to a model). Every argument and result type is a struct, so the root is an object.
fn root<T: JsonSchema>(settings: SchemaSettings) -> Map<String, Value> {
    let schema = settings.into_generator().into_root_schema_for::<T>();
    let mut object = schema.as_object().cloned().unwrap_or_default();
    object.remove("title");
    object.remove("description");
    object
}

/// Compact one schema object in place, then everything below it.
fn compact(schema: &mut Map<String, Value>, defs: &Map<String, Value>) {
    drop_null_type(schema);
    inline_reference(schema, defs);
    for keyword in ["default", "format", "pattern"] {
        schema.remove(keyword);
    }
    if schema.get("minimum") == Some(&Value::from(0)) {
        schema.remove("minimum");
    }
    for (key, value) in schema.iter_mut() {
        match value {
            // Names to schemas: each value is a schema, the map is not (a property may be
            // called `format` or `default`).
            Value::Object(properties) if key == "properties" => {
                for property in properties.values_mut().filter_map(Value::as_object_mut) {
                    compact(property, defs);
                }
            }
            Value::Object(child) => compact(child, defs),
            Value::Array(items) => {
                for item in items.iter_mut().filter_map(Value::as_object_mut) {
                    compact(item, defs);
                }
            }
            _ => {}
        }
    }
    undescribe_branches(schema);
}

/// `"type": ["string", "null"]` becomes `"string"`; `"anyOf": [X, {"type": "null"}]` becomes X.
fn drop_null_type(schema: &mut Map<String, Value>) {
    if let Some(Value::Array(types)) = schema.get_mut("type") {
        types.retain(|t| t != "null");
        if let [only] = types.as_slice() {
            let only = only.clone();
            schema.insert("type".into(), only);
        }
    }
    let Some(Value::Array(branches)) = schema.get_mut("anyOf") else {
        return;
    };
    branches.retain(|b| *b != serde_json::json!({ "type": "null" }));
    if let [Value::Object(only)] = branches.as_slice() {
        let only = only.clone();
        schema.remove("anyOf");
        for (key, value) in only {
            schema.entry(key).or_insert(value);
        }
    }
}

/// The branches of a described `anyOf`, and the items of a described array, lose their own
/// descriptions: the property's says what it takes (`to`: "Agent ids (comma-separated),
/// @all or @group", a string or a list).
fn undescribe_branches(schema: &mut Map<String, Value>) {
    if !schema.contains_key("description") {
        return;
    }
    if let Some(Value::Array(branches)) = schema.get_mut("anyOf") {
        for branch in branches.iter_mut().filter_map(Value::as_object_mut) {
            branch.remove("description");
        }
    }
    if let Some(Value::Object(items)) = schema.get_mut("items") {
        items.remove("description");
    }
}

/// `{"$ref": "#/$defs/Name", ...}` becomes the definition merged under the property's own keys
/// (so the property's description wins over the type's).
fn inline_reference(schema: &mut Map<String, Value>, defs: &Map<String, Value>) {
    let Some(Value::String(reference)) = schema.get("$ref") else {
        return;
    };
    let Some(Value::Object(definition)) = reference
        .strip_prefix("#/$defs/")
        .and_then(|name| defs.get(name))
    else {
        return;
    };
    let definition = definition.clone();
    schema.remove("$ref");
    for (key, value) in definition {
        schema.entry(key).or_insert(value);
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Named {
        /// How to show it.
        #[serde(default)]
        format: Option<String>,
        /// Fallback.
        #[serde(default)]
        default: Option<u32>,
    }

    #[derive(serde::Serialize, JsonSchema)]
    #[allow(dead_code)]
    struct Shown {
        /// The parent (null for a root).
        parent: Option<String>,
        /// How many.
        count: Option<u32>,
    }

    #[test]
    fn an_output_schema_spells_a_nullable_value_as_an_any_of_of_single_types() {
        let schema = Value::Object(output::<Shown>());
        assert_eq!(
            schema["properties"]["parent"],
            json!({
                "description": "The parent (null for a root).",
                "anyOf": [{"type": "string"}, {"type": "null"}],
            })
        );
        assert_eq!(
            schema["properties"]["count"]["anyOf"],
            json!([{"type": "integer", "minimum": 0}, {"type": "null"}])
        );
        for verb in crate::verbs::TABLE {
            let text = Value::Object(verb.output_schema()).to_string();
            assert!(!text.contains(r#""type":["#), "{}: {text}", verb.name);
        }
    }

    #[test]
    fn properties_named_like_schema_keywords_are_kept() {
        let schema = input::<Named>();
        assert_eq!(
            schema["properties"],
            json!({
                "format": {"description": "How to show it.", "type": "string"},
                "default": {"description": "Fallback.", "type": "integer"},
            })
        );
    }

    #[derive(serde::Deserialize, JsonSchema)]
    #[allow(dead_code)]
    struct Args {
        /// Where.
        #[serde(default)]
        folder: Option<filebox_core::Folder>,
        /// How many.
        #[serde(default)]
        limit: Option<usize>,
        /// What.
        text: String,
        /// Which kind.
        #[serde(default, rename = "type")]
        kind: Option<filebox_core::MessageType>,
        /// Words (empty: none).
        #[serde(default)]
        query: String,
    }

    #[test]
    fn an_input_schema_is_inlined_and_has_no_null_types() {
        let schema = Value::Object(input::<Args>());
        let folder = &schema["properties"]["folder"];
        assert_eq!(folder["description"], "Where.");
        assert_eq!(folder["type"], "string");
        assert_eq!(
            folder["enum"],
            json!(["inbox", "outbox", "done", "cancel", "hold"])
        );
        assert_eq!(
            schema["properties"]["limit"],
            json!({"description": "How many.", "type": "integer"})
        );
        assert_eq!(schema["required"], json!(["text"]));
        assert_eq!(
            schema["properties"]["type"],
            json!({"description": "Which kind.", "type": "string"})
        );
        assert_eq!(
            schema["properties"]["query"],
            json!({"description": "Words (empty: none).", "type": "string"})
        );
        let text = schema.to_string();
        for noise in [
            "$defs", "$ref", "$schema", "null", "format", "minimum", "pattern", "default",
        ] {
            assert!(!text.contains(noise), "{noise} in {text}");
        }
    }
}
