//! What a new user trips over (issue 7): each test is one thing that went wrong when the
//! README and `--help` were taken literally.

use serde_json::Value;

use crate::support::Test;

#[test]
fn read_without_a_folder_looks_in_every_folder_inbox_first() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "Batch import");
    let short = &id[..8];
    let text = t.as_agent("dev").args(["read", short]).success();
    assert!(text.starts_with("# ER: Batch import"), "{text}");
    t.as_agent("dev")
        .args(["resolved", short, "Shipped"])
        .success();
    let json: Value =
        serde_json::from_str(&t.as_agent("dev").args(["--json", "read", short]).success()).unwrap();
    assert_eq!(json["folder"], "done");
    // The folder still narrows the search, and a folder alone is a usage error.
    t.as_agent("dev").args(["read", "inbox", short]).failure();
    t.as_agent("dev").args(["read", "done", short]).success();
    let err = t.as_agent("dev").args(["read", "inbox"]).usage_error();
    assert!(err.contains("give the message"), "{err}");
}

#[test]
fn list_thread_takes_a_short_id_and_names_a_thread_that_does_not_exist() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "One thread");
    t.send("qa", "dev", "ER", "Another thread");
    let listed = t
        .as_agent("dev")
        .args(["list", "inbox", "--thread", &id[..8]])
        .success();
    assert_eq!(listed.lines().count(), 1, "{listed}");
    assert!(listed.contains("One thread"), "{listed}");
    let err = t
        .as_agent("dev")
        .args(["list", "inbox", "--thread", "deadbeef"])
        .failure();
    assert!(
        err.contains("no message of your mailbox belongs to it"),
        "{err}"
    );
    // A thread that exists but has nothing in this folder is an empty listing, not an error.
    let none = t
        .as_agent("dev")
        .args(["list", "done", "--thread", &id[..8]])
        .success();
    assert_eq!(none.trim(), "No messages.");
}

#[test]
fn an_empty_body_is_refused_and_nothing_is_written() {
    let t = Test::new().agents(["qa", "dev"]);
    for empty in ["", "  \n\t"] {
        let err = t
            .as_agent("qa")
            .args(["send", "dev", "ER", empty])
            .failure();
        assert!(err.contains("it is empty"), "{err}");
    }
    assert!(t.files("dev", "inbox").is_empty());
    assert!(t.files("qa", "outbox").is_empty());
}

#[test]
fn sending_to_myself_is_delivered_with_a_warning() {
    let t = Test::new().agents(["qa", "dev"]);
    let (out, err) = t
        .as_agent("qa")
        .args(["send", "qa", "ER", "a note to self"])
        .expect_code(1);
    assert!(err.contains("qa is you"), "{err}");
    assert_eq!(t.files("qa", "inbox").len(), 1, "{out}");
    let (_, err) = t
        .as_agent("qa")
        .args(["send", "dev", "ER", "to someone else"])
        .expect_code(0);
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_normalised_type_is_noted() {
    let t = Test::new().agents(["qa", "dev"]);
    let (_, err) = t
        .as_agent("qa")
        .args(["send", "dev", "Feature", "a custom type"])
        .expect_code(0);
    assert!(
        err.contains(r#"the type "Feature" is written as FEATURE"#),
        "{err}"
    );
    let (_, err) = t
        .as_agent("qa")
        .args(["send", "dev", "ER", "a known type"])
        .expect_code(0);
    assert!(err.is_empty(), "{err}");
}

/// The one line of JSON a failing `--json` command writes on stderr.
fn json_error(stderr: &str) -> Value {
    let error: Value = serde_json::from_str(stderr.trim()).expect("stderr is one JSON value");
    assert!(error["error"]["message"].is_string(), "{error}");
    error
}

#[test]
fn with_json_errors_are_json_on_stderr() {
    let t = Test::new().agents(["qa", "dev"]);
    let err = t
        .as_agent("qa")
        .args(["--json", "read", "inbox", "deadbeef"])
        .failure();
    assert_eq!(json_error(&err)["error"]["kind"], "not_found");
    let err = t
        .as_agent("qa")
        .args(["list", "trash", "--json"])
        .usage_error();
    assert_eq!(json_error(&err)["error"]["kind"], "usage");
    // Without --json, errors stay text.
    let err = t
        .as_agent("qa")
        .args(["read", "inbox", "deadbeef"])
        .failure();
    assert!(err.starts_with("filebox: error: "), "{err}");
}

#[test]
fn help_says_what_each_option_means_for_its_command() {
    let t = Test::new();
    let mcp = t.run().args(["mcp", "--help"]).success();
    assert!(!mcp.contains("--json"), "{mcp}");
    let init = t.run().args(["init", "--help"]).success();
    assert!(init.contains("the agent to create"), "{init}");
    let send = t.run().args(["send", "--help"]).success();
    assert!(send.contains("[alias: --reply-to]"), "{send}");
    assert!(send.contains("that is --reply_to"), "{send}");
    for help in [&mcp, &init, &send] {
        assert!(!help.contains('§') && !help.contains("seed 0"), "{help}");
    }
}

#[test]
fn reply_prints_the_id_and_who_got_it() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "Batch import");
    let out = t
        .as_agent("dev")
        .args(["reply", &id[..8], "Which columns?"])
        .success();
    assert_eq!(out.trim(), format!("{id} -> qa"));
}

