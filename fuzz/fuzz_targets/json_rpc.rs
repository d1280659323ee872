//! The hub's JSON-RPC decoder (`rpc::handle_body`, as `POST /rpc` and the Unix socket run it):
//! any body gets well-formed JSON-RPC 2.0 answers, one per call that is not a notification,
//! each carrying its call's id (null when the call had none usable) and exactly one of
//! `result` or `error` with a known code; the envelope, batches, the method table and every
//! method's params are reached. The config has no agents, so no call may write anything: the
//! config's folder is compared after every body.
#![no_main]

use std::path::{Path, PathBuf};
use std::sync::Once;

use filebox_core::{Config, ConfigFile};
use libfuzzer_sys::fuzz_target;
use serde_json::Value;

/// The codes an answer may carry: JSON-RPC's, and the hub's application codes
/// (`crates/filebox-hub/src/rpc/error.rs`). A config without agents is the hub's own failure
/// (-32603) for the calls that need one (`agents.list`).
const CODES: &[i64] = &[
    -32700, -32600, -32601, -32602, -32603, 1001, 1002, 1003, 1004, 1005, 1006, 1007, 1008, 1009,
    1010, 1011, 1012, 1013, 1020, 1021, 1022, 1023,
];

/// A project folder holding only `.filebox/config.json` with no agents, made for one body and
/// removed after it, so a run leaves nothing in the temp folder. On a panic no destructor runs
/// (libfuzzer-sys's panic hook aborts the process), so a panic hook of ours removes it first.
struct Project(PathBuf);

impl Project {
    fn new() -> Project {
        static HOOK: Once = Once::new();
        let dir =
            std::env::temp_dir().join(format!("filebox-fuzz-json-rpc-{}", std::process::id()));
        HOOK.call_once(|| {
            let aborting = std::panic::take_hook();
            let dir = dir.clone();
            std::panic::set_hook(Box::new(move |info| {
                let _ = std::fs::remove_dir_all(&dir);
                aborting(info);
            }));
        });
        let config_dir = dir.join(".filebox");
        std::fs::create_dir_all(&config_dir).expect("the fuzz project folder");
        std::fs::write(config_dir.join("config.json"), "{}\n").expect("the fuzz config");
        Project(dir)
    }
}

impl Drop for Project {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

/// Every path under `dir`, with the size of each file.
fn tree(dir: &Path) -> Vec<(PathBuf, u64)> {
    let mut found = Vec::new();
    let mut pending = vec![dir.to_path_buf()];
    while let Some(dir) = pending.pop() {
        for entry in std::fs::read_dir(&dir).expect("the fuzz project folder reads") {
            let entry = entry.expect("a folder entry");
            let meta = entry.metadata().expect("an entry's metadata");
            if meta.is_dir() {
                pending.push(entry.path());
            }
            found.push((entry.path(), meta.len()));
        }
    }
    found.sort();
    found
}

/// The id an answer to `call` carries, or `None` when `call` is a notification.
fn expected_id(call: &Value) -> Option<Value> {
    let Value::Object(call) = call else {
        return Some(Value::Null);
    };
    match call.get("id") {
        None => None,
        Some(id @ (Value::String(_) | Value::Number(_) | Value::Null)) => Some(id.clone()),
        Some(_) => Some(Value::Null),
    }
}

fn check_answer(answer: &Value, id: &Value) {
    let Value::Object(fields) = answer else {
        panic!("an answer is not an object: {answer}");
    };
    assert_eq!(fields.get("jsonrpc"), Some(&Value::from("2.0")), "{answer}");
    assert_eq!(fields.get("id"), Some(id), "{answer}");
    assert_eq!(
        fields.len(),
        3,
        "an answer is jsonrpc, id and one outcome: {answer}"
    );
    match (fields.get("result"), fields.get("error")) {
        (Some(_), None) => {}
        (None, Some(error)) => {
            let code = error["code"].as_i64().expect("an error code is an integer");
            assert!(CODES.contains(&code), "unexpected code: {answer}");
            let message = error["message"].as_str().expect("an error message is text");
            assert!(!message.is_empty(), "{answer}");
        }
        _ => panic!("an answer has exactly one of result and error: {answer}"),
    }
}

fn check_error(answer: &Value, code: i64) {
    check_answer(answer, &Value::Null);
    assert_eq!(answer["error"]["code"], code, "{answer}");
}

fuzz_target!(|body: &[u8]| {
    let guard = Project::new();
    let project = guard.0.as_path();
    let before = tree(project);
    let config = Config {
        path: project.join(".filebox/config.json"),
        file: ConfigFile::default(),
    };
    let answer = filebox_hub::fuzzing::answer(config, body);
    assert_eq!(
        tree(project),
        before,
        "a call wrote into the project folder"
    );

    let request = match serde_json::from_slice::<Value>(body) {
        Ok(request) => request,
        Err(_) => return check_error(&answer.expect("a parse error is answered"), -32700),
    };
    match request {
        Value::Array(calls) if calls.is_empty() => {
            check_error(&answer.expect("an empty batch is answered"), -32600);
        }
        Value::Array(calls) if calls.len() > filebox_hub::fuzzing::MAX_BATCH_CALLS => {
            check_error(&answer.expect("an over-long batch is answered"), -32600);
        }
        Value::Array(calls) => {
            let ids: Vec<Value> = calls.iter().filter_map(expected_id).collect();
            let Some(answer) = answer else {
                assert!(ids.is_empty(), "a batch with calls got no answer");
                return;
            };
            let answers = answer.as_array().expect("a batch is answered by an array");
            assert!(!answers.is_empty(), "an empty answer array is never sent");
            assert_eq!(answers.len(), ids.len(), "one answer per call with an id");
            for (answer, id) in answers.iter().zip(&ids) {
                check_answer(answer, id);
            }
        }
        call => match (expected_id(&call), answer) {
            (None, None) => {}
            (Some(id), Some(answer)) => check_answer(&answer, &id),
            (id, answer) => panic!("call answered wrongly: expected id {id:?}, got {answer:?}"),
        },
    }
});
