//! `filebox teams ...` on Claude Code team inboxes written in the exact format of the
//! reference notes (tests/bridges/fixtures/claude: a team whose name puts its config and its
//! inboxes in two folders, and inboxes holding every structured message kind).

use std::collections::BTreeSet;
use std::fs;
use std::path::Path;

use filebox_bridge::team_inbox::Kind;
use serde_json::Value;

use crate::support::{SESSION_ID, Test, in_session};

const TEAM: &str = "Boom_UI";

/// A test with the fixture's Claude folder; returns it with the `--claude-dir` arguments.
fn claude() -> (Test, Vec<String>) {
    let t = Test::new();
    let dir = t.fixture("claude");
    let args = vec!["--claude-dir".to_owned(), dir.display().to_string()];
    (t, args)
}

fn json_of(out: &str) -> Value {
    serde_json::from_str(out).expect("--json prints JSON")
}

/// A lower-case hyphenated UUID, as `msg_id` is.
pub(crate) fn assert_uuid(value: &Value) {
    let text = value.as_str().unwrap_or_default();
    let groups: Vec<usize> = text.split('-').map(str::len).collect();
    assert_eq!(groups, [8, 4, 4, 4, 12], "not a UUID: {value}");
    assert!(
        text.chars()
            .all(|c| c == '-' || matches!(c, '0'..='9' | 'a'..='f')),
        "not a UUID: {value}"
    );
}

fn inbox_file(t: &Test, member: &str) -> Value {
    let path = t
        .path()
        .join(format!("claude/teams/{TEAM}/inboxes/{member}.json"));
    json_of(&fs::read_to_string(path).expect("inbox file"))
}

#[test]
fn lists_the_team_from_its_config_with_member_counts() {
    let (t, dir) = claude();
    let out = json_of(&t.run().args(["--json", "teams"]).args(&dir).success());
    let team = &out["teams"][0];
    assert_eq!(out["teams"].as_array().unwrap().len(), 1, "{out}");
    assert_eq!(team["name"], TEAM);
    assert!(
        team["config"]
            .as_str()
            .unwrap()
            .ends_with("teams/boom-ui/config.json")
    );
    assert!(
        team["inboxes"]
            .as_str()
            .unwrap()
            .ends_with("teams/Boom_UI/inboxes")
    );
    let members: Vec<(&str, u64, u64)> = team["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            (
                m["name"].as_str().unwrap(),
                m["messages"].as_u64().unwrap(),
                m["unread"].as_u64().unwrap(),
            )
        })
        .collect();
    assert_eq!(
        members,
        [("team-lead", 8, 7), ("researcher", 7, 6), ("tester", 4, 4)]
    );
    let text = t.run().args(["teams"]).args(&dir).success();
    assert!(text.contains("Boom_UI — Boom UI refresh"), "{text}");
    assert!(text.contains("  tester (4 messages, 4 unread)"), "{text}");
}

#[test]
fn every_structured_kind_of_the_fixtures_is_recognized() {
    let (t, dir) = claude();
    let mut kinds = BTreeSet::new();
    for member in ["team-lead", "researcher", "tester"] {
        let out = json_of(
            &t.run()
                .args(["--json", "teams", "inbox", TEAM, member])
                .args(&dir)
                .success(),
        );
        let messages = out["messages"].as_array().unwrap();
        // Unread first, then read.
        let read: Vec<bool> = messages
            .iter()
            .map(|m| m["read"].as_bool().unwrap())
            .collect();
        let mut sorted = read.clone();
        sorted.sort();
        assert_eq!(read, sorted, "{member}: unread first");
        for message in messages {
            let text = message["text"].as_str().unwrap();
            match message["kind"].as_str() {
                Some(kind) => {
                    assert!(text.starts_with('{'), "{text}");
                    assert!(message["description"].as_str().unwrap().starts_with('['));
                    kinds.insert(kind.to_owned());
                }
                None => assert!(!text.starts_with('{'), "unrecognized: {text}"),
            }
        }
    }
    let all: BTreeSet<String> = Kind::ALL.iter().map(|k| k.as_str().to_owned()).collect();
    assert_eq!(kinds, all);
    let text = t
        .run()
        .args(["teams", "inbox", TEAM, "team-lead"])
        .args(&dir)
        .success();
    assert!(
        text.contains(
            "* 2026-04-01T10:31:30.000Z tester [idle notification] failed, completed task: 2, status: failed, failure: npm test exited 1"
        ),
        "{text}"
    );
    assert!(
        text.contains(
            "  2026-04-01T10:30:00.000Z researcher: API 文档搜索完成\n    已完成文档搜索"
        ),
        "{text}"
    );
}

