//! One copy speaks for a message (`filebox_core::copy`): after a reply round a message sits in
//! several folders of one mailbox, and `status`, `read` and `render` answer from the furthest
//! copy, not from the first folder searched.

use serde_json::Value;

use crate::support::Test;

/// qa asks dev; dev asks back, qa answers, dev resolves. dev now holds the stale record of its
/// own reply in outbox/ and the resolved conversation in done/.
fn resolved_after_a_reply_round() -> (Test, String) {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "Export the report");
    let short = id[..8].to_owned();
    t.as_agent("dev")
        .args(["send", "qa", "DIS", "Which?", "--reply_to", &short])
        .success();
    t.as_agent("qa").args(["reply", &short, "this"]).success();
    t.as_agent("dev")
        .args(["resolved", &short, "done"])
        .success();
    (t, short)
}

#[test]
fn status_follows_the_recipients_resolved_copy_not_its_stale_outbox_record() {
    let (t, short) = resolved_after_a_reply_round();
    let text = t.as_agent("qa").args(["status", &short]).success();
    assert!(text.contains("\" is resolved"), "{text}");
    assert!(text.contains("- dev: resolved (done)"), "{text}");
    let json: Value = serde_json::from_str(
        &t.as_agent("qa")
            .args(["--json", "status", &short])
            .success(),
    )
    .unwrap();
    assert_eq!(json["status"], "replied", "{json}");
    assert_eq!(json["recipients"][0]["folder"], "done", "{json}");
}

#[test]
fn read_without_a_folder_shows_the_whole_conversation() {
    let (t, short) = resolved_after_a_reply_round();
    let read: Value =
        serde_json::from_str(&t.as_agent("dev").args(["--json", "read", &short]).success())
            .unwrap();
    assert_eq!(read["folder"], "done", "{read}");
    let said: Vec<&str> = read["conversation"]
        .as_array()
        .unwrap()
        .iter()
        .map(|entry| entry["body"].as_str().unwrap())
        .collect();
    assert_eq!(said, ["Which?", "this"], "{read}");
}

#[test]
fn the_sender_sees_its_request_answered_once_the_answer_came_back() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "Export the report");
    t.as_agent("dev")
        .args(["reply", &id[..8], "Exported"])
        .success();
    let json: Value =
        serde_json::from_str(&t.as_agent("qa").args(["--json", "status", &id]).success()).unwrap();
    assert_eq!(json["status"], "replied", "{json}");
    assert_eq!(json["folder"], "inbox", "{json}");
    assert_eq!(json["copy_status"], "delivered", "{json}");
}

#[test]
fn render_shows_the_whole_conversation() {
    let (t, short) = resolved_after_a_reply_round();
    let xml = t
        .as_agent("dev")
        .args(["render", "--xml", &short])
        .success();
    assert!(xml.contains("Which?") && xml.contains("this"), "{xml}");
}
