//! Mailbox files are 0600 and folders 0700 whatever the umask of the process that wrote them
//! (a umask can only take bits away, and one can take away the owner's too).

use std::os::unix::fs::PermissionsExt;
use std::path::Path;

use crate::support::Test;

/// Every directory and file under `dir` whose mode is not 0700 (directories) or 0600 (files).
fn wrong_modes(dir: &Path) -> Vec<String> {
    let mut wrong = Vec::new();
    for entry in std::fs::read_dir(dir).unwrap() {
        let entry = entry.unwrap();
        let meta = std::fs::symlink_metadata(entry.path()).unwrap();
        let mode = meta.permissions().mode() & 0o777;
        let want = if meta.is_dir() { 0o700 } else { 0o600 };
        if mode != want {
            wrong.push(format!("{} is {mode:03o}", entry.path().display()));
        }
        if meta.is_dir() {
            wrong.extend(wrong_modes(&entry.path()));
        }
    }
    wrong
}

#[test]
fn files_are_0600_and_folders_0700_whatever_the_umask() {
    for umask in [0o000, 0o022, 0o277] {
        let t = Test::new();
        for agent in ["a", "b"] {
            t.run()
                .umask(umask)
                .args(["agents", "add", agent, "--mailbox"])
                .args([t.mailbox(agent)])
                .success();
        }
        let as_agent = |agent: &str| t.as_agent(agent).umask(umask);
        let first = as_agent("a")
            .args(["send", "b", "ER", "first"])
            .success()
            .trim()
            .to_owned();
        let second = as_agent("a")
            .args(["send", "b", "ER", "second"])
            .success()
            .trim()
            .to_owned();
        as_agent("b")
            .args(["reply", &first, "a question"])
            .success();
        as_agent("a")
            .args(["reply", &first, "the answer"])
            .success();
        as_agent("b").args(["onhold", &second, "later"]).success();
        as_agent("b").args(["resolved", &first, "done"]).success();
        as_agent("a")
            .args(["fork", "--from", &first, "--reason", "direction-change"])
            .args(["--context", "start again"])
            .success();
        as_agent("b").args(["read", "hold", &second]).success();
        as_agent("b").args(["search", "question"]).success();
        as_agent("b")
            .args(["wait", "--timeout", "0"])
            .expect_code(3);

        let mut wrong = Vec::new();
        for agent in ["a", "b"] {
            let root = t.mailbox(agent);
            let mode = std::fs::metadata(&root).unwrap().permissions().mode() & 0o777;
            if mode != 0o700 {
                wrong.push(format!("{} is {mode:03o}", root.display()));
            }
            wrong.extend(wrong_modes(&root));
        }
        assert!(wrong.is_empty(), "umask {umask:03o}: {wrong:#?}");
    }
}
