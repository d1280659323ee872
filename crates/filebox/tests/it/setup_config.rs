//! The commands that set up the config's sections instead of hand-edited JSON: `agents add
//! NAME@HUB --hub HUB`, `agents add NAME --a2a URL`, `federation set`, `hub set`; each checks the result as the hub would
//! and writes nothing when refused, and `--dry-run` prints the change as a diff and writes
//! nothing. And a command that finds no config says where it looked.

use std::fs;

use serde_json::{Value, json};

use crate::support::Test;

fn config(t: &Test) -> Value {
    serde_json::from_slice(&fs::read(t.config_path()).unwrap()).unwrap()
}

/// `args` with `--dry-run`: prints a diff that has each of `added`, and writes nothing.
fn dry_run(t: &Test, args: &[&str], added: &[&str]) {
    let before = fs::read(t.config_path()).unwrap();
    let diff = t.run().args(args).args(["--dry-run"]).success();
    for line in added {
        assert!(
            diff.lines().any(|l| l.starts_with('+') && l.contains(line)),
            "{line}: {diff}"
        );
    }
    assert_eq!(
        fs::read(t.config_path()).unwrap(),
        before,
        "--dry-run wrote"
    );
}

/// `args` is refused with `why` on stderr, and the config is as it was.
fn refused(t: &Test, args: &[&str], why: &str) {
    let before = fs::read(t.config_path()).unwrap();
    let err = t.run().args(args).failure();
    assert!(
        err.contains(why) && err.contains("nothing was written"),
        "{err}"
    );
    assert_eq!(
        fs::read(t.config_path()).unwrap(),
        before,
        "a refusal wrote"
    );
}

#[test]
fn agents_add_with_hub_writes_an_agent_of_another_machine() {
    let t = Test::new().agents(["qa"]);
    let add = ["agents", "add", "bob@ci-1", "--hub", "ci-1"];
    dry_run(&t, &add, &["\"bob@ci-1\": {", "\"hub\": \"ci-1\""]);
    let said = t.run().args(add).success();
    assert!(said.contains("added agent bob@ci-1 on hub ci-1"), "{said}");
    assert_eq!(config(&t)["agents"]["bob@ci-1"], json!({ "hub": "ci-1" }));
    // Its mail waits in its stand-in mailbox here.
    assert!(said.contains("remote/bob@ci-1 until"), "{said}");
    refused(
        &t,
        &["agents", "add", "bob@ci-2", "--hub", "ci-1"],
        "must be named NAME@ci-1",
    );
    // An agent of this machine again: its hub goes, a mailbox comes.
    t.run().args(["agents", "add", "bob@ci-1"]).success();
    let entry = &config(&t)["agents"]["bob@ci-1"];
    assert!(
        entry.get("hub").is_none() && entry["mailbox_path"].is_string(),
        "{entry}"
    );
}

#[test]
fn agents_add_with_a2a_writes_a_remote_a2a_agent_and_a_send_to_it_is_queued() {
    let t = Test::new().agents(["qa"]);
    let add = [
        "agents",
        "add",
        "planner",
        "--a2a",
        "http://127.0.0.1:9/agent",
        "--token",
        "s3cret",
    ];
    dry_run(
        &t,
        &add,
        &["\"planner\": {", "\"url\": \"http://127.0.0.1:9/agent\""],
    );
    let said = t.run().args(add).success();
    assert!(
        said.contains("for the A2A agent at http://127.0.0.1:9/agent"),
        "{said}"
    );
    assert_eq!(
        config(&t)["agents"]["planner"],
        json!({ "a2a": { "url": "http://127.0.0.1:9/agent", "token": "s3cret" } })
    );
    refused(
        &t,
        &["agents", "add", "other", "--a2a", "https://far.example/"],
        "only http://",
    );
    // No hub runs: the mail waits in the stand-in's inbox, the outgoing spool, and is pending.
    let sent: Value = serde_json::from_str(
        &t.run()
            .args([
                "--json", "--agent", "qa", "send", "planner", "ER", "plan it",
            ])
            .success(),
    )
    .unwrap();
    assert_eq!(sent["queued_for"], json!(["planner"]), "{sent}");
    let spool = t
        .config_path()
        .parent()
        .unwrap()
        .join("remote/planner/inbox");
    assert_eq!(
        fs::read_dir(&spool).unwrap().count(),
        1,
        "{}",
        spool.display()
    );
    let id = sent["id"].as_str().unwrap();
    let status: Value = serde_json::from_str(
        &t.run()
            .args(["--json", "--agent", "qa", "status", id])
            .success(),
    )
    .unwrap();
    assert_eq!(status["status"], "pending", "{status}");
}