#[test]
fn read_marks_exactly_the_messages_it_printed() {
    let (t, dir) = claude();
    let before = inbox_file(&t, "tester");
    let out = json_of(
        &t.run()
            .args(["--json", "teams", "read", TEAM, "tester"])
            .args(&dir)
            .success(),
    );
    assert_eq!(out["marked_read"], 4);
    assert_eq!(out["messages"].as_array().unwrap().len(), 4);
    let after = inbox_file(&t, "tester");
    for (old, new) in before
        .as_array()
        .unwrap()
        .iter()
        .zip(after.as_array().unwrap())
    {
        let mut expected = old.clone();
        expected["read"] = Value::Bool(true);
        assert_eq!(*new, expected, "only `read` changes");
    }
    let again = t
        .run()
        .args(["teams", "read", TEAM, "tester"])
        .args(&dir)
        .success();
    assert_eq!(
        again.trim(),
        "No unread messages for tester in team Boom_UI."
    );
    let unread = json_of(
        &t.run()
            .args(["--json", "teams", "inbox", TEAM, "researcher", "--unread"])
            .args(&dir)
            .success(),
    );
    assert_eq!(unread["messages"].as_array().unwrap().len(), 6);
}

#[test]
fn send_writes_claude_codes_fields_and_broadcast_skips_the_sender() {
    let (t, dir) = claude();
    // No FileBox agent to send as: FileBox claims no one's name.
    let err = t
        .run()
        .args(["teams", "send", TEAM, "tester", "Run the suite again"])
        .args(&dir)
        .failure();
    assert!(
        err.contains("no sender: FileBox writes as no one it is not"),
        "{err}"
    );
    let t = t.agents(["alice"]);
    let out = json_of(
        &t.run()
            .args([
                "--json",
                "teams",
                "send",
                TEAM,
                "tester",
                "Run the suite again",
            ])
            .args(["--summary", "Rerun", "--color", "purple"])
            .args(&dir)
            .success(),
    );
    assert_eq!(out["from"], "alice", "the FileBox agent's own name");
    let last = inbox_file(&t, "tester")
        .as_array()
        .unwrap()
        .last()
        .unwrap()
        .clone();
    let keys: Vec<&String> = last.as_object().unwrap().keys().collect();
    assert_eq!(
        keys,
        [
            "color",
            "from",
            "msgV",
            "msg_id",
            "read",
            "summary",
            "text",
            "timestamp",
            "type"
        ]
    );
    assert_eq!(last["type"], "message");
    assert_eq!(last["msgV"], 1);
    assert_uuid(&last["msg_id"]);
    assert_eq!(last["text"], "Run the suite again");
    assert_eq!(last["read"], false);
    let stamp = last["timestamp"].as_str().unwrap();
    assert!(
        stamp.len() == 24 && stamp.ends_with('Z') && stamp.as_bytes()[19] == b'.',
        "{stamp}"
    );
    assert_eq!(out["timestamp"], stamp);
    let raw = fs::read_to_string(
        t.path()
            .join(format!("claude/teams/{TEAM}/inboxes/tester.json")),
    )
    .unwrap();
    assert!(
        raw.starts_with("[\n  {\n    \"from\": "),
        "two-space JSON: {raw}"
    );

    let shutdown = r#"{"type":"shutdown_request","requestId":"shutdown-1@researcher","from":"researcher","timestamp":"2026-04-01T11:00:00.000Z"}"#;
    let out = json_of(
        &t.run()
            .args([
                "--json",
                "teams",
                "send",
                TEAM,
                "*",
                shutdown,
                "--from",
                "researcher",
            ])
            .args(&dir)
            .success(),
    );
    assert_eq!(out["to"], serde_json::json!(["team-lead", "tester"]));
    let lead = inbox_file(&t, "team-lead");
    assert_eq!(lead.as_array().unwrap().last().unwrap()["text"], shutdown);
    assert_eq!(inbox_file(&t, "researcher").as_array().unwrap().len(), 7);
}

