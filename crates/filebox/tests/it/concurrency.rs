//! Many processes at once: concurrent sends lose nothing, and when two processes handle the
//! same message the rename decides: exactly one wins, the other hears "already handled".

use std::collections::{BTreeMap, BTreeSet};
use std::process::{Child, Output};

use crate::support::{FOLDERS, Test};

fn finish(child: Child) -> Output {
    child.wait_with_output().expect("wait for filebox")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// Message ID → the folders of `agent`'s mailbox that hold it (outbox, a record, excluded).
fn placement(t: &Test, agent: &str) -> BTreeMap<String, Vec<&'static str>> {
    let mut seen: BTreeMap<String, Vec<&'static str>> = BTreeMap::new();
    for folder in FOLDERS.into_iter().filter(|f| *f != "outbox") {
        for name in t.files(agent, folder) {
            let read = t.read_json(agent, folder, &name);
            seen.entry(read["id"].as_str().unwrap().to_owned())
                .or_default()
                .push(folder);
        }
    }
    seen
}

#[test]
fn eight_processes_sending_25_each_lose_nothing() {
    const WRITERS: usize = 8;
    const SENDS: usize = 25;
    let agents: Vec<String> = (0..WRITERS).map(|n| format!("w{n}")).collect();
    let t = Test::new().agents(agents.iter().map(String::as_str).chain(["dev"]));
    for round in 0..2 {
        let acknowledged: Vec<String> = std::thread::scope(|scope| {
            let handles: Vec<_> = agents
                .iter()
                .map(|agent| {
                    let t = &t;
                    scope.spawn(move || {
                        (0..SENDS)
                            .map(|n| {
                                let body = format!("round {round} from {agent} number {n}");
                                t.send(agent, "dev", "SU", &body)
                            })
                            .collect::<Vec<_>>()
                    })
                })
                .collect();
            handles
                .into_iter()
                .flat_map(|h| h.join().expect("writer thread"))
                .collect()
        });
        let expected = (round + 1) * WRITERS * SENDS;
        let unique: BTreeSet<&String> = acknowledged.iter().collect();
        assert_eq!(unique.len(), WRITERS * SENDS, "ids repeated");

        let listing = t
            .as_agent("dev")
            .args(["--json", "list", "inbox", "--all"])
            .success();
        let listing: serde_json::Value = serde_json::from_str(&listing).unwrap();
        let listed = listing["messages"].as_array().unwrap();
        assert_eq!(listed.len(), expected);
        let listed_ids: BTreeSet<&str> = listed.iter().map(|m| m["id"].as_str().unwrap()).collect();
        assert_eq!(listed_ids.len(), expected);
        for id in &acknowledged {
            assert!(
                listed_ids.contains(id.as_str()),
                "acknowledged {id} is missing"
            );
        }
        assert_eq!(t.files("dev", "inbox").len(), expected);
        for agent in &agents {
            assert_eq!(t.files(agent, "outbox").len(), (round + 1) * SENDS);
            assert!(t.files(agent, "tmp").is_empty());
        }
        assert!(t.files("dev", "tmp").is_empty());
    }
}

#[test]
fn two_processes_resolving_one_message_exactly_one_wins() {
    const ROUNDS: usize = 20;
    const MESSAGES: usize = 4;
    let t = Test::new().agents(["qa", "dev"]);
    for round in 0..ROUNDS {
        let ids: Vec<String> = (0..MESSAGES)
            .map(|n| t.send("qa", "dev", "BR", &format!("round {round} bug {n}")))
            .collect();
        // Two contenders per message, all started before any is waited for; every other
        // round the second one rejects instead of resolving.
        let children: Vec<(usize, Child)> = ids
            .iter()
            .enumerate()
            .flat_map(|(n, id)| {
                let second = if round % 2 == 0 { "resolved" } else { "reject" };
                ["resolved", second].map(|verb| {
                    let child = t
                        .as_agent("dev")
                        .args([verb, id.as_str(), "mine"])
                        .command()
                        .spawn()
                        .expect("spawn");
                    (n, child)
                })
            })
            .collect();
        let mut wins = vec![0; MESSAGES];
        for (n, child) in children {
            let out = finish(child);
            match out.status.code() {
                Some(0) => wins[n] += 1,
                Some(1) => {
                    let err = stderr(&out);
                    assert!(err.contains("already handled"), "round {round}: {err}");
                    assert_eq!(err.trim_end().lines().count(), 1, "{err}");
                }
                other => panic!("round {round}: exit {other:?}: {}", stderr(&out)),
            }
        }
        assert_eq!(wins, vec![1; MESSAGES], "round {round}");
        assert!(t.files("dev", "inbox").is_empty());
        assert!(
            t.files("dev", "tmp").is_empty(),
            "{:?}",
            t.files("dev", "tmp")
        );
    }
    let placed = placement(&t, "dev");
    assert_eq!(placed.len(), ROUNDS * MESSAGES);
    for (id, folders) in placed {
        assert_eq!(folders.len(), 1, "{id} is in {folders:?}");
        assert!(
            matches!(folders[0], "done" | "cancel"),
            "{id} in {folders:?}"
        );
    }
}

#[test]
fn concurrent_reply_and_resolve_leave_the_message_in_one_place() {
    const ROUNDS: usize = 25;
    let t = Test::new().agents(["qa", "dev"]);
    for round in 0..ROUNDS {
        let id = t.send("qa", "dev", "ER", &format!("round {round}"));
        let resolve = t
            .as_agent("dev")
            .args(["resolved", id.as_str(), "done"])
            .command()
            .spawn()
            .unwrap();
        let reply = t
            .as_agent("dev")
            .args(["send", "qa", "DIS", "a question", "--reply_to", id.as_str()])
            .command()
            .spawn()
            .unwrap();
        let (resolve, reply) = (finish(resolve), finish(reply));
        for out in [&resolve, &reply] {
            let code = out.status.code();
            assert!(
                code == Some(0) || (code == Some(1) && stderr(out).contains("already handled")),
                "round {round}: exit {code:?}: {}",
                stderr(out)
            );
        }
        let resolved = resolve.status.success();
        let replied = reply.status.success();
        assert!(resolved || replied, "round {round}: neither won");

        let in_folder =
            |agent: &str, folder: &str| t.files(agent, folder).iter().any(|n| n.contains(&id[..8]));
        assert!(
            !in_folder("dev", "inbox"),
            "round {round}: still in dev's inbox"
        );
        assert_eq!(in_folder("dev", "done"), resolved, "round {round}");
        assert_eq!(in_folder("qa", "inbox"), replied, "round {round}");
        if resolved && replied {
            // Resolved first, then the reply went out from done/ (a handled message can still be
            // answered): the record stays, the reply carries the resolution.
            let copy = t.read_json("qa", "inbox", &id);
            assert_eq!(copy["processing"][0]["action"], "Resolved", "round {round}");
        }
        assert!(t.files("dev", "tmp").is_empty() && t.files("qa", "tmp").is_empty());
    }
    // No message id in two folders of one mailbox.
    for agent in ["qa", "dev"] {
        for (id, folders) in placement(&t, agent) {
            assert_eq!(folders.len(), 1, "{agent}: {id} in {folders:?}");
        }
    }
}
