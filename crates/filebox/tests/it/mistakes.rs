//! What a new user gets wrong is refused with a sentence that says why, and changes nothing.

use crate::support::Test;

#[test]
fn resolving_a_message_i_sent_says_only_its_recipient_can() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "BR", "Crash on save");
    for verb in ["resolved", "reject", "onhold"] {
        let out = t.as_agent("qa").args([verb, &id[..8], "done"]).output();
        assert_ne!(out.status.code(), Some(0));
        let err = String::from_utf8_lossy(&out.stderr);
        assert!(
            err.contains("you sent it, so only its recipient (dev) can"),
            "{verb}: {err}"
        );
        assert!(!err.contains("already handled"), "{err}");
    }
    assert_eq!(t.files("dev", "inbox").len(), 1);
}

#[test]
fn a_message_i_already_resolved_is_still_reported_as_handled() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "BR", "Crash on save");
    t.as_agent("dev")
        .args(["send", "qa", "DIS", "Fixed", "--reply_to", &id[..8]])
        .success();
    t.as_agent("qa")
        .args(["resolved", &id[..8], "ok"])
        .success();
    let out = t.as_agent("qa").args(["resolved", &id[..8], "ok"]).output();
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("already handled: it is now in done/"), "{err}");
}