#[test]
fn an_unreadable_inbox_fails_the_send_and_is_left_alone() {
    let (t, dir) = claude();
    let path = t
        .path()
        .join(format!("claude/teams/{TEAM}/inboxes/tester.json"));
    fs::write(&path, "[{\"from\": \"team-lead\", \"te").unwrap();
    let err = t
        .run()
        .args([
            "teams",
            "send",
            TEAM,
            "tester",
            "hello",
            "--from",
            "team-lead",
        ])
        .args(&dir)
        .failure();
    assert!(
        err.contains("tester.json: the inbox is not readable"),
        "{err}"
    );
    assert_eq!(
        fs::read_to_string(&path).unwrap(),
        "[{\"from\": \"team-lead\", \"te"
    );
    assert!(
        !t.path()
            .join(format!("claude/teams/{TEAM}/inboxes/tester.json.lock"))
            .exists()
    );
    let err = t
        .run()
        .args(["teams", "inbox", "Nope", "x"])
        .args(&dir)
        .failure();
    assert!(
        err.contains("invalid team \"Nope\": no such team under"),
        "{err}"
    );
}

#[test]
fn the_claude_folder_comes_from_claude_config_dir_else_home() {
    let t = Test::new();
    t.fixture("claude");
    let home = t.path().join(".claude");
    fs::create_dir_all(home.join("teams/solo/inboxes")).unwrap();
    let out = t.run().args(["teams"]).success();
    assert_eq!(out.trim(), "solo");
    let mut command = t.run().args(["--json", "teams"]).command();
    command.env("CLAUDE_CONFIG_DIR", t.path().join("claude"));
    let out = command.output().unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("\"Boom_UI\""));
}

