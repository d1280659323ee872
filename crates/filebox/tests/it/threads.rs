//! `reply`, `thread`, `threads` and `fork`: threads and timeline forks over the mailbox files.

use serde_json::Value;

use crate::support::Test;

fn json(out: String) -> Value {
    serde_json::from_str(&out).expect("JSON")
}

fn thread(t: &Test, agent: &str, id: &str) -> Vec<Value> {
    json(t.as_agent(agent).args(["--json", "thread", id]).success())["nodes"]
        .as_array()
        .unwrap()
        .clone()
}

#[test]
fn group_and_cc_copies_share_one_id_and_replies_one_thread() {
    let t = Test::new()
        .agents(["qa", "dev", "pm", "ops"])
        .config("groups", serde_json::json!({"team": ["dev", "pm"]}));
    let id = t
        .as_agent("qa")
        .args(["send", "@team", "ER", "plan", "--cc", "ops"])
        .success()
        .trim()
        .to_owned();
    for agent in ["dev", "pm", "ops"] {
        assert_eq!(t.read_json(agent, "inbox", &id)["id"], id.as_str());
    }
    t.as_agent("dev")
        .args(["reply", &id, "my answer"])
        .success();
    let nodes = thread(&t, "pm", &id);
    assert_eq!(nodes.len(), 2, "{nodes:?}");
    assert_eq!(nodes[0]["id"], id.as_str());
    assert_eq!(nodes[1]["parent"], id.as_str());
    assert_eq!(nodes[1]["from"], "dev");
    assert_eq!(nodes[1]["to"], "qa");
    for key in [
        "id",
        "parent",
        "from",
        "to",
        "type",
        "timestamp",
        "status",
        "obsolete",
        "fork_reason",
    ] {
        assert!(nodes[0].get(key).is_some(), "{key}");
    }
    let threads = json(t.as_agent("qa").args(["--json", "threads"]).success());
    assert_eq!(threads["threads"][0]["thread"], id.as_str());
}

#[test]
fn reply_goes_to_reply_to_else_the_sender() {
    let t = Test::new().agents(["human", "dev", "lead"]);
    let id = t
        .as_agent("human")
        .args([
            "send",
            "dev",
            "ASK",
            "q?",
            "--reply-to-agent",
            "lead",
            "--source-type",
            "external",
        ])
        .success()
        .trim()
        .to_owned();
    t.as_agent("dev")
        .args(["reply", &id, "answer", "--type", "ACK"])
        .success();
    assert_eq!(t.files("lead", "inbox").len(), 1);
    assert!(t.files("human", "inbox").is_empty());
    t.as_agent("lead").args(["reply", &id, "thanks"]).success();
    assert_eq!(t.files("dev", "inbox").len(), 1);
    t.as_agent("dev").args(["reply", "deadbeef", "x"]).failure();
}

#[test]
fn fork_obsoletes_the_rest_of_the_branch_and_keeps_it() {
    let t = Test::new().agents(["a", "b"]);
    let e1 = t.send("a", "b", "ER", "E1 need");
    let e2 = t.send("b", "a", "DIS", "E2 plan A");
    // E3 answers E2 in a separate file (as another tool would write it).
    t.as_agent("a")
        .args(["reply", &e2, "E3 implementing A"])
        .success();
    let fork = json(
        t.as_agent("a")
            .args([
                "--json",
                "fork",
                "--from",
                &e1,
                "--reason",
                "direction-change",
            ])
            .args(["--context", "-"])
            .stdin("Plan A failed: use plan B.")
            .success(),
    );
    assert!(fork["id"].is_string());
    assert_eq!(fork["forked_from"], e1.as_str());
    // E2 is another thread: untouched.
    assert!(fork["obsoleted"].as_array().unwrap().is_empty());

    // A thread of one file: fork from its first reply; the later replies become obsolete.
    t.as_agent("b").args(["reply", &e1, "E1 reply 1"]).success();
    t.as_agent("a").args(["reply", &e1, "E1 reply 2"]).success();
    let first_reply = format!("{e1}#1");
    let forked = json(
        t.as_agent("a")
            .args([
                "--json",
                "fork",
                "--from",
                &first_reply,
                "--reason",
                "context-compression",
            ])
            .args(["--context", "conclusions", "--thread", &e1])
            .success(),
    );
    let nodes = thread(&t, "b", &e1);
    let by_id = |id: &str| nodes.iter().find(|n| n["id"] == id).cloned().unwrap();
    assert_eq!(by_id(&format!("{e1}#2"))["obsolete"], true);
    assert_eq!(by_id(&first_reply)["obsolete"], false);
    let new = by_id(forked["id"].as_str().unwrap());
    assert_eq!(new["parent"], first_reply.as_str());
    assert_eq!(new["fork_reason"], "context-compression");
    let text = t.as_agent("a").args(["thread", &e1]).success();
    assert!(text.contains("obsolete") && text.contains("fork"), "{text}");

    // Forking the fork's parent obsoletes a whole message file: its Status says so, everywhere.
    let later = json(
        t.as_agent("b")
            .args([
                "--json",
                "fork",
                "--from",
                &e1,
                "--reason",
                "direction-change",
                "--context",
                "again",
            ])
            .success(),
    );
    let obsoleted: Vec<&str> = later["obsoleted"]
        .as_array()
        .unwrap()
        .iter()
        .map(|v| v.as_str().unwrap())
        .collect();
    let fork_id = forked["id"].as_str().unwrap();
    assert!(obsoleted.contains(&fork_id), "{obsoleted:?}");
    let status = json(
        t.as_agent("b")
            .args(["--json", "status", fork_id])
            .success(),
    );
    assert_eq!(status["status"], "obsolete");
    assert_eq!(
        t.read_json("a", "outbox", fork_id)["headers"]["Status"],
        "obsolete"
    );
}

