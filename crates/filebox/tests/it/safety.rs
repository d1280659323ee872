//! No agent id, folder or file name from a caller reaches outside the configured mailboxes,
//! and symlinks are not followed out of a mailbox.

use std::fs;
use std::os::unix::fs::symlink;
use std::path::Path;

use crate::support::Test;

/// Every file under `dir`, relative, sorted (symlinks not followed).
fn tree(dir: &Path) -> Vec<String> {
    let mut out = Vec::new();
    let mut stack = vec![dir.to_owned()];
    while let Some(d) = stack.pop() {
        for entry in fs::read_dir(&d).unwrap() {
            let entry = entry.unwrap();
            let path = entry.path();
            out.push(path.strip_prefix(dir).unwrap().display().to_string());
            if entry.file_type().unwrap().is_dir() {
                stack.push(path);
            }
        }
    }
    out.sort();
    out
}

const BAD_AGENTS: &[&str] = &[
    "../dev",
    "..",
    "/etc",
    "/tmp/evil",
    "dev/../qa",
    "dev/inbox",
    "a\\b",
    ".hidden",
    "de\nv",
    "dev\u{7f}",
    "",
];

#[test]
fn bad_agent_ids_are_refused_and_write_nothing() {
    let t = Test::new().agents(["qa", "dev"]);
    let before = tree(t.path());
    for bad in BAD_AGENTS {
        let err = t.as_agent("qa").args(["send", bad, "ER", "x"]).failure();
        assert!(err.starts_with("filebox: error:"), "{bad:?}: {err}");
        assert_eq!(err.trim_end().lines().count(), 1, "{bad:?}: {err}");
        let err = t.run().args(["--agent", bad, "list", "inbox"]).failure();
        assert!(err.contains("agent"), "{bad:?}: {err}");
        if !bad.is_empty() {
            let err = t
                .as_agent("qa")
                .args(["send", "dev", "ER", "x", "--cc", bad])
                .failure();
            assert!(err.contains("agent"), "{bad:?}: {err}");
        }
    }
    assert_eq!(tree(t.path()), before, "something was written");
    assert!(!Path::new("/tmp/evil/inbox").exists());
}

#[test]
fn an_unknown_agent_is_named() {
    let t = Test::new().agents(["qa", "dev"]);
    let err = t
        .as_agent("qa")
        .args(["send", "ghost", "ER", "x"])
        .failure();
    assert!(err.contains("unknown agent \"ghost\""), "{err}");
    let err = t.as_agent("ghost").args(["list"]).failure();
    assert!(err.contains("unknown agent \"ghost\""), "{err}");
}

#[test]
fn file_names_cannot_leave_the_folder() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "x");
    let name = t.files("dev", "inbox")[0].clone();
    // A valid message outside any mailbox, and one in another folder and another mailbox.
    fs::copy(
        t.folder("dev", "inbox").join(&name),
        t.path().join("outside.md"),
    )
    .unwrap();
    let outbox_name = t.files("qa", "outbox")[0].clone();
    let attempts = [
        "../../../outside.md".to_owned(),
        "../../outside.md".to_owned(),
        t.path().join("outside.md").display().to_string(),
        format!("../outbox/{outbox_name}"),
        format!("../../qa/outbox/{outbox_name}"),
        format!("inbox/{name}"),
        format!("./{name}"),
        format!("..\\{name}"),
        "/etc/passwd".to_owned(),
        "..".to_owned(),
        ".md".to_owned(),
        "x/../../outside.md".to_owned(),
    ];
    for bad in &attempts {
        let err = t.as_agent("dev").args(["read", "inbox", bad]).failure();
        assert!(err.starts_with("filebox: error:"), "{bad}: {err}");
        let err = t.as_agent("dev").args(["resolved", bad, "x"]).failure();
        assert!(err.starts_with("filebox: error:"), "{bad}: {err}");
        let err = t
            .as_agent("dev")
            .args(["send", "qa", "DIS", "x", "--reply_to", bad])
            .failure();
        assert!(err.starts_with("filebox: error:"), "{bad}: {err}");
    }
    // Nothing moved.
    assert!(t.path().join("outside.md").exists());
    assert_eq!(t.files("dev", "inbox"), [name.clone()]);
    assert_eq!(t.files("qa", "outbox"), [outbox_name]);
    assert!(t.files("dev", "done").is_empty());
    // The real one still works.
    t.as_agent("dev").args(["resolved", &id, "ok"]).success();
}

#[test]
fn folders_are_a_closed_set() {
    let t = Test::new().agents(["qa", "dev"]);
    for bad in [
        "tmp",
        "../inbox",
        "inbox/..",
        "/etc",
        ".filebox",
        "attachments",
        "INBOX/",
    ] {
        let err = t.as_agent("dev").args(["list", bad]).usage_error();
        assert!(
            err.contains(bad) || err.contains("invalid value"),
            "{bad}: {err}"
        );
        t.as_agent("dev").args(["read", bad, "x.md"]).usage_error();
    }
}