#[test]
fn federation_set_writes_the_section_keeping_what_it_is_not_given() {
    let t = Test::new().agents(["qa"]);
    refused(
        &t,
        &["federation", "set", "--hub", "laptop"],
        "missing field `nats`",
    );
    let set = [
        "federation",
        "set",
        "--nats",
        "nats://127.0.0.1:4222",
        "--hub",
        "laptop",
    ];
    dry_run(
        &t,
        &set,
        &["\"federation\": {", "\"nats\": \"nats://127.0.0.1:4222\""],
    );
    t.run().args(set).success();
    t.run()
        .args(["federation", "set", "--replicas", "3"])
        .success();
    assert_eq!(
        config(&t)["federation"],
        json!({ "nats": "nats://127.0.0.1:4222", "hub": "laptop", "replicas": 3 })
    );
    refused(
        &t,
        &["federation", "set", "--replicas", "9"],
        "replicas must be 1 to 5",
    );
    refused(&t, &["federation", "set", "--hub", "no good"], "hub name");
    let same = t.run().args(set).args(["--dry-run"]).success();
    assert_eq!(same.trim(), "nothing to change");
}

#[test]
fn hub_set_adds_allowed_callback_urls_and_the_webhook_secret() {
    let t = Test::new().agents(["qa"]);
    let set = [
        "hub",
        "set",
        "--allow",
        "http://127.0.0.1:9000/hooks/",
        "--secret",
        "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw",
    ];
    dry_run(
        &t,
        &set,
        &["\"hub\": {", "\"http://127.0.0.1:9000/hooks/\""],
    );
    t.run().args(set).success();
    // Adding one already there does not repeat it; another is added after it.
    t.run()
        .args(["hub", "set", "--allow", "http://127.0.0.1:9000/hooks/"])
        .args(["--allow", "http://127.0.0.1:9001/"])
        .success();
    assert_eq!(
        config(&t)["hub"],
        json!({
            "callback_allow": ["http://127.0.0.1:9000/hooks/", "http://127.0.0.1:9001/"],
            "webhook_secret": "whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw"
        })
    );
    refused(&t, &["hub", "set", "--allow", "not a url"], "is not a URL");
    refused(&t, &["hub", "set", "--secret", "whsec_!!"], "not base64");
}

#[test]
fn setup_without_a_config_says_where_it_looked_and_what_to_run() {
    let dir = tempfile::tempdir().unwrap();
    // The binary as `Test` runs it (FILEBOX_TEST_BIN, else this build's).
    let binary = std::env::var_os("FILEBOX_TEST_BIN")
        .unwrap_or_else(|| env!("CARGO_BIN_EXE_filebox").into());
    let out = std::process::Command::new(binary)
        .args(["setup", "claude-code"])
        .current_dir(dir.path())
        .env("HOME", dir.path())
        .env("XDG_CONFIG_HOME", dir.path().join("xdg"))
        .env_remove("FILEBOX_CONFIG")
        .env_remove("FILEBOX_AGENT")
        .output()
        .unwrap();
    let err = String::from_utf8_lossy(&out.stderr);
    assert_eq!(out.status.code(), Some(1), "{err}");
    let folder = dir.path().canonicalize().unwrap();
    let user = dir.path().join("xdg/filebox/config.json");
    for said in [
        format!(
            "no .filebox/config.json in {} or any folder above it",
            folder.display()
        ),
        format!("nor at {}", user.display()),
        "run `filebox init --agent ID`".to_owned(),
    ] {
        assert!(err.contains(&said), "{said}: {err}");
    }
}
