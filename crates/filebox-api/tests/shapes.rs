//! Snapshot of every result shape: what `--json` prints, MCP structured content and JSON-RPC
//! results carry, verb by verb (the `Outcome`: the result's fields and `warnings`), and the
//! setup commands' results. A change shows in review as a diff of `tests/snapshots/shapes.json`;
//! accept it with `UPDATE_SNAPSHOTS=1 cargo test -p filebox-api --test shapes`.

use std::path::Path;

use filebox_api::{AgentAdded, InitResult, verbs};
use serde_json::{Map, Value, json};

fn schema_of<T: schemars::JsonSchema>() -> Value {
    let schema = filebox_api::schema_settings()
        .for_serialize()
        .into_generator()
        .into_root_schema_for::<T>();
    serde_json::to_value(schema).unwrap()
}

#[test]
fn every_json_shape_matches_the_snapshot() {
    let mut shapes = Map::new();
    for verb in verbs::TABLE {
        shapes.insert(
            format!("{} (filebox {} --json)", verb.name, verb.cli),
            json!({ "effect": verb.effect, "result": verb.output_schema() }),
        );
    }
    shapes.insert("filebox init --json".into(), schema_of::<InitResult>());
    shapes.insert(
        "filebox agents add --json".into(),
        schema_of::<AgentAdded>(),
    );
    let actual = serde_json::to_string_pretty(&shapes).unwrap() + "\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/shapes.json");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &actual).unwrap();
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "a result shape changed; review it and run with UPDATE_SNAPSHOTS=1 to accept.\n--- actual\n{actual}"
    );
}
