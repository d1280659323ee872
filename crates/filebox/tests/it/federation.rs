//! Federation over a real NATS JetStream: hubs as separate `filebox serve` processes, each
//! with its own mailbox root, exchange mail; every verb crosses; `kill -9` of a hub and a
//! restart of `nats-server` mid-exchange lose nothing and show nothing twice; a hub that was
//! offline receives everything, in order per sender.

use std::collections::HashSet;
use std::os::unix::fs::MetadataExt;

use filebox_core::Folder;
use filebox_core::message::field;

use crate::cluster::{Hub, Nats};

fn ids(listing: &[filebox_core::Envelope]) -> Vec<String> {
    listing.iter().map(|e| e.header.id().to_owned()).collect()
}

fn assert_unique(listing: &[filebox_core::Envelope]) {
    let all = ids(listing);
    let unique: HashSet<&String> = all.iter().collect();
    assert_eq!(
        unique.len(),
        all.len(),
        "a message is listed twice: {all:?}"
    );
}

/// The status a message's sender sees (`filebox status --json`).
fn status(hub: &Hub, agent: &str, id: &str) -> String {
    hub.json(agent, &["status", id])["status"]
        .as_str()
        .unwrap()
        .to_owned()
}

/// Wait until the sender's status of `id` is `wanted` (the stand-in's folder is what it reads).
fn wait_status(hub: &Hub, agent: &str, remote: &str, id: &str, folder: Folder, wanted: &str) {
    hub.wait_for_id(remote, folder, id);
    assert_eq!(
        status(hub, agent, id),
        wanted,
        "status of {id} on {}",
        hub.name
    );
}

