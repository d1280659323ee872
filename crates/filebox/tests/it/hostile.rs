//! Files other tools (or attackers) leave in a mailbox: a FIFO, a directory, a symlink, a
//! 1 GB sparse file, NUL bytes, invalid UTF-8, and a valid message cut at every byte. No
//! command hangs or panics on them; each reports what it skipped and carries on, and of
//! several files with one Message ID the most complete is the one listed and found.

use std::fs;
use std::process::Command;

use crate::support::Test;

/// Plant every hostile file in `agent`'s inbox; returns the names of those that are not
/// messages at all (each must be reported by a listing).
fn plant(t: &Test, agent: &str, valid: &[u8]) -> Vec<String> {
    let inbox = t.folder(agent, "inbox");
    let fifo = inbox.join("fifo.md");
    let made = Command::new("mkfifo").arg(&fifo).status().unwrap();
    assert!(made.success(), "mkfifo failed");
    fs::create_dir(inbox.join("folder.md")).unwrap();
    let outside = t.path().join("outside.md");
    fs::write(&outside, valid).unwrap();
    std::os::unix::fs::symlink(&outside, inbox.join("link.md")).unwrap();
    let sparse = fs::File::create(inbox.join("sparse.md")).unwrap();
    sparse.set_len(1 << 30).unwrap();
    t.put(
        agent,
        "inbox",
        "nul.md",
        b"\0\0\0\0# ER: a\0b\n\n**Message ID:** \0\0\n---\n\0",
    );
    // NUL bytes inside a body another tool wrote: still a message, listed and read.
    t.put(
        agent,
        "inbox",
        "nul-body.md",
        b"# ER: nul body\n\n**Message ID:** nul-body-1\n\n---\n\n## Original Request/Content\n\na\0b\n",
    );
    t.put(
        agent,
        "inbox",
        "latin1.md",
        b"# ER: caf\xe9\n\n**Message ID:** x1\n---\n",
    );
    // The valid file cut at every byte: each prefix is a damaged copy, most of them of the
    // same Message ID.
    for n in 0..valid.len() {
        t.put(agent, "inbox", &format!("cut-{n:05}.md"), &valid[..n]);
    }
    [
        "fifo.md",
        "folder.md",
        "link.md",
        "sparse.md",
        "nul.md",
        "latin1.md",
    ]
    .map(str::to_owned)
    .to_vec()
}

#[test]
fn hostile_files_are_reported_and_every_command_carries_on() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send(
        "qa",
        "dev",
        "ER",
        "Steps: open the page, click save.\n\nIt fails.",
    );
    t.as_agent("dev")
        .args(["reply", &id, "Which browser?"])
        .success();
    t.as_agent("qa")
        .args(["reply", &id, "Firefox 130."])
        .success();
    let short = &id[..8];
    // The whole message now sits in dev's inbox; qa's outbox holds the same file.
    let name = t.files("qa", "outbox").pop().unwrap();
    let valid = fs::read(t.folder("qa", "outbox").join(&name)).unwrap();
    // The first wait ever sets the cursor from the inbox as it is.
    t.as_agent("dev")
        .args(["wait", "--timeout", "0"])
        .expect_code(3);

    let not_messages = plant(&t, "dev", &valid);
    let later = t.send("qa", "dev", "BR", "a later report");

    // list: the whole message (not a cut copy) and the later one; the rest reported.
    let (stdout, stderr) = t.as_agent("dev").args(["list", "inbox"]).expect_code(1);
    assert!(!stderr.contains("panicked"), "{stderr}");
    for bad in &not_messages {
        assert!(
            stderr.contains(bad.as_str()),
            "{bad} not reported:\n{stderr}"
        );
    }
    let line = stdout
        .lines()
        .find(|l| l.contains(&format!("({name})")))
        .unwrap_or_else(|| panic!("the whole copy is not listed:\n{stdout}"));
    assert!(line.contains("ER"), "{line}");
    assert!(stdout.contains(&later[..8]), "{stdout}");
    assert!(
        !stdout
            .lines()
            .any(|l| l.contains(short) && l.contains("(cut-")),
        "a cut copy of {short} is listed:\n{stdout}"
    );

    // read by short id finds the whole message; reading a hostile file fails in one sentence.
    let read = t.read_json("dev", "inbox", short);
    assert_eq!(read["conversation"].as_array().unwrap().len(), 2, "{read}");
    for bad in &not_messages {
        let err = t.as_agent("dev").args(["read", "inbox", bad]).failure();
        assert!(
            err.contains(bad.as_str()) && !err.contains("panicked"),
            "{err}"
        );
    }

    // search, threads, thread, status, reindex, wait: answer, report, never hang or panic.
    for args in [
        vec!["search", "Firefox"],
        vec!["threads"],
        vec!["thread", short],
        vec!["status", short],
        vec!["reindex"],
        vec!["search", "later"],
    ] {
        let out = t.as_agent("dev").args(&args).output();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            matches!(out.status.code(), Some(0 | 1)) && !stderr.contains("panicked"),
            "{args:?}: {:?}\n{stderr}",
            out.status.code()
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        if args[0] == "search" || args[0] == "thread" || args[0] == "status" {
            assert!(!stdout.is_empty(), "{args:?} found nothing\n{stderr}");
        }
    }
    let hits = t
        .as_agent("dev")
        .args(["--json", "search", "Firefox"])
        .output();
    let hits: serde_json::Value = serde_json::from_slice(&hits.stdout).unwrap();
    assert_eq!(hits["hits"][0]["id"], id.as_str(), "{hits}");

    let (woke, stderr) = t
        .as_agent("dev")
        .args(["wait", "--timeout", "60"])
        .expect_code(0);
    assert!(woke.contains(&later[..8]), "{woke}\n{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");
    // Nothing was staged and left behind.
    assert!(t.files("dev", "tmp").is_empty());
}