/// The teams page's "More on the fixture team" block runs as written, from the repository's
/// folder, on a copy of the fixture team (the story test, `readme.rs`, runs it after the rest
/// of the story; this runs it alone).
#[test]
fn the_readme_team_example_runs_as_written() {
    let page = include_str!("../../../../docs/teams.md");
    let block = page
        .split("More on the fixture team")
        .nth(1)
        .and_then(|rest| rest.split("```sh\n").nth(1))
        .and_then(|rest| rest.split("```").next())
        .expect("the teams page's example");
    let t = Test::new();
    let demo = t.path().join("claude-demo");
    let script = format!(
        "cp -r tests/bridges/fixtures/claude '{0}' && export CLAUDE_CONFIG_DIR='{0}'\n{block}",
        demo.display()
    );
    let binary = Path::new(env!("CARGO_BIN_EXE_filebox"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let done = std::process::Command::new("sh")
        .args(["-ec", &script])
        .current_dir(Path::new(env!("CARGO_MANIFEST_DIR")).join("../.."))
        .env("PATH", path)
        .env("HOME", t.path())
        .output()
        .unwrap();
    let out = String::from_utf8_lossy(&done.stdout);
    assert!(
        done.status.success(),
        "{out}\n{}",
        String::from_utf8_lossy(&done.stderr)
    );
    assert!(out.starts_with("Boom_UI — Boom UI refresh\n"), "{out}");
    assert!(
        out.contains("\nSent to researcher in team Boom_UI as alice at "),
        "{out}"
    );
    assert!(
        out.contains("alice: Check the API\n    Please check src/api\n"),
        "{out}"
    );
    assert!(
        out.contains("<teammate-message teammate_id=\"researcher\" color=\"blue\""),
        "{out}"
    );
}

/// The fixture in Claude Code's current shape (2.1.331): one session team, entries with
/// `type`, `msgV` and `msg_id`, delivered messages pruned (no `read: true` anywhere).
const SESSION_TEAM: &str = "session-1a2b3c4d";

fn current() -> (Test, Vec<String>) {
    let t = Test::new().agents(["alice"]);
    let dir = t.fixture("claude-2.1.331");
    let args = vec!["--claude-dir".to_owned(), dir.display().to_string()];
    (t, args)
}

fn current_inbox(t: &Test, member: &str) -> Value {
    let path = t.path().join(format!(
        "claude-2.1.331/teams/{SESSION_TEAM}/inboxes/{member}.json"
    ));
    json_of(&fs::read_to_string(path).expect("inbox file"))
}

#[test]
fn a_current_inbox_lists_as_a_session_team_and_hides_what_its_schema_refuses() {
    let (t, dir) = current();
    let out = json_of(&t.run().args(["--json", "teams"]).args(&dir).success());
    let team = &out["teams"][0];
    assert_eq!(team["name"], SESSION_TEAM);
    assert_eq!(team["session"], true);
    let counts: Vec<(&str, u64, u64)> = team["members"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| {
            let count = |k: &str| m[k].as_u64().unwrap();
            (
                m["name"].as_str().unwrap(),
                count("messages"),
                count("unread"),
            )
        })
        .collect();
    // team-lead's fifth entry has `type: "note"`: Claude Code drops it, FileBox does not show it.
    assert_eq!(
        counts,
        [("team-lead", 4, 4), ("researcher", 3, 3), ("tester", 2, 2)]
    );
    let text = t.run().args(["teams"]).args(&dir).success();
    assert!(
        text.starts_with("session-1a2b3c4d (session team: ends with its Claude Code session)"),
        "{text}"
    );
    let inbox = json_of(
        &t.run()
            .args(["--json", "teams", "inbox", SESSION_TEAM, "team-lead"])
            .args(&dir)
            .success(),
    );
    let kinds: Vec<&str> = inbox["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["kind"].as_str().unwrap_or("text"))
        .collect();
    assert_eq!(
        kinds,
        ["idle_notification", "plan_approval_request", "text", "text"]
    );
}

#[test]
fn sending_keeps_what_others_wrote_and_reading_prunes_as_claude_code_does() {
    let (t, dir) = current();
    let before = current_inbox(&t, "researcher");
    t.run()
        .args([
            "teams",
            "send",
            SESSION_TEAM,
            "researcher",
            "Auth routes next",
        ])
        .args(&dir)
        .success();
    let after = current_inbox(&t, "researcher");
    let after = after.as_array().unwrap();
    assert_eq!(
        after[..3],
        before.as_array().unwrap()[..],
        "lead_sig, msg_id kept"
    );
    assert_eq!(after[3]["from"], "alice");
    assert_eq!(after[3]["type"], "message");
    assert_uuid(&after[3]["msg_id"]);

    // Reading removes exactly the messages it printed; the refused entry stays as it was.
    let lead_before = current_inbox(&t, "team-lead");
    let read = json_of(
        &t.run()
            .args(["--json", "teams", "read", SESSION_TEAM, "team-lead"])
            .args(&dir)
            .success(),
    );
    assert_eq!(read["marked_read"], 4);
    assert_eq!(
        current_inbox(&t, "team-lead"),
        serde_json::json!([lead_before[4]]),
        "pruned, not flagged"
    );

    // A setting overrides what the file shows.
    let mut command = t
        .run()
        .args(["teams", "read", SESSION_TEAM, "tester"])
        .args(&dir)
        .command();
    command.env("FILEBOX_CLAUDE_MARK_READ", "flag");
    assert!(command.output().unwrap().status.success());
    let tester = current_inbox(&t, "tester");
    assert!(tester.as_array().unwrap().iter().all(|m| m["read"] == true));
}

#[test]
fn an_ended_session_team_fails_a_send_clearly_and_is_not_brought_back() {
    let (t, dir) = current();
    let folder = t
        .path()
        .join(format!("claude-2.1.331/teams/{SESSION_TEAM}"));
    fs::remove_dir_all(&folder).unwrap();
    let err = t
        .run()
        .args(["teams", "send", SESSION_TEAM, "tester", "Still there?"])
        .args(&dir)
        .failure();
    assert!(
        err.contains("team \"session-1a2b3c4d\" has ended: a session team lives only while its Claude Code session runs"),
        "{err}"
    );
    assert!(!folder.exists(), "an ended team's folder is not recreated");
    let listed = t.run().args(["teams"]).args(&dir).success();
    assert!(listed.starts_with("No teams in "), "{listed}");
}

#[test]
fn a_team_not_named_is_the_one_claude_code_would_use() {
    let (t, dir) = current();
    let inbox_of = |vars: &[(&str, &str)]| {
        let mut command = t
            .run()
            .args(["--json", "teams", "inbox", "tester"])
            .args(&dir)
            .command();
        command.env_remove("CLAUDE_CODE_TEAM_NAME");
        for (name, value) in vars {
            command.env(name, value);
        }
        command.output().unwrap()
    };
    let session = inbox_of(&[("CLAUDE_CODE_SESSION_ID", SESSION_ID)]);
    assert_eq!(
        json_of(&String::from_utf8_lossy(&session.stdout))["team"],
        SESSION_TEAM
    );
    let named = inbox_of(&[
        ("CLAUDE_CODE_SESSION_ID", SESSION_ID),
        ("CLAUDE_CODE_TEAM_NAME", "elsewhere"),
    ]);
    let refused = |output: &std::process::Output| {
        json_of(&String::from_utf8_lossy(&output.stderr))["error"]["message"]
            .as_str()
            .unwrap_or_default()
            .to_owned()
    };
    assert!(
        refused(&named).starts_with("invalid team \"elsewhere\""),
        "the teammate's team comes first: {}",
        refused(&named)
    );
    let neither = inbox_of(&[("CLAUDE_CODE_SESSION_ID", "99999999-0000")]);
    assert!(
        refused(&neither).starts_with("invalid team \"default\""),
        "{}",
        refused(&neither)
    );
}

#[test]
fn send_on_the_command_line_may_leave_the_team_out() {
    let (t, dir) = current();
    let send = |words: &[&str]| {
        let mut command = t
            .run()
            .args(["--json", "teams", "send"])
            .args(words)
            .args(&dir)
            .command();
        in_session(&mut command);
        command.output().unwrap()
    };
    let unnamed = send(&["tester", "-1 flaky test left"]);
    assert!(unnamed.status.success(), "{unnamed:?}");
    let named = send(&[SESSION_TEAM, "tester", "Named this time"]);
    assert!(named.status.success(), "{named:?}");
    let texts: Vec<String> = current_inbox(&t, "tester")
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["text"].as_str().unwrap_or_default().to_owned())
        .collect();
    assert!(
        texts.iter().any(|text| text == "-1 flaky test left"),
        "two words are TO and TEXT, in the session's team: {texts:?}"
    );
    assert!(
        texts.iter().any(|text| text == "Named this time"),
        "{texts:?}"
    );
    let one_word = send(&["tester"]);
    assert_eq!(
        one_word.status.code(),
        Some(2),
        "a usage error: {one_word:?}"
    );
}