#[test]
fn two_hubs_every_verb_crosses() {
    let nats = Nats::start();
    let mut laptop = Hub::new("laptop", &nats, &["alice", "carol"], &["bob@ci-1"]);
    let mut ci = Hub::new("ci-1", &nats, &["bob"], &[]);
    laptop.start();
    ci.start();

    // send: the file reaches bob with its sender named as ci-1 sees it.
    let first = laptop.ok("alice", &["send", "bob@ci-1", "ER", "Please add a retry"]);
    let first = first.trim();
    let arrived = ci.wait_for_id("bob", Folder::Inbox, first);
    assert_eq!(arrived.header.get(field::SENDER), Some("alice@laptop"));
    assert_eq!(arrived.header.get(field::RECEIVER), Some("bob"));
    assert!(ci.text(&arrived).contains("Please add a retry"));
    assert_eq!(status(&laptop, "alice", first), "delivered");

    // reply: the whole conversation travels back; the sender's status follows.
    ci.ok("bob", &["reply", first, "Done in 1.2"]);
    let reply = laptop.wait_for("alice", Folder::Inbox, "the reply", |l| {
        l.iter().any(|e| e.header.id() == first)
    });
    let reply = reply.iter().find(|e| e.header.id() == first).unwrap();
    let text = laptop.text(reply);
    assert!(
        text.contains("Please add a retry") && text.contains("Done in 1.2"),
        "{text}"
    );
    assert_eq!(reply.header.get(field::SENDER), Some("bob@ci-1"));
    // bob's stand-in here records what he answered: his copy moved on to his outbox.
    let answered = laptop.wait_for_id("bob@ci-1", Folder::Outbox, first);
    assert!(laptop.text(&answered).contains("Done in 1.2"));
    assert!(laptop.list("bob@ci-1", Folder::Inbox).is_empty());

    // hold, resolve, reject: the sender's status follows each.
    let second = laptop.ok("alice", &["send", "bob@ci-1", "ER", "second"]);
    let second = second.trim();
    ci.wait_for_id("bob", Folder::Inbox, second);
    ci.ok("bob", &["onhold", second, "looking"]);
    wait_status(
        &laptop,
        "alice",
        "bob@ci-1",
        second,
        Folder::Hold,
        "processing",
    );
    ci.ok("bob", &["resolved", second, "fixed"]);
    wait_status(
        &laptop,
        "alice",
        "bob@ci-1",
        second,
        Folder::Done,
        "replied",
    );
    let done = laptop.wait_for_id("bob@ci-1", Folder::Done, second);
    assert!(laptop.text(&done).contains("fixed"), "the details travel");

    let third = laptop.ok("alice", &["send", "bob@ci-1", "ER", "third"]);
    let third = third.trim();
    ci.wait_for_id("bob", Folder::Inbox, third);
    ci.ok("bob", &["reject", third, "out of scope"]);
    wait_status(
        &laptop,
        "alice",
        "bob@ci-1",
        third,
        Folder::Cancel,
        "failed",
    );

    // resolve on the other side: alice resolves what bob sent her.
    let from_bob = ci.ok("bob", &["send", "alice@laptop", "DIS", "from bob"]);
    let from_bob = from_bob.trim();
    laptop.wait_for_id("alice", Folder::Inbox, from_bob);
    laptop.ok("alice", &["resolved", from_bob, "thanks"]);
    wait_status(
        &ci,
        "bob",
        "alice@laptop",
        from_bob,
        Folder::Done,
        "replied",
    );

    // cc: carol gets it here, bob there.
    let cc = laptop.ok(
        "alice",
        &["send", "carol", "DIS", "for both", "--cc", "bob@ci-1"],
    );
    let cc = cc.trim();
    let copy = ci.wait_for_id("bob", Folder::Inbox, cc);
    assert_eq!(copy.header.get(field::CC), Some("bob"));
    assert_eq!(copy.header.get(field::RECEIVER), Some("carol@laptop"));

    // broadcast: ci-1 learnt alice and carol from what arrived; @all reaches both.
    let all = ci.ok("bob", &["send", "@all", "DIS", "to everyone"]);
    let all = all.trim();
    laptop.wait_for_id("alice", Folder::Inbox, all);
    laptop.wait_for_id("carol", Folder::Inbox, all);

    // fork: a second fork from the same point obsoletes the first fork's message, and the
    // mark reaches bob's copy on ci-1.
    let fork = |context: &str| {
        let fork = laptop.json(
            "alice",
            &[
                "fork",
                "--from",
                first,
                "--reason",
                "direction-change",
                "--context",
                context,
            ],
        );
        fork["id"].as_str().unwrap().to_owned()
    };
    let fork_one = fork("plan A");
    ci.wait_for_id("bob", Folder::Inbox, &fork_one);
    let fork_two = fork("plan B");
    ci.wait_for_id("bob", Folder::Inbox, &fork_two);
    ci.wait_for("bob", Folder::Inbox, "the obsolete mark", |l| {
        l.iter()
            .any(|e| e.header.id() == fork_one && e.header.get(field::STATUS) == Some("obsolete"))
    });

    // Nothing listed twice anywhere.
    for folder in Folder::ALL {
        assert_unique(&ci.list("bob", folder));
        assert_unique(&laptop.list("alice", folder));
    }

    // federation status: connected, both hubs known, nothing queued.
    let report = laptop.json("alice", &["federation", "status"]);
    assert_eq!(report["connection"], "connected", "{report}");
    let hubs: Vec<&str> = report["hubs"]
        .as_array()
        .unwrap()
        .iter()
        .map(|h| h["hub"].as_str().unwrap())
        .collect();
    assert_eq!(hubs, ["ci-1", "laptop"]);
    assert!(
        report["hubs"]
            .as_array()
            .unwrap()
            .iter()
            .all(|h| h["queued"] == 0),
        "{report}"
    );
}

