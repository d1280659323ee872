//! `reply --attach`: files stored in every copy's `attachments/<message-id>/`, linked from the
//! reply; and a question (ASK) answered once.

use std::fs;

use crate::support::Test;

#[test]
fn an_attached_file_is_stored_beside_each_copy_and_linked_from_the_reply() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "BR", "the login page is blank");
    let shot = t.path().join("screen shot.png");
    let bytes: Vec<u8> = (0..=255u8).collect();
    fs::write(&shot, &bytes).unwrap();
    t.as_agent("dev")
        .args(["reply", &id, "Fixed, see the picture", "--attach"])
        .args([&shot])
        .success();
    for agent in ["qa", "dev"] {
        let stored = t
            .mailbox(agent)
            .join("attachments")
            .join(&id)
            .join("screen-shot.png");
        assert_eq!(fs::read(&stored).unwrap(), bytes, "{}", stored.display());
    }
    let read = t.read_json("qa", "inbox", &id);
    let markdown = read["markdown"].as_str().unwrap();
    let link = format!("![screen-shot.png](../attachments/{id}/screen-shot.png \"image/png\")");
    assert!(markdown.contains(&link), "{markdown}");

    let missing = t
        .as_agent("qa")
        .args(["reply", &id, "thanks", "--attach", "no-such-file.png"])
        .failure();
    assert!(missing.contains("no-such-file.png"), "{missing}");
}

#[test]
fn a_question_is_answered_once() {
    let t = Test::new().agents(["me", "bot"]);
    let id = t.send("bot", "me", "ASK", "Which port?");
    t.as_agent("me").args(["reply", &id, "8080"]).success();
    let second = t.as_agent("me").args(["reply", &id, "9090"]).failure();
    assert!(second.contains("already handled"), "{second}");
    assert!(second.contains("answered once"), "{second}");
    let markdown = t.read_json("bot", "inbox", &id)["markdown"]
        .as_str()
        .unwrap()
        .to_owned();
    assert!(
        markdown.contains("8080") && !markdown.contains("9090"),
        "{markdown}"
    );
    // The asker may still follow up on its own question.
    t.as_agent("bot").args(["reply", &id, "thanks"]).success();
}