#[test]
fn agents_is_an_aligned_table_with_normalised_paths_and_no_lock_file_stays() {
    let t = Test::new().agents(["qa"]);
    let elsewhere = t.path().join("work/../other/./mailbox");
    t.run()
        .args(["agents", "add", "a-long-name", "--mailbox"])
        .args([&elsewhere])
        .success();
    let table = t.run().args(["agents"]).success();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("AGENT "), "{table}");
    let column = lines[0].find("MAILBOX").unwrap();
    for line in &lines[1..] {
        assert_eq!(line.chars().nth(column - 1), Some(' '), "{table}");
        assert_eq!(line.chars().nth(column - 2), Some(' '), "{table}");
    }
    let normal = t.path().join("other/mailbox");
    assert!(
        table.contains(&format!("  {}", normal.display())),
        "{table}"
    );
    assert!(table.contains("qa (you)"), "{table}");
    let leftovers: Vec<_> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("lock"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn relative_mailbox_paths_of_a_project_config_resolve_against_the_project_folder() {
    let t = Test::new();
    let project = t.path().join("project");
    std::fs::create_dir_all(project.join(".filebox")).unwrap();
    let config = project.join(".filebox/config.json");
    std::fs::write(
        &config,
        r#"{"current_agent_id": "qa", "agents": {"qa": {"mailbox_path": "docs/mailbox"}}}"#,
    )
    .unwrap();
    let listed: Value = serde_json::from_str(
        &t.run()
            .args(["--json", "--config"])
            .args([&config])
            .args(["agents"])
            .success(),
    )
    .unwrap();
    let expected = project.join("docs/mailbox");
    assert_eq!(
        listed["agents"][0]["mailbox_path"],
        expected.display().to_string()
    );
    t.run()
        .args(["--config"])
        .args([&config])
        .args(["send", "qa", "ER", "hello"])
        .expect_code(1);
    assert!(expected.join("inbox").is_dir());
    assert!(!project.join(".filebox/docs").exists());
}

#[test]
fn quickstart_ends_with_a_command_that_runs_as_printed() {
    let t = Test::new();
    let out = t
        .run()
        .args(["quickstart", "--dir"])
        .args([t.path().join("demo")])
        .success();
    let hint = out.lines().last().unwrap();
    let program = env!("CARGO_BIN_EXE_filebox");
    assert!(
        hint.contains(&format!("try: {program} --config ")),
        "{hint}"
    );
}
