//! The body size limit (`max_body_bytes`, default 10 MiB) and the exit codes: 0 success,
//! 1 failure, 2 usage error, with one sentence on stderr naming what was wrong.

use crate::support::Test;

const MIB: usize = 1024 * 1024;

#[test]
fn the_configured_body_limit_is_enforced_with_a_clear_error() {
    let t = Test::new()
        .agents(["qa", "dev"])
        .config("max_body_bytes", serde_json::json!(100));
    t.as_agent("qa")
        .args(["send", "dev", "ER", "-"])
        .stdin("x".repeat(100))
        .success();
    let err = t
        .as_agent("qa")
        .args(["send", "dev", "ER", "-"])
        .stdin("x".repeat(101))
        .failure();
    assert_eq!(
        err.trim_end(),
        "filebox: error: the message body is 101 bytes, over the limit of 100 bytes (max_body_bytes in the config)"
    );
    // Bytes, not characters: 34 three-byte characters are 102 bytes.
    t.as_agent("qa")
        .args(["send", "dev", "ER", &"中".repeat(34)])
        .failure();
    assert_eq!(t.files("dev", "inbox").len(), 1);
    assert_eq!(t.files("qa", "outbox").len(), 1);

    // A reply that would grow the conversation past the limit is refused, and the message
    // stays where it was, unchanged.
    let name = t.files("dev", "inbox")[0].clone();
    let before = std::fs::read(t.folder("dev", "inbox").join(&name)).unwrap();
    let err = t
        .as_agent("dev")
        .args(["send", "qa", "DIS", "a short reply", "--reply_to", &name])
        .failure();
    assert!(err.contains("max_body_bytes"), "{err}");
    assert_eq!(t.files("dev", "inbox"), [name.clone()]);
    assert_eq!(
        std::fs::read(t.folder("dev", "inbox").join(&name)).unwrap(),
        before
    );
    assert!(t.files("qa", "inbox").is_empty());
    assert!(t.files("dev", "tmp").is_empty());
}

#[test]
fn the_default_limit_is_10_mib() {
    let t = Test::new().agents(["qa", "dev"]);
    let at_limit = "a".repeat(10 * MIB - 1) + "\n";
    let id = t
        .as_agent("qa")
        .args(["send", "dev", "ER", "-", "--title", "big"])
        .stdin(&at_limit)
        .success();
    let read = t.read_json("dev", "inbox", id.trim());
    assert_eq!(read["body"].as_str().unwrap().len(), 10 * MIB);
    assert!(read["body"] == at_limit.as_str());

    let err = t
        .as_agent("qa")
        .args(["send", "dev", "ER", "-", "--title", "too big"])
        .stdin(at_limit + "x")
        .failure();
    assert!(
        err.contains("10485761 bytes, over the limit of 10485760 bytes"),
        "{err}"
    );
    assert_eq!(t.files("dev", "inbox").len(), 1);
}

/// Run as `dev` and assert exit 1 with a one-line error on stderr containing `needle`.
fn fails_naming(t: &Test, args: &[&str], needle: &str) {
    let err = t.as_agent("dev").args(args).failure();
    assert!(err.starts_with("filebox: error: "), "{args:?}: {err}");
    assert_eq!(err.trim_end().lines().count(), 1, "{args:?}: {err}");
    assert!(
        err.contains(needle),
        "{args:?}: expected {needle:?} in {err}"
    );
}

