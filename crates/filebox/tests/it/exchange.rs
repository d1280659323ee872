//! A QA agent and a dev agent's exchange end to end: send, list, read, reply both ways, resolve.

use crate::support::Test;

#[test]
fn enhancement_request_travels_and_is_resolved() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send(
        "qa",
        "dev",
        "ER",
        "# Batch import\n\nPlease accept a CSV upload.\n",
    );
    let short = &id[..8];

    // Sent: one file in dev's inbox, a copy in qa's outbox, same name.
    let inbox = t.files("dev", "inbox");
    assert_eq!(inbox.len(), 1);
    assert_eq!(t.files("qa", "outbox"), inbox);
    let listing = t.as_agent("dev").args(["list", "inbox"]).success();
    assert!(listing.contains(" ER Batch import ("), "{listing}");
    assert!(listing.contains(&inbox[0]), "{listing}");

    // dev asks back: the file moves to qa's inbox, dev keeps a full copy in its outbox.
    t.as_agent("dev")
        .args(["send", "qa", "DIS", "Which columns?", "--reply_to", short])
        .success();
    assert!(t.files("dev", "inbox").is_empty());
    assert_eq!(t.files("qa", "inbox"), inbox);
    assert_eq!(t.files("dev", "outbox"), inbox);

    // qa answers: back to dev.
    t.as_agent("qa")
        .args([
            "send",
            "dev",
            "DIS",
            "name, email, role",
            "--reply_to",
            short,
        ])
        .success();
    assert!(t.files("qa", "inbox").is_empty());
    assert_eq!(t.files("dev", "inbox"), inbox);

    // dev resolves: inbox -> done, processing history recorded, owner dev.
    t.as_agent("dev")
        .args(["resolved", short, "CSV import shipped"])
        .success();
    assert!(t.files("dev", "inbox").is_empty());
    assert_eq!(t.files("dev", "done"), inbox);

    let message = t.read_json("dev", "done", short);
    assert_eq!(message["id"], id.as_str());
    assert_eq!(message["original_sender"], "qa");
    assert_eq!(message["current_owner"], "dev");
    assert_eq!(
        message["body"],
        "# Batch import\n\nPlease accept a CSV upload.\n"
    );
    let conversation = message["conversation"].as_array().unwrap();
    assert_eq!(conversation.len(), 2);
    assert_eq!(conversation[0]["from"], "dev");
    assert_eq!(conversation[0]["to"], "qa");
    assert_eq!(conversation[0]["type"], "DIS");
    assert_eq!(conversation[0]["body"], "Which columns?");
    assert_eq!(conversation[1]["from"], "qa");
    assert_eq!(conversation[1]["body"], "name, email, role");
    let processing = message["processing"].as_array().unwrap();
    assert_eq!(processing.len(), 1);
    assert_eq!(processing[0]["action"], "Resolved");
    assert_eq!(processing[0]["by"], "dev");
    assert_eq!(processing[0]["details"], "CSV import shipped");

    // Resolving again: already handled, exit 1.
    let err = t
        .as_agent("dev")
        .args(["resolved", short, "again"])
        .failure();
    assert!(err.contains("already handled"), "{err}");
}

#[test]
fn reject_and_onhold_move_to_cancel_and_hold() {
    let t = Test::new().agents(["qa", "dev"]);
    let a = t.send("qa", "dev", "BR", "crash on save");
    let b = t.send("qa", "dev", "ER", "dark mode");
    t.as_agent("dev")
        .args(["reject", &a, "cannot reproduce"])
        .success();
    t.as_agent("dev").args(["onhold", &b, "after v2"]).success();
    assert_eq!(t.files("dev", "cancel").len(), 1);
    assert_eq!(t.files("dev", "hold").len(), 1);
    assert!(t.files("dev", "inbox").is_empty());
    // A held message can still be resolved.
    t.as_agent("dev")
        .args(["resolved", &b, "done after all"])
        .success();
    assert_eq!(t.files("dev", "done").len(), 1);
    let held = t.read_json("dev", "done", &b);
    let actions: Vec<&str> = held["processing"]
        .as_array()
        .unwrap()
        .iter()
        .map(|p| p["action"].as_str().unwrap())
        .collect();
    assert_eq!(actions, ["On Hold", "Resolved"]);
}

#[test]
fn a_recipient_that_cannot_receive_does_not_hide_the_others_delivery() {
    let t = Test::new().agents(["qa", "dev", "ghost"]);
    // ghost's mailbox path is a plain file: nothing can be delivered there.
    std::fs::remove_dir_all(t.mailbox("ghost")).unwrap();
    std::fs::write(t.mailbox("ghost"), b"not a folder").unwrap();
    let err = t
        .as_agent("qa")
        .args(["send", "dev,ghost", "ER", "for both"])
        .failure();
    assert!(
        err.contains("delivered to [dev]") && err.contains("ghost"),
        "{err}"
    );
    assert_eq!(t.files("dev", "inbox").len(), 1);
    assert_eq!(t.files("qa", "outbox"), t.files("dev", "inbox"));
}