#[test]
fn bad_fork_and_thread_arguments() {
    let t = Test::new().agents(["a", "b"]);
    let e1 = t.send("a", "b", "ER", "one");
    let other = t.send("a", "b", "ER", "two");
    let err = t
        .as_agent("a")
        .args([
            "fork",
            "--from",
            &e1,
            "--reason",
            "direction-change",
            "--context",
            "x",
            "--thread",
            &other,
        ])
        .failure();
    assert!(err.contains("thread"), "{err}");
    t.as_agent("a")
        .args([
            "fork",
            "--from",
            &e1,
            "--reason",
            "because",
            "--context",
            "x",
        ])
        .usage_error();
    let err = t
        .as_agent("a")
        .args([
            "fork",
            "--from",
            "deadbeef",
            "--reason",
            "direction-change",
            "--context",
            "x",
        ])
        .failure();
    assert!(err.contains("deadbeef"), "{err}");
    t.as_agent("a")
        .args([
            "fork",
            "--from",
            &format!("{e1}#9"),
            "--reason",
            "direction-change",
            "--context",
            "x",
        ])
        .failure();
    t.as_agent("a").args(["thread", "deadbeef"]).failure();
}

#[test]
fn thread_tolerates_missing_parents_and_cycles() {
    let t = Test::new().agents(["a", "b"]);
    let file = |id: &str, parent: &str| {
        format!(
            "# DIS: x\n\n**Message ID:** {id}\n**Sender:** a\n**Receiver:** b\n**Timestamp:** 2025-01-01T00:00:00Z\n**Thread ID:** t-loop-0001\n**In Reply To:** {parent}\n\n---\n\n## Original Request/Content\n\nx\n"
        )
    };
    t.put(
        "b",
        "inbox",
        "20250101T000000-DIS-x-11111111.md",
        file("11111111-a", "22222222-b"),
    );
    t.put(
        "b",
        "inbox",
        "20250101T000000-DIS-x-22222222.md",
        file("22222222-b", "11111111-a"),
    );
    t.put(
        "b",
        "inbox",
        "20250101T000000-DIS-x-33333333.md",
        file("33333333-c", "99999999-gone"),
    );
    let nodes = thread(&t, "b", "11111111");
    assert_eq!(nodes.len(), 3);
    let missing = nodes.iter().find(|n| n["id"] == "33333333-c").unwrap();
    assert_eq!(missing["parent_missing"], true);
    assert!(nodes.iter().any(|n| n["parent"].is_null()));
}

#[test]
fn a_fork_that_cannot_mark_every_copy_is_still_one_fork_and_says_so() {
    let t = Test::new().agents(["a", "b", "ghost"]);
    let e1 = t.send("a", "b", "ER", "one");
    let first = json(
        t.as_agent("a")
            .args(["--json", "fork", "--from", &e1])
            .args(["--reason", "context-compression", "--context", "x"])
            .success(),
    );
    let first_id = first["id"].as_str().unwrap();
    // ghost's mailbox path becomes a plain file: nothing there can be marked.
    std::fs::remove_dir_all(t.mailbox("ghost")).unwrap();
    std::fs::write(t.mailbox("ghost"), b"not a folder").unwrap();
    let (out, err) = t
        .as_agent("b")
        .args(["--json", "fork", "--from", &e1])
        .args(["--reason", "direction-change", "--context", "y"])
        .expect_code(1);
    let second = json(out);
    assert!(second["id"].is_string(), "the fork was sent");
    assert!(err.contains("could not mark"), "{err}");
    assert!(
        second["warnings"][0]
            .as_str()
            .unwrap()
            .starts_with(&format!("could not mark {first_id}")),
        "{second}"
    );
    // The mailboxes that could be marked were.
    assert_eq!(
        t.read_json("a", "outbox", first_id)["headers"]["Status"],
        "obsolete"
    );
}

#[test]
fn only_a_person_sends_as_human_on_every_surface() {
    let t = Test::new().agents(["dev", "lead"]);
    let refused = t
        .as_agent("dev")
        .args(["send", "lead", "ER", "x", "--source-type", "human"])
        .failure();
    assert!(
        refused.contains("only a mailbox of kind human"),
        "{refused}"
    );
    assert!(t.files("lead", "inbox").is_empty());
}
