//! Snapshot of the public MCP surface: every tool's name, description, schemas and annotations.
//! A change shows in review as a diff of `tests/snapshots/tools.json`; accept it with
//! `UPDATE_SNAPSHOTS=1 cargo test -p filebox-mcp --test tool_list`.

use std::path::Path;

#[test]
fn tool_list_matches_snapshot() {
    let tools = filebox_mcp::tool_list();
    let actual = serde_json::to_string_pretty(&tools).expect("tools serialize") + "\n";
    let path = Path::new(env!("CARGO_MANIFEST_DIR")).join("tests/snapshots/tools.json");
    if std::env::var_os("UPDATE_SNAPSHOTS").is_some() {
        std::fs::write(&path, &actual).expect("write the snapshot");
        return;
    }
    let expected = std::fs::read_to_string(&path).unwrap_or_default();
    assert!(
        actual == expected,
        "the tool list changed; review it and run with UPDATE_SNAPSHOTS=1 to accept.\n--- actual\n{actual}"
    );
}

#[test]
fn schemas_use_only_formats_validators_know() {
    // schemars' `uint`/`int64` formats make every validator warn ("unknown format");
    // unsigned numbers say `minimum: 0` instead.
    let tools = serde_json::to_string(&filebox_mcp::tool_list()).expect("tools serialize");
    assert!(!tools.contains(r#""format":"uint"#), "{tools}");
    assert!(!tools.contains(r#""format":"int"#), "{tools}");
    assert!(tools.contains(r#""minimum":0"#), "{tools}");
}

#[test]
fn every_tool_is_annotated_and_closed_world() {
    for tool in filebox_mcp::tool_list() {
        let annotations = tool.annotations.as_ref().expect("annotations");
        assert!(annotations.read_only_hint.is_some(), "{}", tool.name);
        assert_eq!(annotations.open_world_hint, Some(false), "{}", tool.name);
        // The listings and a message answer with their text alone (no structure).
        let text_only = [
            "list_messages",
            "search_messages",
            "read_message",
            "list_threads",
        ];
        assert_eq!(
            tool.output_schema.is_none(),
            text_only.contains(&tool.name.as_ref()),
            "{}",
            tool.name
        );
    }
}

#[test]
fn a_wait_moves_the_shared_cursor_so_it_is_not_read_only() {
    let tools = filebox_mcp::tool_list();
    let wait = tools
        .iter()
        .find(|tool| tool.name == "wait_for_messages")
        .expect("wait_for_messages");
    let annotations = wait.annotations.as_ref().expect("annotations");
    assert_eq!(annotations.read_only_hint, Some(false));
    assert_eq!(annotations.destructive_hint, Some(false));
}

/// What a model pays for in every session: each tool's name, description and input schema.
/// Issue 12's budget is 9,000 characters for all of them, counted as the hosts hand them to
/// the model: Claude Code and Codex name a tool `mcp__filebox__NAME` (`tests/hosts` measures
/// it in the hosts themselves; `tests/mcp/bench_tokens.py` through a real client). Shorten a
/// description before raising it.
#[test]
fn the_model_visible_tool_list_fits_its_budget() {
    const BUDGET: usize = 9_000;
    const HOST_PREFIX: &str = "mcp__filebox__";
    let tools = filebox_mcp::tool_list();
    let visible: usize = tools
        .iter()
        .map(|tool| {
            let schema = serde_json::to_string(&*tool.input_schema).expect("schema serializes");
            HOST_PREFIX.len()
                + tool.name.chars().count()
                + tool.description.as_deref().map_or(0, |d| d.chars().count())
                + schema.chars().count()
        })
        .sum();
    assert!(
        visible <= BUDGET,
        "the tools' names, descriptions and input schemas take {visible} characters, over the budget of {BUDGET}"
    );
}