#[test]
fn agents_reports_an_unusable_mailbox_and_still_counts_the_others() {
    let t = Test::new().agents(["qa", "dev", "ghost"]);
    t.send("qa", "dev", "ER", "hello");
    std::fs::remove_dir_all(t.mailbox("ghost")).unwrap();
    std::fs::write(t.mailbox("ghost"), b"not a folder").unwrap();
    let (out, err) = t.as_agent("qa").args(["agents"]).expect_code(1);
    assert!(err.contains("ghost") && err.contains("unusable"), "{err}");
    let dev = out.lines().find(|l| l.starts_with("dev ")).unwrap();
    assert_eq!(dev.split_whitespace().nth(2), Some("1"), "{out}");
    let ghost = out.lines().find(|l| l.starts_with("ghost ")).unwrap();
    assert!(ghost.contains("(not counted)"), "{out}");
    let (json, _) = t.as_agent("qa").args(["--json", "agents"]).expect_code(1);
    let json: serde_json::Value = serde_json::from_str(&json).unwrap();
    let ghost = json["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "ghost")
        .unwrap();
    assert!(ghost["counts"].is_null(), "{ghost}");
    let warnings = json["warnings"].as_array().unwrap();
    assert_eq!(warnings.len(), 1, "{json}");
    assert!(
        warnings[0]
            .as_str()
            .unwrap()
            .starts_with("the mailbox of ghost is unusable"),
        "{json}"
    );
}

#[test]
fn reading_other_mailboxes_creates_and_recovers_nothing() {
    let t = Test::new().agents(["qa", "dev"]);
    // An agent whose mailbox was never created, and a stray staged file in dev's tmp/.
    let config = std::fs::read_to_string(t.config_path()).unwrap();
    let mut config: serde_json::Value = serde_json::from_str(&config).unwrap();
    config["agents"]["later"] = serde_json::json!({ "mailbox_path": "mailboxes/later" });
    std::fs::write(t.config_path(), config.to_string()).unwrap();
    let stray = t.put("dev", "tmp", "crashed.1.new", "half");
    let id = t.send("qa", "dev", "ER", "hello");

    let out = t.as_agent("qa").args(["--json", "agents"]).success();
    let agents: serde_json::Value = serde_json::from_str(&out).unwrap();
    let later = agents["agents"]
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "later")
        .unwrap();
    assert_eq!(later["counts"]["inbox"], 0, "{later}");
    t.as_agent("qa").args(["thread", &id]).success();
    t.as_agent("qa").args(["status", &id]).success();
    t.as_agent("qa")
        .args(["search", "hello", "--all"])
        .success();
    assert!(
        !t.mailbox("later").join("inbox").exists(),
        "a reader created folders"
    );
    assert!(stray.exists(), "a reader ran dev's recovery");
}

#[test]
fn an_unusable_mailbox_is_one_warning_and_every_verb_carries_on() {
    let t = Test::new().agents(["qa", "dev", "ghost"]);
    let id = t.send("qa", "dev,ghost", "ER", "hello everyone");
    std::fs::remove_dir_all(t.mailbox("ghost")).unwrap();
    std::fs::write(t.mailbox("ghost"), b"not a folder").unwrap();
    let warning = "filebox: warning: the mailbox of ghost is unusable: ";
    for args in [
        vec!["--json", "thread", id.as_str()],
        vec!["--json", "search", "hello", "--all"],
        vec!["--json", "status", id.as_str()],
        vec!["--json", "agents"],
    ] {
        let (out, err) = t.as_agent("qa").args(&args).expect_code(1);
        assert!(err.starts_with(warning), "{args:?}: {err}");
        assert_eq!(err.lines().count(), 1, "{args:?}: {err}");
        let json: serde_json::Value = serde_json::from_str(&out).unwrap();
        let warnings = json["warnings"].as_array().unwrap();
        assert_eq!(warnings.len(), 1, "{args:?}: {json}");
        assert!(
            warnings[0]
                .as_str()
                .unwrap()
                .starts_with("the mailbox of ghost is unusable: "),
            "{json}"
        );
    }
    // The rest carried on: dev's copy is in the thread, the search and the status.
    let status: serde_json::Value = serde_json::from_str(
        &t.as_agent("qa")
            .args(["--json", "status", &id])
            .expect_code(1)
            .0,
    )
    .unwrap();
    assert_eq!(status["recipients"][0]["agent"], "dev");
    assert_eq!(status["recipients"][0]["status"], "delivered");
    assert_eq!(
        status["recipients"].as_array().unwrap().len(),
        1,
        "{status}"
    );
}

#[test]
fn agents_add_moves_a_mailbox_and_keeps_the_entrys_other_fields() {
    let t = Test::new().agents(["qa", "dev"]);
    let mut config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.config_path()).unwrap()).unwrap();
    config["agents"]["dev"]["kind"] = serde_json::json!("human");
    config["agents"]["dev"]["runner"] = serde_json::json!({ "command": ["prog"] });
    std::fs::write(t.config_path(), config.to_string()).unwrap();
    let moved = t.path().join("elsewhere");
    t.run()
        .args(["agents", "add", "dev", "--mailbox"])
        .args([&moved])
        .success();
    let config: serde_json::Value =
        serde_json::from_str(&std::fs::read_to_string(t.config_path()).unwrap()).unwrap();
    let dev = &config["agents"]["dev"];
    assert_eq!(dev["mailbox_path"], moved.display().to_string());
    assert_eq!(dev["kind"], "human");
    assert_eq!(dev["runner"], serde_json::json!({ "command": ["prog"] }));
}