#[test]
fn three_hubs_cc_and_answers_reach_each_machine_once() {
    let nats = Nats::start();
    let mut laptop = Hub::new("laptop", &nats, &["alice"], &["bob@ci-1", "dan@srv"]);
    let mut ci = Hub::new("ci-1", &nats, &["bob"], &[]);
    let mut srv = Hub::new("srv", &nats, &["dan"], &[]);
    for hub in [&mut laptop, &mut ci, &mut srv] {
        hub.start();
    }
    let id = laptop.ok(
        "alice",
        &["send", "bob@ci-1", "ER", "plan", "--cc", "dan@srv"],
    );
    let id = id.trim();
    let at_bob = ci.wait_for_id("bob", Folder::Inbox, id);
    let at_dan = srv.wait_for_id("dan", Folder::Inbox, id);
    assert_eq!(at_bob.header.get(field::CC), Some("dan@srv"));
    assert_eq!(at_dan.header.get(field::RECEIVER), Some("bob@ci-1"));
    // dan answers alice; bob answers alice; each answer arrives once.
    srv.ok("dan", &["reply", id, "dan agrees"]);
    laptop.wait_for("alice", Folder::Inbox, "dan's answer", |l| {
        l.iter()
            .any(|e| e.header.get(field::SENDER) == Some("dan@srv"))
    });
    // ci-1 learnt dan@srv from the CC: bob can write to him directly.
    let direct = ci.ok("bob", &["send", "dan@srv", "DIS", "hello dan"]);
    srv.wait_for_id("dan", Folder::Inbox, direct.trim());
    for (hub, agent) in [(&laptop, "alice"), (&ci, "bob"), (&srv, "dan")] {
        assert_unique(&hub.list(agent, Folder::Inbox));
    }
}

#[test]
fn kill_9_of_either_hub_and_a_nats_restart_lose_nothing_and_double_nothing() {
    const COUNT: usize = 60;
    let mut nats = Nats::start();
    let mut laptop = Hub::new("laptop", &nats, &["alice"], &["bob@ci-1"]);
    let mut ci = Hub::new("ci-1", &nats, &["bob"], &[]);
    laptop.start();
    ci.start();
    let mut sent = Vec::new();
    for n in 0..COUNT {
        sent.push(laptop.send_in_process("alice", "bob@ci-1", &format!("message {n}")));
        match n {
            // The receiver dies mid-exchange and comes back.
            10 => ci.kill(),
            20 => ci.start(),
            // The sender dies with mail in its spool.
            30 => laptop.kill(),
            35 => laptop.start(),
            // NATS itself goes down and comes back on the same port and store.
            45 => nats.restart(),
            _ => {}
        }
    }
    let inbox = ci.wait_for("bob", Folder::Inbox, "every message", |l| l.len() >= COUNT);
    assert_unique(&inbox);
    let got: HashSet<String> = ids(&inbox).into_iter().collect();
    let want: HashSet<String> = sent.into_iter().collect();
    assert_eq!(got, want);
}

#[test]
fn a_hub_offline_while_500_messages_are_sent_receives_all_in_order_per_sender() {
    const COUNT: usize = 500;
    let nats = Nats::start();
    let mut laptop = Hub::new("laptop", &nats, &["alice", "carol"], &["bob@ci-1"]);
    let mut ci = Hub::new("ci-1", &nats, &["bob"], &[]);
    laptop.start();
    // ci-1 is not running: everything waits in the stream.
    for n in 0..COUNT {
        let sender = if n % 2 == 0 { "alice" } else { "carol" };
        laptop.send_in_process(sender, "bob@ci-1", &format!("{sender} {n}"));
    }
    laptop.wait_for("bob@ci-1", Folder::Inbox, "the spool", |l| l.len() == COUNT);
    ci.start();
    let inbox = ci.wait_for("bob", Folder::Inbox, "all 500", |l| l.len() >= COUNT);
    assert_eq!(inbox.len(), COUNT);
    assert_unique(&inbox);
    // In the order each sender sent: delivery order is the files' inode change order.
    let mut arrivals: Vec<(i64, i64, String)> = inbox
        .iter()
        .map(|e| {
            let meta = std::fs::metadata(&e.path).unwrap();
            let text = ci.text(e);
            let body = text
                .lines()
                .find(|l| l.starts_with("alice ") || l.starts_with("carol "))
                .unwrap()
                .to_owned();
            (meta.ctime(), meta.ctime_nsec(), body)
        })
        .collect();
    arrivals.sort();
    for sender in ["alice", "carol"] {
        let numbers: Vec<usize> = arrivals
            .iter()
            .filter_map(|(_, _, body)| body.strip_prefix(&format!("{sender} ")))
            .map(|n| n.parse().unwrap())
            .collect();
        let mut sorted = numbers.clone();
        sorted.sort_unstable();
        assert_eq!(numbers, sorted, "{sender}'s messages arrived out of order");
        assert_eq!(numbers.len(), COUNT / 2);
    }
}
