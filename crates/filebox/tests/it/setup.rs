//! `filebox setup`: a host's files written and merged without loss (comments, other servers,
//! other hooks), idempotent, a diff with --dry-run, a backup, and `--check`.

use std::fs;

use serde_json::Value;

use crate::support::Test;

fn read(t: &Test, path: &str) -> String {
    fs::read_to_string(t.path().join(path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn json(t: &Test, path: &str) -> Value {
    serde_json::from_str(&read(t, path)).unwrap_or_else(|e| panic!("{path}: {e}"))
}

fn write(t: &Test, path: &str, text: &str) {
    let path = t.path().join(path);
    fs::create_dir_all(path.parent().unwrap()).unwrap();
    fs::write(path, text).unwrap();
}

#[test]
fn claude_code_gets_the_server_and_the_hooks_and_a_second_run_changes_nothing() {
    let t = Test::new().agents(["qa", "dev"]);
    let out = t.as_agent("dev").args(["setup", "claude-code"]).success();
    assert!(
        out.contains("created .mcp.json\ncreated .claude/settings.json\n"),
        "{out}"
    );
    assert!(out.contains("Claude Code: start `claude`"), "{out}");
    let server = &json(&t, ".mcp.json")["mcpServers"]["filebox"];
    let program = server["command"].as_str().unwrap();
    assert!(program.ends_with("/filebox"), "{program}");
    let config = t.config_path().display().to_string();
    assert_eq!(
        server["args"],
        serde_json::json!(["--config", config, "--agent", "dev", "mcp"])
    );
    let hooks = &json(&t, ".claude/settings.json")["hooks"];
    for event in ["SessionStart", "UserPromptSubmit", "Stop"] {
        let command = hooks[event][0]["hooks"][0]["command"].as_str().unwrap();
        assert!(
            command.ends_with("--agent dev hook claude-code"),
            "{command}"
        );
    }
    let stop = &hooks["Stop"][0]["hooks"][0];
    assert_eq!(stop["async"], true);
    assert_eq!(stop["asyncRewake"], true);
    assert_eq!(stop["timeout"], 3660);
    assert!(hooks["SessionStart"][0]["hooks"][0].get("async").is_none());

    let again = t.as_agent("dev").args(["setup", "claude-code"]).success();
    assert!(
        again.contains("unchanged .mcp.json\nunchanged .claude/settings.json\n"),
        "{again}"
    );
    assert!(!t.path().join(".mcp.json.filebox.bak").exists());
    let checked = t
        .as_agent("dev")
        .args(["setup", "--check", "claude-code"])
        .success();
    assert_eq!(
        checked,
        "claude-code .mcp.json mcpServers.filebox: configured\n\
         claude-code .claude/settings.json hooks.SessionStart: configured\n\
         claude-code .claude/settings.json hooks.UserPromptSubmit: configured\n\
         claude-code .claude/settings.json hooks.Stop: configured\n"
    );
}

/// The user's files, with comments, trailing commas, other servers and other hooks.
const MCP_JSON: &str = r#"{
  // servers for this repo
  "mcpServers": {
    "github": { "command": "gh-mcp", "args": ["--repo", "x"] }, // keep me
  },
}
"#;

const SETTINGS_JSON: &str = r#"{
  "permissions": { "allow": ["Bash(cargo test:*)"] },
  /* the team's hooks */
  "hooks": {
    "Stop": [
      { "hooks": [{ "type": "command", "command": "notify-send done" }] }
    ],
    "PreToolUse": [
      { "matcher": "Bash", "hooks": [{ "type": "command", "command": "./guard.sh" }] }
    ]
  }
}
"#;

#[test]
fn existing_files_keep_every_comment_server_and_hook_and_are_backed_up() {
    let t = Test::new().agents(["dev"]);
    write(&t, ".mcp.json", MCP_JSON);
    write(&t, ".claude/settings.json", SETTINGS_JSON);
    let out = t.as_agent("dev").args(["setup", "claude-code"]).success();
    assert!(
        out.contains("wrote .mcp.json (the old one: .mcp.json.filebox.bak)"),
        "{out}"
    );
    assert_eq!(read(&t, ".mcp.json.filebox.bak"), MCP_JSON);
    assert_eq!(read(&t, ".claude/settings.json.filebox.bak"), SETTINGS_JSON);
    let mcp = read(&t, ".mcp.json");
    for kept in [
        "// servers for this repo",
        "// keep me",
        r#""args": ["--repo", "x"]"#,
    ] {
        assert!(mcp.contains(kept), "lost {kept:?}:\n{mcp}");
    }
    assert!(mcp.find("\"github\"").unwrap() < mcp.find("\"filebox\"").unwrap());
    let settings = read(&t, ".claude/settings.json");
    for kept in [
        "/* the team's hooks */",
        "\"allow\": [\"Bash(cargo test:*)\"]",
        "notify-send done",
        "./guard.sh",
    ] {
        assert!(settings.contains(kept), "lost {kept:?}:\n{settings}");
    }
    // The user's Stop hook stays first; FileBox's is added beside it, once.
    assert!(settings.find("notify-send").unwrap() < settings.find("hook claude-code").unwrap());
    let again = t.as_agent("dev").args(["setup", "claude-code"]).success();
    assert!(again.starts_with("unchanged .mcp.json\nunchanged .claude/settings.json\n"));
    assert_eq!(read(&t, ".claude/settings.json"), settings);
    assert_eq!(settings.matches("hook claude-code").count(), 3);
}

#[test]
fn another_agent_replaces_filebox_s_entries_in_place() {
    let t = Test::new().agents(["qa", "dev"]);
    t.as_agent("dev").args(["setup", "claude-code"]).success();
    let (out, err) = t
        .as_agent("qa")
        .args(["setup", "--check", "claude-code"])
        .expect_code(1);
    assert!(
        out.contains("hooks.Stop: differs (another agent, config or binary)"),
        "{out}"
    );
    assert!(
        err.contains("to configure: filebox --agent qa setup claude-code"),
        "{err}"
    );
    t.as_agent("qa").args(["setup", "claude-code"]).success();
    let settings = read(&t, ".claude/settings.json");
    assert_eq!(
        settings.matches("hook claude-code").count(),
        3,
        "{settings}"
    );
    assert!(settings.contains("--agent qa hook") && !settings.contains("--agent dev"));
}

#[test]
fn dry_run_prints_the_diff_and_writes_nothing() {
    let t = Test::new().agents(["dev"]);
    write(&t, ".mcp.json", MCP_JSON);
    let out = t
        .as_agent("dev")
        .args(["setup", "claude-code", "--dry-run"])
        .success();
    assert!(out.contains("--- .mcp.json\n+++ .mcp.json\n"), "{out}");
    assert!(
        out.contains("--- /dev/null\n+++ .claude/settings.json\n"),
        "{out}"
    );
    assert!(out.contains("+    \"filebox\": {"), "{out}");
    assert!(
        out.contains("     \"github\": { \"command\": \"gh-mcp\""),
        "{out}"
    );
    assert_eq!(read(&t, ".mcp.json"), MCP_JSON);
    assert!(!t.path().join(".claude").exists());
    assert!(!t.path().join(".mcp.json.filebox.bak").exists());
}

#[test]
fn a_file_that_cannot_be_parsed_stops_the_setup_before_anything_is_written() {
    let t = Test::new().agents(["dev"]);
    write(&t, ".cursor/mcp.json", "{ \"mcpServers\": ");
    let err = t
        .as_agent("dev")
        .args(["setup", "claude-code", "cursor"])
        .failure();
    assert!(
        err.contains(".cursor/mcp.json left untouched: not valid JSON"),
        "{err}"
    );
    assert_eq!(read(&t, ".cursor/mcp.json"), "{ \"mcpServers\": ");
    assert!(!t.path().join(".mcp.json").exists());
    write(&t, ".cursor/mcp.json", "{ \"mcpServers\": [] }");
    let err = t.as_agent("dev").args(["setup", "cursor"]).failure();
    assert!(err.contains("`mcpServers` is not an object"), "{err}");
}

#[test]
fn codex_gets_a_toml_server_table_beside_the_user_s_and_project_hooks() {
    let t = Test::new().agents(["dev"]);
    let toml = "# my Codex\nmodel = \"o3\" # fast\n\n[mcp_servers.docs]\ncommand = \"docs-mcp\"\n";
    write(&t, ".codex/config.toml", toml);
    t.as_agent("dev").args(["setup", "codex"]).success();
    let written = read(&t, ".codex/config.toml");
    assert!(written.starts_with(toml), "{written}");
    assert!(written.contains("\n[mcp_servers.filebox]\n"), "{written}");
    assert!(written.contains("\ncommand = \"/"), "{written}");
    assert!(written.contains("\nargs = [\"--config\", "), "{written}");
    let hooks = &json(&t, ".codex/hooks.json")["hooks"];
    let stop = &hooks["Stop"][0]["hooks"][0];
    assert!(stop["command"].as_str().unwrap().ends_with("hook codex"));
    assert!(stop.get("async").is_none(), "Codex has no background hooks");
    let again = t.as_agent("dev").args(["setup", "codex"]).success();
    assert!(
        again.starts_with("unchanged .codex/config.toml\nunchanged .codex/hooks.json\n"),
        "{again}"
    );
}

#[test]
fn every_host_is_written_where_it_looks_and_checked() {
    let t = Test::new().agents(["dev"]);
    let hosts = [
        "claude-code",
        "cursor",
        "codex",
        "claude-desktop",
        "cline",
        "windsurf",
        "augment",
        "trae",
    ];
    let before = t.as_agent("dev").args(["setup", "--check"]).success();
    assert!(
        before.lines().all(|line| line.ends_with(": missing")),
        "{before}"
    );
    t.as_agent("dev").args(["setup"]).args(hosts).success();
    for (file, key) in [
        (".cursor/mcp.json", "mcpServers"),
        (".config/Claude/claude_desktop_config.json", "mcpServers"),
        (
            ".config/Code/User/globalStorage/saoudrizwan.claude-dev/settings/cline_mcp_settings.json",
            "mcpServers",
        ),
        (".codeium/windsurf/mcp_config.json", "mcpServers"),
        (".augment/settings.json", "mcpServers"),
        (".trae/mcp.json", "mcpServers"),
    ] {
        let server = &json(&t, file)[key]["filebox"];
        assert_eq!(server["args"][3], "dev", "{file}");
    }
    let after = t.as_agent("dev").args(["setup", "--check"]).success();
    assert_eq!(after.lines().count(), before.lines().count());
    assert!(
        after.lines().all(|line| line.ends_with(": configured")),
        "{after}"
    );
    let usage = t.as_agent("dev").args(["setup", "vim"]).usage_error();
    assert!(
        usage.contains("possible values: claude-code, cursor"),
        "{usage}"
    );
}
