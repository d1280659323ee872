//! `filebox teams bridge`: a Claude Code team (the fixture's `Boom_UI`) and the FileBox agent
//! `alice` talk through it, in both directions, without losing or duplicating a message when
//! a pass is interrupted and run again.

use std::fs;
use std::path::PathBuf;

use serde_json::Value;

use crate::support::Test;

const TEAM: &str = "Boom_UI";

fn setup() -> (Test, PathBuf) {
    let t = Test::new().agents(["alice"]);
    let dir = t.fixture("claude");
    (t, dir)
}

fn team_inbox(t: &Test, member: &str) -> PathBuf {
    t.path()
        .join(format!("claude/teams/{TEAM}/inboxes/{member}.json"))
}

fn messages(t: &Test, member: &str) -> Vec<Value> {
    let text = fs::read_to_string(team_inbox(t, member)).unwrap();
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn pass(t: &Test, dir: &PathBuf) -> Value {
    let out = t
        .run()
        .args(["--json", "teams", "bridge", TEAM, "--once", "--claude-dir"])
        .args([dir])
        .success();
    serde_json::from_str(&out).unwrap_or(Value::Null)
}

#[test]
fn team_messages_become_filebox_mail_once_and_are_marked_read_after() {
    let (t, dir) = setup();
    t.run()
        .args([
            "teams",
            "send",
            TEAM,
            "alice",
            "Please review <docs/api.md>",
            "--from",
            "researcher",
        ])
        .args([
            "--color",
            "blue",
            "--summary",
            "Review the API doc",
            "--claude-dir",
        ])
        .args([&dir])
        .success();
    let report = pass(&t, &dir);
    assert_eq!(
        report["members_added"],
        serde_json::json!(["team-lead@Boom_UI", "researcher@Boom_UI", "tester@Boom_UI"])
    );
    assert_eq!(report["carried"][0]["from"], "researcher@Boom_UI");
    assert_eq!(report["carried"][0]["direction"], "in");
    let id = report["carried"][0]["id"].as_str().unwrap().to_owned();
    let read = t.read_json("alice", "inbox", &id);
    assert_eq!(read["sender"], "researcher@Boom_UI");
    assert_eq!(read["title"], "Review the API doc");
    assert_eq!(read["body"], "Please review <docs/api.md>");
    assert_eq!(read["headers"]["Claude Color"], "blue");
    assert_eq!(messages(&t, "alice")[0]["read"], true);
    let config: Value =
        serde_json::from_str(&fs::read_to_string(t.config_path()).unwrap()).unwrap();
    assert!(
        config["agents"]["tester@Boom_UI"]["mailbox_path"]
            .as_str()
            .unwrap()
            .ends_with("bridges/Boom_UI/tester")
    );

    // A pass interrupted after delivering but before marking read: nothing is delivered twice.
    let path = team_inbox(&t, "alice");
    let unmarked = fs::read_to_string(&path)
        .unwrap()
        .replace("\"read\": true", "\"read\": false");
    fs::write(&path, unmarked).unwrap();
    assert_eq!(pass(&t, &dir), Value::Null, "an idle pass prints nothing");
    assert_eq!(t.files("alice", "inbox").len(), 1);
    assert_eq!(messages(&t, "alice")[0]["read"], true);
}

#[test]
fn mail_to_member_at_team_reaches_the_team_inbox_once() {
    let (t, dir) = setup();
    pass(&t, &dir);
    let before = messages(&t, "tester").len();
    t.send(
        "alice",
        "tester@Boom_UI",
        "ER",
        "# Run the suite\n\nTwice, please.",
    );
    let report = pass(&t, &dir);
    assert_eq!(report["carried"][0]["direction"], "out");
    assert_eq!(report["carried"][0]["to"], "tester@Boom_UI");
    let inbox = messages(&t, "tester");
    assert_eq!(inbox.len(), before + 1);
    let last = &inbox[before];
    assert_eq!(last["from"], "alice");
    assert_eq!(last["text"], "# Run the suite\n\nTwice, please.");
    assert_eq!(last["summary"], "Run the suite");
    assert_eq!(last["read"], false);
    assert!(last["timestamp"].as_str().unwrap().ends_with(".000Z"));
    let mailbox = t.path().join("bridges/Boom_UI/tester");
    let names = |folder: &str| -> Vec<String> {
        fs::read_dir(mailbox.join(folder))
            .unwrap()
            .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
            .collect()
    };
    assert!(names("inbox").is_empty());
    let done = names("done");
    assert_eq!(done.len(), 1);

    // Interrupted after appending but before resolving: the message is back in the inbox;
    // the next pass recognizes it in the team inbox and only resolves it.
    fs::rename(
        mailbox.join("done").join(&done[0]),
        mailbox.join("inbox").join(&done[0]),
    )
    .unwrap();
    pass(&t, &dir);
    assert!(names("inbox").is_empty());
    assert_eq!(
        messages(&t, "tester").len(),
        before + 1,
        "not appended twice"
    );
}

#[test]
fn a_reply_to_a_teammate_goes_back_to_its_team_inbox() {
    let (t, dir) = setup();
    t.run()
        .args([
            "teams",
            "send",
            TEAM,
            "alice",
            "Is the API frozen?",
            "--from",
            "researcher",
            "--claude-dir",
        ])
        .args([&dir])
        .success();
    let report = pass(&t, &dir);
    let id = report["carried"][0]["id"].as_str().unwrap().to_owned();
    t.as_agent("alice")
        .args(["reply", &id, "Yes, since Monday."])
        .success();
    let report = pass(&t, &dir);
    assert_eq!(report["carried"][0]["from"], "alice");
    assert_eq!(report["carried"][0]["to"], "researcher@Boom_UI");
    let last = messages(&t, "researcher").last().unwrap().clone();
    assert_eq!(last["text"], "Yes, since Monday.");
    assert_eq!(last["from"], "alice");
}

#[test]
fn the_foreground_bridge_delivers_as_messages_arrive() {
    let (t, dir) = setup();
    // The first wait starts from the inbox as it is: take that baseline before anything moves.
    t.as_agent("alice")
        .args(["wait", "--timeout", "0"])
        .expect_code(3);
    let mut bridge = t
        .run()
        .args([
            "teams",
            "bridge",
            TEAM,
            "--interval-ms",
            "50",
            "--claude-dir",
        ])
        .args([&dir])
        .command()
        .spawn()
        .unwrap();
    t.run()
        .args([
            "teams",
            "send",
            TEAM,
            "alice",
            "Build is green",
            "--from",
            "tester",
            "--claude-dir",
        ])
        .args([&dir])
        .success();
    let out = t
        .as_agent("alice")
        .args(["--json", "wait", "--timeout", "120"])
        .output();
    bridge.kill().unwrap();
    bridge.wait().unwrap();
    let arrived: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        arrived["messages"][0]["sender"], "tester@Boom_UI",
        "{arrived}"
    );
    assert_eq!(arrived["messages"][0]["title"], "Build is green");
}

