//! The `rpc` callback: a reply calls a JSON-RPC method on an allow-listed HTTP endpoint, with
//! the message as `params.email`, signed like a webhook (the Standard Webhooks headers over the
//! request's bytes). The call counts as delivered when its response is JSON-RPC 2.0 with a
//! `result` for the request's id; an `error` (or anything else) is a failed try, retried.

use serde_json::{Value, json};

/// The longest method name a callback may give.
const MAX_METHOD: usize = 200;

/// Whether `method` can be the method of a JSON-RPC request: a non-empty name without spaces
/// or control characters (`rpc.` names are JSON-RPC's own).
pub(crate) fn check_method(method: &str) -> Result<(), String> {
    if method.is_empty() || method.len() > MAX_METHOD {
        return Err(format!(
            "the method name must have 1 to {MAX_METHOD} characters"
        ));
    }
    if method.chars().any(|c| c.is_whitespace() || c.is_control()) {
        return Err("the method name has a space or a control character".into());
    }
    if method.starts_with("rpc.") {
        return Err("names beginning with rpc. are JSON-RPC's own".into());
    }
    Ok(())
}

/// The request of one try: its id is the webhook id, so a retry is the same call.
pub(crate) fn request(method: &str, id: &str, email: &Value) -> Value {
    json!({ "jsonrpc": "2.0", "id": id, "method": method, "params": { "email": email } })
}

/// Whether the endpoint's answer to request `id` took the call: a result, or why not.
pub(crate) fn accepted(id: &str, body: &[u8]) -> Result<(), String> {
    let answer: Value =
        serde_json::from_slice(body).map_err(|e| format!("the answer is not JSON ({e})"))?;
    if answer["jsonrpc"] != "2.0" || answer["id"] != id {
        return Err("the answer is not a JSON-RPC 2.0 response to the call".into());
    }
    if let Some(error) = answer.get("error") {
        return Err(format!("JSON-RPC error {error}"));
    }
    if answer.get("result").is_none() {
        return Err("the JSON-RPC response has no result".into());
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_result_for_the_call_is_taken_and_anything_else_is_a_failed_try() {
        let ok = br#"{"jsonrpc":"2.0","id":"msg_1","result":null}"#;
        assert_eq!(accepted("msg_1", ok), Ok(()));
        for (body, why) in [
            (
                &br#"{"jsonrpc":"2.0","id":"msg_2","result":1}"#[..],
                "not a JSON-RPC",
            ),
            (
                br#"{"jsonrpc":"2.0","id":"msg_1","error":{"code":-32601,"message":"no"}}"#,
                "-32601",
            ),
            (br#"{"jsonrpc":"2.0","id":"msg_1"}"#, "no result"),
            (b"<html>", "not JSON"),
        ] {
            let refused = accepted("msg_1", body).unwrap_err();
            assert!(refused.contains(why), "{refused}");
        }
    }

    #[test]
    fn method_names_are_checked() {
        assert!(check_method("crm.replyArrived").is_ok());
        for bad in ["", "two words", "rpc.discover", &"m".repeat(201)] {
            assert!(check_method(bad).is_err(), "{bad:?}");
        }
    }
}
