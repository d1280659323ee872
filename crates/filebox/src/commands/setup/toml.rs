//! A TOML config file (Codex's `config.toml`) edited in place: values are read and set by key
//! path, and everything else (other tables, comments, order, spacing) stays as it was.

use anyhow::Context;
use serde_json::Value;
use toml_edit::{Array, DocumentMut, InlineTable, Item, Table};

/// A parsed TOML file.
pub(crate) struct TomlFile {
    document: DocumentMut,
}

impl TomlFile {
    pub(crate) fn parse(text: &str) -> anyhow::Result<Self> {
        let document = text
            .parse::<DocumentMut>()
            .map_err(|error| anyhow::anyhow!("not valid TOML: {error}"))?;
        Ok(Self { document })
    }

    /// The value at `path` (a key per level), as JSON.
    pub(crate) fn get(&self, path: &[&str]) -> Option<Value> {
        let mut item = self.document.as_item();
        for key in path {
            item = item.get(key)?;
        }
        json_of_item(item)
    }

    /// Set the value at `path`: an object becomes a `[table]` of its own, the tables on the
    /// way are created (implicit, so no empty `[parent]` header appears).
    pub(crate) fn set(&mut self, path: &[&str], value: &Value) -> anyhow::Result<()> {
        let (last, parents) = path.split_last().context("an empty key path")?;
        let mut table = self.document.as_table_mut();
        for (depth, key) in parents.iter().enumerate() {
            let item = table.entry(key).or_insert_with(|| {
                let mut parent = Table::new();
                parent.set_implicit(true);
                Item::Table(parent)
            });
            table = item
                .as_table_mut()
                .with_context(|| format!("`{}` is not a table", path[..=depth].join(".")))?;
        }
        let item = match value {
            Value::Object(fields) => {
                let mut leaf = Table::new();
                for (key, field) in fields {
                    leaf.insert(key, Item::Value(toml_value(field)?));
                }
                Item::Table(leaf)
            }
            other => Item::Value(toml_value(other)?),
        };
        table.insert(last, item);
        Ok(())
    }

    pub(crate) fn text(&self) -> String {
        self.document.to_string()
    }
}

/// A JSON value as a TOML value (TOML has no null).
fn toml_value(value: &Value) -> anyhow::Result<toml_edit::Value> {
    Ok(match value {
        Value::Null => anyhow::bail!("TOML has no null"),
        Value::Bool(flag) => (*flag).into(),
        Value::Number(number) => match number.as_i64() {
            Some(integer) => integer.into(),
            None => number.as_f64().context("a number TOML cannot hold")?.into(),
        },
        Value::String(text) => text.as_str().into(),
        Value::Array(items) => {
            let mut array = Array::new();
            for item in items {
                array.push(toml_value(item)?);
            }
            array.into()
        }
        Value::Object(fields) => {
            let mut table = InlineTable::new();
            for (key, field) in fields {
                table.insert(key, toml_value(field)?);
            }
            table.into()
        }
    })
}

/// A TOML item as JSON (a date as its text).
fn json_of_item(item: &Item) -> Option<Value> {
    match item {
        Item::None => None,
        Item::Value(value) => Some(json_of_value(value)),
        Item::Table(table) => Some(Value::Object(
            table
                .iter()
                .filter_map(|(key, item)| Some((key.to_owned(), json_of_item(item)?)))
                .collect(),
        )),
        Item::ArrayOfTables(tables) => Some(Value::Array(
            tables
                .iter()
                .filter_map(|table| json_of_item(&Item::Table(table.clone())))
                .collect(),
        )),
    }
}

fn json_of_value(value: &toml_edit::Value) -> Value {
    use toml_edit::Value as T;
    match value {
        T::String(text) => Value::from(text.value().as_str()),
        T::Integer(integer) => Value::from(*integer.value()),
        T::Float(float) => Value::from(*float.value()),
        T::Boolean(flag) => Value::from(*flag.value()),
        T::Datetime(date) => Value::from(date.value().to_string()),
        T::Array(array) => Value::Array(array.iter().map(json_of_value).collect()),
        T::InlineTable(table) => Value::Object(
            table
                .iter()
                .map(|(key, value)| (key.to_owned(), json_of_value(value)))
                .collect(),
        ),
    }
}

#[cfg(test)]
mod tests {
    use serde_json::json;

    use super::*;

    #[test]
    fn a_server_table_is_added_keeping_comments_and_other_tables() {
        let text =
            "# my settings\nmodel = \"o3\" # the model\n\n[mcp_servers.other]\ncommand = \"x\"\n";
        let mut file = TomlFile::parse(text).unwrap();
        let entry = json!({"command": "fb", "args": ["--agent", "dev", "mcp"]});
        file.set(&["mcp_servers", "filebox"], &entry).unwrap();
        let out = file.text();
        assert!(out.starts_with(text), "{out}");
        assert!(out.contains("[mcp_servers.filebox]"), "{out}");
        let again = TomlFile::parse(&out).unwrap();
        assert_eq!(again.get(&["mcp_servers", "filebox"]), Some(entry));
        assert_eq!(
            again.get(&["mcp_servers", "other", "command"]),
            Some(json!("x"))
        );
    }

    #[test]
    fn an_empty_file_gets_the_table_without_an_empty_parent_header() {
        let mut file = TomlFile::parse("").unwrap();
        file.set(&["mcp_servers", "filebox"], &json!({"command": "fb"}))
            .unwrap();
        assert_eq!(file.text(), "[mcp_servers.filebox]\ncommand = \"fb\"\n");
        assert!(TomlFile::parse("a = ").is_err());
        let mut file = TomlFile::parse("mcp_servers = 3\n").unwrap();
        assert!(file.set(&["mcp_servers", "filebox"], &json!({})).is_err());
    }
}
