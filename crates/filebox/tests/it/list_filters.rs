//! `list --unread` and `list --thread`: read marks kept as derived state, and a thread's
//! messages picked out of a folder.

use serde_json::Value;

use crate::support::Test;

/// `list <folder> <args> --json` as `agent`: the listed Message IDs, sorted (messages sent in
/// the same second list in file-name order).
fn listed(t: &Test, agent: &str, folder: &str, args: &[&str]) -> Vec<String> {
    let out = t
        .as_agent(agent)
        .args(["--json", "list", folder])
        .args(args)
        .success();
    let mut ids = serde_json::from_str::<Value>(&out).expect("list --json prints JSON")["messages"]
        .as_array()
        .expect("list --json has messages")
        .iter()
        .map(|m| m["id"].as_str().unwrap().to_owned())
        .collect::<Vec<_>>();
    ids.sort();
    ids
}

fn sorted<const N: usize>(mut ids: [String; N]) -> [String; N] {
    ids.sort();
    ids
}

#[test]
fn unread_lists_what_i_have_not_read_since_it_last_changed() {
    let t = Test::new().agents(["qa", "dev"]);
    let first = t.send("qa", "dev", "ER", "first");
    let second = t.send("qa", "dev", "BR", "second");
    assert_eq!(
        listed(&t, "dev", "inbox", &["--unread"]),
        sorted([first.clone(), second.clone()])
    );
    // Reading (by short id) marks it read; listing does not.
    t.as_agent("dev")
        .args(["read", "inbox", &first[..8]])
        .success();
    assert_eq!(listed(&t, "dev", "inbox", &["--unread"]), [second.clone()]);
    assert_eq!(
        listed(&t, "dev", "inbox", &[]),
        sorted([first.clone(), second.clone()])
    );
    // Text form: the listing lines.
    let text = t.as_agent("dev").args(["list", "--unread"]).success();
    assert_eq!(text.lines().count(), 1, "{text}");
    assert!(text.contains(" BR second ("), "{text}");
    // Other filters combine with it.
    assert!(listed(&t, "dev", "inbox", &["--unread", "--type", "ER"]).is_empty());

    // A message that comes back with a reply is unread again.
    t.as_agent("dev").args(["read", "inbox", &second]).success();
    assert!(listed(&t, "dev", "inbox", &["--unread"]).is_empty());
    t.as_agent("dev")
        .args(["reply", &second, "which build?"])
        .success();
    t.as_agent("qa")
        .args(["reply", &second, "nightly"])
        .success();
    assert_eq!(listed(&t, "dev", "inbox", &["--unread"]), [second.clone()]);

    // The marks are derived state: deleting .filebox/ makes everything unread, nothing lost.
    std::fs::remove_dir_all(t.mailbox("dev").join(".filebox")).unwrap();
    assert_eq!(
        listed(&t, "dev", "inbox", &["--unread"]),
        sorted([first, second])
    );
}

#[test]
fn read_marks_from_concurrent_readers_are_all_kept() {
    let t = Test::new().agents(["qa", "dev"]);
    let ids: Vec<String> = (0..8)
        .map(|n| t.send("qa", "dev", "DIS", &format!("m{n}")))
        .collect();
    let readers: Vec<_> = ids
        .iter()
        .map(|id| {
            t.as_agent("dev")
                .args(["read", "inbox", id])
                .command()
                .spawn()
                .unwrap()
        })
        .collect();
    for reader in readers {
        assert!(reader.wait_with_output().unwrap().status.success());
    }
    assert!(listed(&t, "dev", "inbox", &["--unread"]).is_empty());
}

#[test]
fn thread_lists_one_threads_messages() {
    let t = Test::new().agents(["qa", "dev"]);
    let root = t.send("qa", "dev", "ER", "root of the thread");
    let other = t.send("qa", "dev", "DIS", "another thread");
    let fork: Value = serde_json::from_str(
        &t.as_agent("qa")
            .args([
                "--json",
                "fork",
                "--from",
                &root,
                "--reason",
                "context-compression",
            ])
            .args(["--context", "start again"])
            .success(),
    )
    .unwrap();
    let forked = fork["id"].as_str().unwrap().to_owned();
    assert_eq!(fork["thread"], root.as_str());
    assert_eq!(
        listed(&t, "dev", "inbox", &["--thread", &root]),
        sorted([root.clone(), forked])
    );
    assert_eq!(listed(&t, "dev", "inbox", &["--thread", &other]), [other]);
    let err = t
        .as_agent("dev")
        .args(["list", "inbox", "--thread", "no-such-thread"])
        .failure();
    assert!(
        err.contains("no message of your mailbox belongs to it"),
        "{err}"
    );
    assert!(listed(&t, "dev", "done", &["--thread", &root]).is_empty());
}
