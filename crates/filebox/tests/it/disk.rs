//! A full disk and a read-only mailbox: `send`, reply and `resolved` fail with a clear error
//! (exit 1, one sentence naming the cause), leave no partial file anywhere, lose no message,
//! and the next command finds `tmp/` clean.
//!
//! The mailboxes live on a 1 MiB tmpfs, and a mailbox is made read-only by a read-only bind
//! mount (root ignores permission bits), so these tests need root (CAP_SYS_ADMIN), as CI has.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::support::{FOLDERS, Test};

/// A mount, undone when dropped.
struct Mount(PathBuf);

impl Mount {
    fn new(args: &[&str], at: &Path) -> Mount {
        std::fs::create_dir_all(at).unwrap();
        let status = Command::new("mount").args(args).arg(at).status().unwrap();
        assert!(
            status.success(),
            "`mount {args:?} {}` failed: these tests need root (CAP_SYS_ADMIN)",
            at.display()
        );
        Mount(at.to_owned())
    }
}

impl Drop for Mount {
    fn drop(&mut self) {
        let _ = Command::new("umount").arg("-l").arg(&self.0).status();
    }
}

/// Every message file of both mailboxes parses whole; returns how many there are.
fn all_whole(t: &Test, agents: &[&str]) -> usize {
    let mut count = 0;
    for agent in agents {
        for folder in FOLDERS {
            for name in t.files(agent, folder) {
                let read = t.read_json(agent, folder, &name);
                assert!(
                    read["markdown"]
                        .as_str()
                        .unwrap()
                        .contains("\n## Processing History\n"),
                    "{agent}/{folder}/{name} is incomplete"
                );
                count += 1;
            }
        }
    }
    count
}

fn assert_clear_error(stderr: &str, cause: &str) {
    assert!(
        stderr.starts_with("filebox: error:") && stderr.contains(cause),
        "not a clear error about {cause:?}:\n{stderr}"
    );
    assert!(!stderr.contains("panicked"), "{stderr}");
}

#[test]
fn a_full_disk_fails_cleanly_and_loses_nothing() {
    let t = Test::new();
    let disk = Mount::new(
        &["-t", "tmpfs", "-o", "size=1m,mode=0700", "tmpfs"],
        &t.path().join("mailboxes"),
    );
    let t = t.agents(["qa", "dev"]);
    let body = "x".repeat(48 * 1024);
    let first = t.send("qa", "dev", "ER", "a small one");

    // Fill the disk with acknowledged sends until one is refused.
    let mut sent = vec![first.clone()];
    let stderr = loop {
        let out = t
            .as_agent("qa")
            .args(["send", "dev", "DIS", "-"])
            .stdin(&body)
            .output();
        match out.status.code() {
            Some(0) => sent.push(String::from_utf8_lossy(&out.stdout).trim().to_owned()),
            Some(1) => break String::from_utf8_lossy(&out.stderr).into_owned(),
            other => panic!("send exited {other:?}: {out:?}"),
        }
        assert!(sent.len() < 100, "a 1 MiB disk never filled up");
    };
    assert_clear_error(&stderr, "No space left on device");

    // A reply and a resolve need room for a new version: refused, the message stays.
    let stderr = t
        .as_agent("dev")
        .args(["send", "qa", "DIS", "-", "--reply_to", &first])
        .stdin(&body)
        .failure();
    assert_clear_error(&stderr, "No space left on device");
    let resolved = t
        .as_agent("dev")
        .args(["resolved", &first, &body[..40 * 1024]])
        .output();
    if resolved.status.code() == Some(1) {
        assert_clear_error(
            &String::from_utf8_lossy(&resolved.stderr),
            "No space left on device",
        );
        assert!(t.read_json("dev", "inbox", &first[..8])["id"] == first.as_str());
    } else {
        assert_eq!(resolved.status.code(), Some(0), "{resolved:?}");
        sent.retain(|id| *id != first);
    }

    // Nothing partial, nothing lost, tmp/ clean after the next command.
    t.as_agent("dev").args(["list", "inbox"]).success();
    t.as_agent("qa").args(["list", "inbox"]).success();
    for agent in ["qa", "dev"] {
        assert!(
            t.files(agent, "tmp").is_empty(),
            "{:?}",
            t.files(agent, "tmp")
        );
    }
    for id in &sent {
        assert_eq!(t.read_json("dev", "inbox", &id[..8])["id"], id.as_str());
    }
    all_whole(&t, &["qa", "dev"]);
    // Unmounted before the temp dir is removed.
    drop(disk);
}

#[test]
fn a_read_only_mailbox_fails_cleanly_and_loses_nothing() {
    let t = Test::new().agents(["qa", "dev"]);
    let first = t.send("qa", "dev", "ER", "already here");
    let before = all_whole(&t, &["qa", "dev"]);
    // The whole mailbox, so that its tmp/ and folders are one read-only file system (a bind
    // mount of one folder would make moves out of it cross-device instead).
    let mailbox = t.mailbox("dev");
    let bind = Mount::new(&["--bind", mailbox.to_str().unwrap()], &mailbox);
    let ro = Mount::new(&["-o", "remount,bind,ro"], &mailbox);

    // A send into it is refused, and no outbox copy claims it was sent.
    let stderr = t
        .as_agent("qa")
        .args(["send", "dev", "ER", "new"])
        .failure();
    assert_clear_error(&stderr, "Read-only file system");
    // Reading it works, without a read receipt, and says so (exit 0: the read succeeded).
    let read = t.as_agent("dev").args(["read", &first]).output();
    assert_eq!(read.status.code(), Some(0), "{read:?}");
    let said = String::from_utf8_lossy(&read.stderr);
    assert!(said.contains("read without a receipt"), "{said}");
    assert!(String::from_utf8_lossy(&read.stdout).contains("already here"));
    // Resolving or replying to a message in it cannot take it out: it stays.
    let stderr = t.as_agent("dev").args(["resolved", &first, "ok"]).failure();
    assert_clear_error(&stderr, "Read-only file system");
    let stderr = t
        .as_agent("dev")
        .args(["reply", &first, "a question"])
        .failure();
    assert_clear_error(&stderr, "Read-only file system");

    // Writable again: nothing partial, nothing lost.
    drop((ro, bind));
    for agent in ["qa", "dev"] {
        assert!(
            t.files(agent, "tmp").is_empty(),
            "{:?}",
            t.files(agent, "tmp")
        );
    }
    assert_eq!(all_whole(&t, &["qa", "dev"]), before);
}
