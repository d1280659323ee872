//! The README's set-up and CLI examples, run literally, in order, as one shell script with
//! `filebox` on PATH. Two lines are left out: `cargo install` (the binary under test is on
//! PATH instead) and `watch`, which runs until interrupted (`wait.rs` tests it).

use std::path::Path;
use std::process::Command;

/// The `sh` blocks of the README between `## Set up` and the next section after `## The CLI`.
fn cli_examples() -> Vec<String> {
    let readme =
        std::fs::read_to_string(Path::new(env!("CARGO_MANIFEST_DIR")).join("../../README.md"))
            .expect("README.md");
    let start = readme.find("## Set up").expect("a Set up section");
    let end = readme.find("## MCP").expect("an MCP section");
    readme[start..end]
        .split("```sh\n")
        .skip(1)
        .map(|block| block.split("```").next().unwrap_or_default().to_owned())
        .collect()
}

#[test]
fn the_readme_cli_examples_run_in_order_after_the_set_up() {
    let blocks = cli_examples();
    assert!(blocks.len() >= 3, "{blocks:?}");
    let mut script = String::from("set -eu\n");
    for block in &blocks {
        for line in block.lines() {
            if line.starts_with("cargo install") || line.contains(" watch ") {
                continue;
            }
            script.push_str(line);
            script.push('\n');
        }
    }
    let dir = tempfile::tempdir().unwrap();
    let binary = Path::new(env!("CARGO_BIN_EXE_filebox"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let out = Command::new("bash")
        .args(["-c", &script])
        .current_dir(dir.path())
        .env("PATH", path)
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("xdg"))
        .env_remove("FILEBOX_CONFIG")
        .env_remove("FILEBOX_AGENT")
        .output()
        .expect("run bash");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the README's examples failed\n--- script\n{script}\n--- stdout\n{stdout}\n--- stderr\n{stderr}"
    );
    assert!(!stderr.contains("error"), "{stderr}");
    // The reply went where the README says.
    assert!(
        stdout.contains(" -> dev\n") && stdout.contains(" -> lead\n"),
        "{stdout}"
    );
}