#[test]
fn failures_exit_1_with_one_sentence_naming_the_problem() {
    let t = Test::new().agents(["qa", "dev"]);
    t.send("qa", "dev", "ER", "x");
    fails_naming(&t, &["send", "ghost", "ER", "x"], "unknown agent \"ghost\"");
    fails_naming(
        &t,
        &["read", "inbox", "deadbeef"],
        "no message \"deadbeef\" in dev's inbox",
    );
    fails_naming(
        &t,
        &["read", "done", "20250101T000000-ER-x-deadbeef.md"],
        "20250101T000000-ER-x-deadbeef.md",
    );
    fails_naming(
        &t,
        &["resolved", "deadbeef", "x"],
        "no message \"deadbeef\"",
    );
    fails_naming(
        &t,
        &["send", "qa", "ER", "x", "--reply_to", "deadbeef"],
        "deadbeef",
    );
    fails_naming(
        &t,
        &["read", "inbox", "x!"],
        "invalid message reference \"x!\"",
    );
    fails_naming(
        &t,
        &["send", "qa", "ER", "--file", "/nonexistent/body.md"],
        "/nonexistent/body.md",
    );

    // Not UTF-8 content.
    let err = t
        .as_agent("dev")
        .args(["send", "qa", "ER", "-"])
        .stdin([0xffu8, 0xfe])
        .failure();
    assert!(err.contains("not valid UTF-8"), "{err}");

    // No config anywhere.
    let bare = Test::new();
    std::fs::remove_file(bare.config_path()).unwrap();
    let err = bare.run().args(["list"]).failure();
    assert!(err.contains("config"), "{err}");
}

#[test]
fn usage_errors_exit_2() {
    let t = Test::new().agents(["qa", "dev"]);
    for args in [
        &["frobnicate"][..],
        &["list", "trash"],
        &["read", "inbox"],
        &["send", "dev"],
        &["send", "dev", "ER"],
        &["resolved", "x"],
        &["send", "dev", "ER", "x", "--file", "y"],
        &["list", "--limit", "many"],
        &["send", "qa", "not a type", "x"],
        &["send", "qa", "ER", "x", "--priority", "asap"],
        &[],
    ] {
        let err = t.as_agent("qa").args(args).usage_error();
        assert!(!err.is_empty(), "{args:?}");
    }
    // A value outside a closed set names the value and what is accepted.
    let err = t
        .as_agent("qa")
        .args(["send", "qa", "not a type", "x"])
        .usage_error();
    assert!(err.contains("invalid message type \"not a type\""), "{err}");
    let err = t
        .as_agent("qa")
        .args(["send", "qa", "ER", "x", "--priority", "asap"])
        .usage_error();
    assert!(
        err.contains("'asap'") && err.contains("[possible values: normal, urgent]"),
        "{err}"
    );
}

#[test]
fn success_exits_0_and_help_is_not_an_error() {
    let t = Test::new().agents(["qa", "dev"]);
    t.run().args(["--help"]).success();
    t.run().args(["send", "--help"]).success();
    t.run().args(["--version"]).success();
    // An empty inbox is not a failure.
    let (out, err) = t.as_agent("dev").args(["list", "inbox"]).expect_code(0);
    assert_eq!((out.as_str(), err.as_str()), ("No messages.\n", ""));
}

/// Issue 35: a title longer than its bound (1,000 characters) is refused naming the field and
/// the limit, on `send` and `email send` alike, and nothing is written (before, it was sent,
/// and a title past what a listing reads left the message unlisted).
#[test]
fn a_title_over_its_bound_is_refused_and_nothing_is_written() {
    let t = Test::new().agents(["qa", "dev"]);
    let long = "t".repeat(100_000);
    let err = t
        .as_agent("qa")
        .args(["send", "dev", "ER", "body", "--title", &long])
        .failure();
    assert_eq!(
        err.trim_end(),
        "filebox: error: the title is 100000 characters, over the limit of 1000 characters; \
         nothing was written"
    );
    let err = t
        .as_agent("qa")
        .args([
            "email",
            "send",
            "--to",
            "dev",
            "--subject",
            &long,
            "--body",
            "b",
        ])
        .failure();
    assert!(err.contains("over the limit of 1000 characters"), "{err}");
    assert!(t.files("dev", "inbox").is_empty());
    assert!(t.files("qa", "outbox").is_empty());
    assert!(t.files("dev", "tmp").is_empty());
    t.as_agent("qa")
        .args(["send", "dev", "ER", "body", "--title", &"t".repeat(1000)])
        .success();
    assert_eq!(t.files("dev", "inbox").len(), 1);
}