#[test]
fn a_symlinked_message_file_is_skipped_not_followed() {
    let t = Test::new().agents(["qa", "dev"]);
    t.send("qa", "dev", "ER", "real one");
    // A perfectly valid message outside the mailbox, linked into the inbox.
    t.send("qa", "dev", "ER", "secret");
    let files = t.files("dev", "inbox");
    let secret_name = files.iter().find(|n| n.contains("secret")).unwrap().clone();
    let outside = t.path().join("secret.md");
    fs::rename(t.folder("dev", "inbox").join(&secret_name), &outside).unwrap();
    symlink(&outside, t.folder("dev", "inbox").join(&secret_name)).unwrap();
    symlink("/etc/passwd", t.folder("dev", "inbox").join("passwd.md")).unwrap();
    let secret = fs::read(&outside).unwrap();

    let (stdout, stderr) = t.as_agent("dev").args(["list", "inbox"]).expect_code(1);
    assert_eq!(stdout.lines().count(), 1, "{stdout}");
    assert!(stdout.contains("real one"), "{stdout}");
    assert!(
        stderr.contains(&secret_name) && stderr.contains("symlink"),
        "{stderr}"
    );
    assert!(stderr.contains("passwd.md"), "{stderr}");

    for reference in [secret_name.as_str(), "passwd.md"] {
        let err = t
            .as_agent("dev")
            .args(["read", "inbox", reference])
            .failure();
        assert!(err.contains("symlink"), "{err}");
        let err = t
            .as_agent("dev")
            .args(["resolved", reference, "x"])
            .failure();
        assert!(err.starts_with("filebox: error:"), "{err}");
        t.as_agent("dev")
            .args(["send", "qa", "DIS", "x", "--reply_to", reference])
            .failure();
    }
    // The target was neither read into the mailbox nor changed.
    assert_eq!(fs::read(&outside).unwrap(), secret);
    assert!(t.files("dev", "done").is_empty());
    assert!(t.files("qa", "inbox").is_empty());
    assert!(
        fs::symlink_metadata(t.folder("dev", "inbox").join(&secret_name))
            .unwrap()
            .file_type()
            .is_symlink()
    );
}

#[test]
fn a_symlinked_mailbox_folder_is_refused() {
    let t = Test::new().agents(["qa", "dev"]);
    let elsewhere = t.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    fs::remove_dir(t.folder("dev", "inbox")).unwrap();
    symlink(&elsewhere, t.folder("dev", "inbox")).unwrap();

    let err = t.as_agent("dev").args(["list", "inbox"]).failure();
    assert!(err.contains("symlink") && err.contains("inbox"), "{err}");
    let err = t.as_agent("qa").args(["send", "dev", "ER", "x"]).failure();
    assert!(err.contains("symlink"), "{err}");
    assert_eq!(
        tree(&elsewhere).len(),
        0,
        "a message was written through the symlink"
    );
    assert!(t.files("qa", "outbox").is_empty());

    // The same for a destination folder of a move: the message stays in the inbox.
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "x");
    let elsewhere = t.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    fs::remove_dir(t.folder("dev", "done")).unwrap();
    symlink(&elsewhere, t.folder("dev", "done")).unwrap();
    let err = t.as_agent("dev").args(["resolved", &id, "x"]).failure();
    assert!(err.contains("symlink"), "{err}");
    assert_eq!(t.files("dev", "inbox").len(), 1);
    assert_eq!(tree(&elsewhere).len(), 0);

    // And a symlinked tmp/: nothing is staged through it.
    let t = Test::new().agents(["qa", "dev"]);
    let elsewhere = t.path().join("elsewhere");
    fs::create_dir(&elsewhere).unwrap();
    fs::remove_dir(t.folder("dev", "tmp")).unwrap();
    symlink(&elsewhere, t.folder("dev", "tmp")).unwrap();
    t.as_agent("qa").args(["send", "dev", "ER", "x"]).failure();
    assert_eq!(tree(&elsewhere).len(), 0);
}

#[test]
fn a_config_with_a_path_like_agent_id_is_refused() {
    let t = Test::new();
    fs::write(
        t.config_path(),
        r#"{"current_agent_id":"qa","agents":{"qa":{"mailbox_path":"mailboxes/qa"},"../evil":{"mailbox_path":"mailboxes/evil"}}}"#,
    )
    .unwrap();
    let err = t.run().args(["list"]).failure();
    assert!(err.contains("config") && err.contains("../evil"), "{err}");
}