#[test]
fn the_hub_runs_the_bridges_its_config_names() {
    let t = Test::new().agents(["alice"]);
    let dir = t.fixture("claude");
    let t = t.config(
        "bridges",
        serde_json::json!([{ "claude_team": TEAM, "mailbox": "alice", "claude_dir": "claude" }]),
    );
    t.as_agent("alice")
        .args(["wait", "--timeout", "0"])
        .expect_code(3);
    let mut hub = t
        .run()
        .args(["serve", "--listen", "127.0.0.1:0"])
        .command()
        .spawn()
        .unwrap();
    t.run()
        .args([
            "teams",
            "send",
            TEAM,
            "alice",
            "Deployed",
            "--from",
            "team-lead",
            "--claude-dir",
        ])
        .args([&dir])
        .success();
    let out = t
        .as_agent("alice")
        .args(["--json", "wait", "--timeout", "120"])
        .output();
    std::process::Command::new("kill")
        .args(["-TERM", &hub.id().to_string()])
        .status()
        .unwrap();
    let status = hub.wait().unwrap();
    let arrived: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        arrived["messages"][0]["sender"], "team-lead@Boom_UI",
        "{arrived}"
    );
    assert!(
        status.success(),
        "the hub stops its bridges and exits: {status}"
    );

    let t = t.config("bridges", serde_json::json!([{ "team": TEAM }]));
    let err = t.run().args(["serve", "--listen", "127.0.0.1:0"]).failure();
    assert!(err.contains("the \"bridges\" section"), "{err}");
}
