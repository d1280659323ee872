//! A JSON (or JSONC: comments, trailing commas) config file edited in place: values are read
//! and set by key path, and everything else the user wrote (other keys, comments, order,
//! indentation) stays as it was.

use anyhow::{Context, bail};
use jsonc_parser::ParseOptions;
use jsonc_parser::cst::{CstInputValue, CstObject, CstRootNode};
use serde_json::Value;

/// A parsed JSON or JSONC file.
pub(crate) struct JsoncFile {
    root: CstRootNode,
}

impl JsoncFile {
    /// Parse `text`; an empty file is an empty object. A file that is not a JSON object is
    /// refused (and so left untouched).
    pub(crate) fn parse(text: &str) -> anyhow::Result<Self> {
        let text = if text.trim().is_empty() { "{}\n" } else { text };
        let root = CstRootNode::parse(text, &ParseOptions::default())
            .map_err(|error| anyhow::anyhow!("not valid JSON: {error}"))?;
        if root.value().is_some() && root.object_value().is_none() {
            bail!("not a JSON object at the top");
        }
        Ok(Self { root })
    }

    /// The value at `path` (a key per level), as JSON.
    pub(crate) fn get(&self, path: &[&str]) -> Option<Value> {
        let (last, parents) = path.split_last()?;
        let mut object = self.root.object_value()?;
        for key in parents {
            object = object.object_value(key)?;
        }
        object.get(last)?.value()?.to_serde_value()
    }

    /// Set the value at `path`, creating the objects on the way; the key keeps its place when
    /// it was there, else it is added last.
    pub(crate) fn set(&mut self, path: &[&str], value: &Value) -> anyhow::Result<()> {
        let (last, parents) = path.split_last().context("an empty key path")?;
        let object = self.object_at(parents)?;
        match object.get(last) {
            Some(property) => property.set_value(input(value)),
            None => {
                object.append(last, input(value));
            }
        }
        Ok(())
    }

    /// In the array at `path` (created if missing), replace the first element `is_ours`
    /// accepts with `value`, or append `value` when none does. Other elements, and their
    /// comments, stay as they are.
    pub(crate) fn upsert_element(
        &mut self,
        path: &[&str],
        is_ours: impl Fn(&Value) -> bool,
        value: &Value,
    ) -> anyhow::Result<()> {
        let (last, parents) = path.split_last().context("an empty key path")?;
        let object = self.object_at(parents)?;
        let array = match object.get(last) {
            Some(property) => property
                .array_value()
                .with_context(|| format!("`{}` is not a list", path.join(".")))?,
            None => object.array_value_or_set(last),
        };
        let ours = array.elements().into_iter().find(|element| {
            element
                .to_serde_value()
                .is_some_and(|found| is_ours(&found))
        });
        match ours {
            Some(element) => {
                let index = element
                    .element_index()
                    .context("a list element out of place")?;
                element.remove();
                array.insert(index, input(value));
            }
            None => {
                array.append(input(value));
            }
        }
        Ok(())
    }

    /// The file's text, with the edits.
    pub(crate) fn text(&self) -> String {
        let mut text = self.root.to_string();
        if !text.ends_with('\n') {
            text.push('\n');
        }
        text
    }

    /// The object at `path`, created where missing; a key that holds something else is
    /// refused rather than replaced.
    fn object_at(&self, path: &[&str]) -> anyhow::Result<CstObject> {
        let mut object = self.root.object_value_or_set();
        for (depth, key) in path.iter().enumerate() {
            object = match object.get(key) {
                Some(property) => property
                    .object_value()
                    .with_context(|| format!("`{}` is not an object", path[..=depth].join(".")))?,
                None => object.object_value_or_set(key),
            };
        }
        Ok(object)
    }
}

/// A JSON value as the CST's input.
fn input(value: &Value) -> CstInputValue {
    match value {
        Value::Null => CstInputValue::Null,
        Value::Bool(flag) => CstInputValue::Bool(*flag),
        Value::Number(number) => CstInputValue::Number(number.to_string()),
        Value::String(text) => CstInputValue::String(text.clone()),
        Value::Array(items) => CstInputValue::Array(items.iter().map(input).collect()),
        Value::Object(fields) => CstInputValue::Object(
            fields
                .iter()
                .map(|(key, value)| (key.clone(), input(value)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn setting_a_key_keeps_comments_other_keys_and_their_order() {
        let text = "{\n  // my servers\n  \"mcpServers\": {\n    \"other\": { \"command\": \"x\" }, // keep\n  },\n  \"theme\": \"dark\"\n}\n";
        let mut file = JsoncFile::parse(text).unwrap();
        file.set(&["mcpServers", "filebox"], &json!({"command": "fb"}))
            .unwrap();
        let out = file.text();
        assert!(
            out.contains("// my servers") && out.contains("// keep"),
            "{out}"
        );
        assert!(out.find("\"other\"").unwrap() < out.find("\"filebox\"").unwrap());
        assert!(out.contains("\"theme\": \"dark\""));
        let again = JsoncFile::parse(&out).unwrap();
        assert_eq!(
            again.get(&["mcpServers", "filebox"]),
            Some(json!({"command": "fb"}))
        );
        assert_eq!(
            again.get(&["mcpServers", "other", "command"]),
            Some(json!("x"))
        );
    }

    #[test]
    fn an_empty_file_becomes_an_object_and_a_non_object_is_refused() {
        let mut file = JsoncFile::parse("").unwrap();
        file.set(&["a", "b"], &json!(1)).unwrap();
        assert_eq!(
            serde_json::from_str::<Value>(&file.text()).unwrap(),
            json!({"a": {"b": 1}})
        );
        assert!(JsoncFile::parse("[1, 2]").is_err());
        assert!(JsoncFile::parse("{ \"a\": ").is_err());
        let mut file = JsoncFile::parse("{\"a\": 3}").unwrap();
        assert!(
            file.set(&["a", "b"], &json!(1)).is_err(),
            "3 is not replaced"
        );
    }

    #[test]
    fn upserting_replaces_our_element_in_place_and_appends_otherwise() {
        let text =
            "{\"hooks\": [\n  {\"id\": \"theirs\"}, // theirs\n  {\"id\": \"ours\", \"v\": 1}\n]}";
        let mut file = JsoncFile::parse(text).unwrap();
        let is_ours = |value: &Value| value["id"] == "ours";
        file.upsert_element(&["hooks"], is_ours, &json!({"id": "ours", "v": 2}))
            .unwrap();
        assert!(file.text().contains("// theirs"));
        assert_eq!(
            file.get(&["hooks"]),
            Some(json!([{"id": "theirs"}, {"id": "ours", "v": 2}]))
        );
        let mut file = JsoncFile::parse("{}").unwrap();
        file.upsert_element(&["x", "hooks"], is_ours, &json!({"id": "ours"}))
            .unwrap();
        assert_eq!(file.get(&["x", "hooks"]), Some(json!([{"id": "ours"}])));
    }
}
