//! JSON arguments decoded into a verb's (or a JSON-RPC method's) type, a mismatch naming the
//! field it concerns: serde reports a missing field at the object that lacks it, so its name
//! is taken from serde's message and joined to that path.

use serde::de::DeserializeOwned;
use serde_json::Value;

/// Arguments that do not fit their type: which field, and what is wrong with it.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{field}: {reason}")]
pub struct ArgumentError {
    /// The field's path, such as `to` or `attachments[0].name`; `.` for the arguments as a
    /// whole.
    pub field: String,
    /// serde's message, such as ``missing field `to` ``.
    pub reason: String,
}

/// Decode `value` as a `T`; an error names the field.
pub fn decode<T: DeserializeOwned>(value: Value) -> Result<T, ArgumentError> {
    serde_path_to_error::deserialize(value).map_err(|e| {
        let path = e.path().to_string();
        let reason = e.into_inner().to_string();
        ArgumentError {
            field: field(&path, &reason),
            reason,
        }
    })
}

/// The field an error at `path` concerns: the path itself, or for a missing field the path of
/// its object joined with its name.
fn field(path: &str, reason: &str) -> String {
    let missing = reason
        .strip_prefix("missing field `")
        .and_then(|rest| rest.split_once('`'))
        .map(|(name, _)| name);
    match missing {
        Some(name) if path == "." => name.to_owned(),
        Some(name) => format!("{path}.{name}"),
        None => path.to_owned(),
    }
}

#[cfg(test)]
mod tests {
    use serde::Deserialize;
    use serde_json::json;

    use super::*;

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)] // only decoded: the errors are under test
    struct Mail {
        to: String,
        count: Option<u32>,
        #[serde(default)]
        files: Vec<File>,
    }

    #[derive(Debug, Deserialize)]
    #[allow(dead_code)]
    struct File {
        name: String,
    }

    fn error(value: Value) -> ArgumentError {
        decode::<Mail>(value).unwrap_err()
    }

    #[test]
    fn a_missing_field_is_named_where_it_is_missing() {
        let top = error(json!({"from": "me"}));
        assert_eq!(top.field, "to");
        assert_eq!(top.reason, "missing field `to`");
        assert_eq!(top.to_string(), "to: missing field `to`");
        let nested = error(json!({"to": "qa", "files": [{"name": "a"}, {}]}));
        assert_eq!(nested.field, "files[1].name");
    }

    #[test]
    fn a_wrong_value_is_named_by_its_path_and_a_wrong_whole_by_a_dot() {
        assert_eq!(error(json!({"to": "qa", "count": "many"})).field, "count");
        assert_eq!(error(json!("qa")).field, ".");
    }
}
