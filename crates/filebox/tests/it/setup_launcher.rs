//! `filebox setup` writes the launcher the user installed with: `npx -y filebox` when the npm
//! package's launcher ran it from npx's cache, `uvx filebox` when it runs from uv's cache, and
//! the binary's absolute path anywhere else (cargo, pipx, `uv tool install`, a global npm
//! install), since those places last and npx's and uv's caches do not.

use std::fs;
use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::support::Test;

/// The server entry and the Stop hook's command that `setup claude-code` wrote.
fn written(t: &Test) -> (Value, String) {
    let read = |name: &str| -> Value {
        serde_json::from_str(&fs::read_to_string(t.path().join(name)).unwrap()).unwrap()
    };
    let server = read(".mcp.json")["mcpServers"]["filebox"].clone();
    let hook = read(".claude/settings.json")["hooks"]["Stop"][0]["hooks"][0]["command"]
        .as_str()
        .unwrap()
        .to_owned();
    (server, hook)
}

/// Runs `filebox --agent dev ARGS` from `binary` (or the test binary) with `env`, expecting
/// success; returns stdout.
fn setup(t: &Test, binary: Option<&Path>, env: &[(&str, String)], args: &[&str]) -> String {
    let mut run = t.as_agent("dev").args(args);
    if let Some(binary) = binary {
        run = run.binary(binary);
    }
    let mut command = run.command();
    command
        .env_remove("XDG_CACHE_HOME")
        .env_remove("UV_CACHE_DIR");
    command.env_remove("FILEBOX_LAUNCHER");
    command.envs(env.iter().map(|(key, value)| (key, value)));
    let out = command.output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{args:?}: {stderr}");
    String::from_utf8(out.stdout).unwrap()
}

/// The binary under test, linked (or copied) to `relative` under the test's folder (its HOME).
fn installed_at(t: &Test, relative: &str) -> PathBuf {
    let target = t.path().join(relative);
    fs::create_dir_all(target.parent().unwrap()).unwrap();
    let binary = env!("CARGO_BIN_EXE_filebox");
    fs::hard_link(binary, &target)
        .or_else(|_| fs::copy(binary, &target).map(drop))
        .unwrap();
    target
}

#[test]
fn setup_run_by_the_npx_launcher_writes_npx_and_check_agrees_only_under_npx() {
    let t = Test::new().agents(["dev"]);
    let binary = Path::new(env!("CARGO_BIN_EXE_filebox"))
        .canonicalize()
        .unwrap();
    let npx = [("FILEBOX_LAUNCHER", format!("npx:{}", binary.display()))];
    setup(&t, None, &npx, &["setup", "claude-code"]);
    let (server, hook) = written(&t);
    assert_eq!(server["command"], "npx");
    let config = t.config_path().display().to_string();
    assert_eq!(
        server["args"],
        serde_json::json!(["-y", "filebox", "--config", config, "--agent", "dev", "mcp"])
    );
    assert!(
        hook.starts_with("npx -y filebox --config ") && hook.ends_with(" hook claude-code"),
        "{hook}"
    );
    let checked = setup(&t, None, &npx, &["setup", "--check", "claude-code"]);
    assert!(!checked.contains("differs"), "{checked}");
    let checked = setup(&t, None, &[], &["setup", "--check"]);
    assert!(
        checked.contains("claude-code .mcp.json mcpServers.filebox: differs"),
        "the binary's own path is another launcher: {checked}"
    );
}

#[test]
fn a_launcher_word_naming_another_binary_is_ignored() {
    let t = Test::new().agents(["dev"]);
    let other = installed_at(&t, "elsewhere/filebox");
    let npx = [("FILEBOX_LAUNCHER", format!("npx:{}", other.display()))];
    setup(&t, None, &npx, &["setup", "claude-code"]);
    let (server, _) = written(&t);
    let binary = Path::new(env!("CARGO_BIN_EXE_filebox"))
        .canonicalize()
        .unwrap();
    assert_eq!(server["command"], binary.display().to_string());
}

#[test]
fn setup_run_from_uv_s_cache_writes_uvx_and_from_a_tool_folder_its_path() {
    let t = Test::new().agents(["dev"]);
    let cached = installed_at(&t, ".cache/uv/archive-v0/Xq1/bin/filebox");
    setup(&t, Some(&cached), &[], &["setup", "claude-code"]);
    let (server, hook) = written(&t);
    assert_eq!(server["command"], "uvx");
    assert_eq!(server["args"][0], "filebox");
    assert_eq!(server["args"][1], "--config");
    assert!(hook.starts_with("uvx filebox --config "), "{hook}");

    let moved = installed_at(&t, "uv-cache/archive-v0/Xq2/bin/filebox");
    let cache = [(
        "UV_CACHE_DIR",
        t.path().join("uv-cache").display().to_string(),
    )];
    setup(&t, Some(&moved), &cache, &["setup", "claude-code"]);
    assert_eq!(
        written(&t).0["command"],
        "uvx",
        "UV_CACHE_DIR is uv's cache"
    );

    for place in [
        ".local/share/uv/tools/filebox/bin/filebox",
        ".local/share/pipx/venvs/filebox/bin/filebox",
    ] {
        let tool = installed_at(&t, place);
        setup(&t, Some(&tool), &[], &["setup", "claude-code"]);
        let (server, hook) = written(&t);
        let path = tool.canonicalize().unwrap().display().to_string();
        assert_eq!(server["command"], path);
        assert!(hook.starts_with(&format!("{path} --config ")), "{hook}");
    }
}
