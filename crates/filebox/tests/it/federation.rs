//! Federation over a real NATS JetStream: hubs as separate `filebox serve` processes, each
//! with its own mailbox root, exchange mail; every verb crosses (attachments, `email.status`,
//! threads and a person's answer to `ask_question` on another machine's page included);
//! status says in flight until the destination hub has the file; `kill -9` of a hub and a
//! restart of `nats-server` mid-exchange lose nothing and show nothing twice; a hub that was
//! offline receives everything, in order per sender; a batch with a refused mail or a mail to
//! retry in it delivers the rest, in order per sender.

use std::collections::HashSet;
use std::process::Stdio;
use std::sync::atomic::{AtomicBool, Ordering};
use std::time::{Duration, Instant};

use filebox_core::message::field;
use filebox_core::question::QuestionState;
use filebox_core::{Attachment, Folder};
use serde_json::{Value, json};

use crate::cluster::{Hub, Nats};

/// Only for a failing test: how long a polled condition may take to become true.
const DEADLINE: Duration = Duration::from_secs(120);

/// Poll `condition` (something only a query shows, like the stream's contents) until it holds;
/// panic naming `what` after [`DEADLINE`].
fn until(what: &str, mut condition: impl FnMut() -> bool) {
    let start = Instant::now();
    while !condition() {
        assert!(start.elapsed() < DEADLINE, "gave up waiting for {what}");
        std::thread::sleep(Duration::from_millis(50));
    }
}

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

/// Wait until `hub`'s spool copy of `id` for `remote` carries the delivery receipt that
/// `remote`'s hub sends once the file is on its disk.
fn wait_receipt(hub: &Hub, remote: &str, id: &str) {
    let line = format!("- Received by {remote}:");
    hub.wait_for(remote, Folder::Inbox, "the delivery receipt", |l| {
        l.iter()
            .any(|e| e.header.id() == id && hub.text_if_there(e).contains(&line))
    });
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
    wait_receipt(&laptop, "bob@ci-1", first);
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
    assert_eq!(report["stream"]["replicas"], 1, "{report}");
    assert!(report["stream"]["server"].is_string(), "{report}");
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
    assert_in_order_per_sender(&ci, &inbox, &["alice", "carol"], COUNT / 2);
}

/// Each sender's messages (bodies `SENDER N`) arrived in the order sent: delivery order is the
/// order of the inbox's change journal (`.filebox/changes.inbox`, appended under a lock as each
/// file is linked in); `each` of them per sender.
fn assert_in_order_per_sender(
    hub: &Hub,
    inbox: &[filebox_core::Envelope],
    senders: &[&str],
    each: usize,
) {
    let folder = inbox[0].path.parent().unwrap();
    let journal =
        std::fs::read_to_string(folder.parent().unwrap().join(".filebox/changes.inbox")).unwrap();
    // Each line: mtime before, mtime after, `+` or `-`, inode, file name.
    let linked: Vec<&str> = journal
        .lines()
        .filter_map(|line| match line.split('\t').collect::<Vec<_>>()[..] {
            [_, _, "+", _, name] => Some(name),
            _ => None,
        })
        .collect();
    let mut arrivals: Vec<(usize, &str, usize)> = inbox
        .iter()
        .map(|e| {
            let name = e.path.file_name().unwrap().to_str().unwrap();
            let position = linked.iter().position(|l| *l == name).unwrap();
            let text = hub.text(e);
            let (sender, n) = text
                .lines()
                .find_map(|l| {
                    let (sender, n) = l.split_once(' ')?;
                    let sender = senders.iter().find(|s| **s == sender)?;
                    Some((*sender, n.parse().ok()?))
                })
                .unwrap();
            (position, sender, n)
        })
        .collect();
    arrivals.sort_unstable();
    for sender in senders {
        let numbers: Vec<usize> = arrivals
            .iter()
            .filter(|(_, s, _)| s == sender)
            .map(|&(_, _, n)| n)
            .collect();
        assert!(
            numbers.is_sorted(),
            "{sender}'s messages arrived out of order: {numbers:?}"
        );
        assert_eq!(numbers.len(), each);
    }
}

#[test]
fn a_hub_killed_with_mail_in_hand_still_receives_each_senders_mail_in_order() {
    const COUNT: usize = 120;
    let nats = Nats::start();
    let mut laptop = Hub::new("laptop", &nats, &["alice", "carol"], &["bob@ci-1"]);
    let mut ci = Hub::new("ci-1", &nats, &["bob"], &[]);
    laptop.start();
    for n in 0..COUNT {
        let sender = if n % 2 == 0 { "alice" } else { "carol" };
        laptop.send_in_process(sender, "bob@ci-1", &format!("{sender} {n}"));
    }
    until("the mail in the stream", || {
        waiting_in_stream(&laptop, "ci-1") == COUNT as u64
    });
    // ci-1 dies while taking the mail, and comes back.
    ci.start();
    ci.wait_for("bob", Folder::Inbox, "the first mail", |l| l.len() >= 10);
    ci.kill();
    ci.start();
    let inbox = ci.wait_for("bob", Folder::Inbox, "all of it", |l| l.len() >= COUNT);
    assert_eq!(inbox.len(), COUNT);
    assert_unique(&inbox);
    assert_in_order_per_sender(&ci, &inbox, &["alice", "carol"], COUNT / 2);
}

#[test]
fn a_batch_with_mail_the_receiving_hub_refuses_delivers_the_rest_in_order() {
    const COUNT: usize = 40;
    let nats = Nats::start();
    // ci-1 has bob, not nobody: every fifth mail is refused, in the middle of a batch.
    let mut laptop = Hub::new(
        "laptop",
        &nats,
        &["alice", "carol"],
        &["bob@ci-1", "nobody@ci-1"],
    );
    let mut ci = Hub::new("ci-1", &nats, &["bob"], &[]);
    laptop.start();
    for n in 0..COUNT {
        let sender = if n % 2 == 0 { "alice" } else { "carol" };
        let to = if n % 5 == 4 {
            "nobody@ci-1"
        } else {
            "bob@ci-1"
        };
        laptop.send_in_process(sender, to, &format!("{sender} {n}"));
    }
    until("the mail in the stream", || {
        waiting_in_stream(&laptop, "ci-1") == COUNT as u64
    });
    ci.start();
    let delivered = COUNT - COUNT / 5;
    let inbox = ci.wait_for("bob", Folder::Inbox, "the deliverable mail", |l| {
        l.len() >= delivered
    });
    assert_eq!(inbox.len(), delivered);
    assert_unique(&inbox);
    assert_in_order_per_sender(&ci, &inbox, &["alice", "carol"], delivered / 2);
    // Each refusal came back: the spool copies are failed, in cancel/.
    laptop.wait_for("nobody@ci-1", Folder::Cancel, "every refusal", |l| {
        l.len() == COUNT / 5
    });
}

#[test]
fn mail_that_cannot_be_written_yet_holds_back_the_mail_after_it_then_all_arrives_in_order() {
    const COUNT: usize = 32;
    let nats = Nats::start();
    let mut laptop = Hub::new("laptop", &nats, &["alice", "carol"], &["bob@ci-1"]);
    let mut ci = Hub::new("ci-1", &nats, &["bob"], &[]);
    laptop.start();
    ci.start();
    let first = laptop.send_in_process("alice", "bob@ci-1", "alice 0");
    ci.wait_for_id("bob", Folder::Inbox, &first);
    // ci-1's config cannot be read for a while (being rewritten by hand): every delivery
    // fails and is retried, with the mail after it in hand.
    let config = ci.config_path();
    let good = std::fs::read_to_string(&config).unwrap();
    std::fs::write(&config, "{ half written").unwrap();
    for n in 1..COUNT {
        let sender = if n % 2 == 0 { "alice" } else { "carol" };
        laptop.send_in_process(sender, "bob@ci-1", &format!("{sender} {n}"));
    }
    until("a delivery to retry", || {
        ci.log().contains("(will be redelivered)")
    });
    std::fs::write(&config, good).unwrap();
    let inbox = ci.wait_for("bob", Folder::Inbox, "all of it", |l| l.len() >= COUNT);
    assert_eq!(inbox.len(), COUNT);
    assert_unique(&inbox);
    assert_in_order_per_sender(&ci, &inbox, &["alice", "carol"], COUNT / 2);
}

#[test]
fn mail_sent_after_a_hub_was_killed_mid_batch_does_not_overtake_what_it_had_in_hand() {
    const FIRST: usize = 60;
    const COUNT: usize = 80;
    let nats = Nats::start();
    let mut laptop = Hub::new("laptop", &nats, &["alice", "carol"], &["bob@ci-1"]);
    let mut ci = Hub::new("ci-1", &nats, &["bob"], &[]);
    laptop.start();
    let send = |n: usize| {
        let sender = if n.is_multiple_of(2) {
            "alice"
        } else {
            "carol"
        };
        laptop.send_in_process(sender, "bob@ci-1", &format!("{sender} {n}"));
    };
    (0..FIRST).for_each(send);
    until("the mail in the stream", || {
        waiting_in_stream(&laptop, "ci-1") == FIRST as u64
    });
    // ci-1 dies with the batch in hand, unacknowledged; more mail comes before it is back,
    // which the server could hand out at once, ahead of the batch it redelivers only later.
    ci.start();
    ci.wait_for("bob", Folder::Inbox, "the first mail", |l| !l.is_empty());
    ci.kill();
    (FIRST..COUNT).for_each(send);
    ci.start();
    let inbox = ci.wait_for("bob", Folder::Inbox, "all of it", |l| l.len() >= COUNT);
    assert_eq!(inbox.len(), COUNT);
    assert_unique(&inbox);
    assert_in_order_per_sender(&ci, &inbox, &["alice", "carol"], COUNT / 2);
}

/// Messages waiting in the stream for `hub`, as `federation status` on `from` reports them.
fn waiting_in_stream(from: &Hub, hub: &str) -> u64 {
    let report = from.json("alice", &["federation", "status"]);
    report["hubs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["hub"] == hub)
        .and_then(|h| h["waiting"].as_u64())
        .unwrap_or(0)
}

#[test]
fn status_says_in_flight_until_the_destination_hub_has_the_file() {
    let nats = Nats::start();
    let mut laptop = Hub::new("laptop", &nats, &["alice"], &["bob@ci-1"]);
    let mut ci = Hub::new("ci-1", &nats, &["bob"], &[]);
    laptop.start();
    // ci-1 has never run: the mail can get as far as the stream, no further.
    let id = laptop.ok("alice", &["send", "bob@ci-1", "ER", "while ci-1 is away"]);
    let id = id.trim();
    until("the mail in the stream", || {
        waiting_in_stream(&laptop, "ci-1") == 1
    });
    assert_eq!(status(&laptop, "alice", id), "pending");
    let text = laptop.ok("alice", &["status", id]);
    assert!(
        text.contains("is in flight") && text.contains("- bob@ci-1: in flight (inbox)"),
        "{text}"
    );
    let seen = laptop.rpc("email.status", json!({ "id": id, "agent": "alice" }));
    assert_eq!(seen["status"], "pending", "{seen}");
    assert_eq!(seen["recipients"][0]["agent"], "bob@ci-1", "{seen}");
    assert_eq!(seen["recipients"][0]["status"], "pending", "{seen}");

    // ci-1 comes: it takes the mail, its receipt comes back, and only then is it delivered.
    ci.start();
    ci.wait_for_id("bob", Folder::Inbox, id);
    wait_receipt(&laptop, "bob@ci-1", id);
    assert_eq!(status(&laptop, "alice", id), "delivered");
    let seen = laptop.rpc("email.status", json!({ "id": id, "agent": "alice" }));
    assert_eq!(seen["status"], "delivered", "{seen}");
    assert_eq!(seen["recipients"][0]["status"], "delivered", "{seen}");
    // The receipt is this machine's bookkeeping: bob's copy has no such line.
    let bobs = ci.wait_for_id("bob", Folder::Inbox, id);
    assert!(
        !ci.text(&bobs).contains("Received by"),
        "{}",
        ci.text(&bobs)
    );
    until("the stream emptied", || {
        waiting_in_stream(&laptop, "ci-1") == 0
    });
}

#[test]
fn attachments_email_status_and_threads_cross_hubs() {
    let nats = Nats::start();
    let mut laptop = Hub::new("laptop", &nats, &["alice"], &["bob@ci-1"]);
    let mut ci = Hub::new("ci-1", &nats, &["bob"], &[]);
    laptop.start();
    ci.start();

    // A message with an attachment: the file reaches bob's mailbox with the same bytes, under
    // the name the message links to.
    let log = b"step 1 ok\nstep 2 FAILED: timeout\n".to_vec();
    let id = laptop.send_with_attachments(
        "alice",
        "bob@ci-1",
        "The build log is attached.",
        vec![Attachment {
            name: "build.log".into(),
            mime: None,
            bytes: log.clone(),
        }],
    );
    let arrived = ci.wait_for_id("bob", Folder::Inbox, &id);
    assert!(
        ci.text(&arrived)
            .contains(&format!("../attachments/{id}/build.log")),
        "{}",
        ci.text(&arrived)
    );
    assert_eq!(ci.attachment("bob", &id, "build.log"), log);

    // email.status on the sender's hub follows bob's copy: delivered, on hold, answered.
    let email_status = |hub: &Hub, agent: &str| -> Value {
        hub.rpc("email.status", json!({ "id": id, "agent": agent }))
    };
    wait_receipt(&laptop, "bob@ci-1", &id);
    assert_eq!(email_status(&laptop, "alice")["status"], "delivered");
    ci.ok("bob", &["onhold", &id, "reading the log"]);
    laptop.wait_for_id("bob@ci-1", Folder::Hold, &id);
    let seen = email_status(&laptop, "alice");
    assert_eq!(seen["status"], "processing", "{seen}");
    assert_eq!(seen["recipients"][0]["folder"], "hold", "{seen}");

    // bob answers with an attachment of his own: it comes back with the whole conversation.
    let trace = ci.path().join("trace.txt");
    std::fs::write(&trace, "at retry.rs:42\n").unwrap();
    ci.ok(
        "bob",
        &[
            "reply",
            &id,
            "Found it, trace attached",
            "--attach",
            trace.to_str().unwrap(),
        ],
    );
    let answer = laptop.wait_for("alice", Folder::Inbox, "bob's answer", |l| {
        l.iter().any(|e| e.header.id() == id)
    });
    let answer = answer.iter().find(|e| e.header.id() == id).unwrap();
    let text = laptop.text(answer);
    assert!(
        text.contains("The build log is attached.") && text.contains("Found it, trace attached"),
        "{text}"
    );
    assert_eq!(
        laptop.attachment("alice", &id, "trace.txt"),
        b"at retry.rs:42\n"
    );
    assert_eq!(laptop.attachment("alice", &id, "build.log"), log);
    let seen = email_status(&laptop, "alice");
    assert_eq!(seen["status"], "replied", "{seen}");

    // The thread reads the same on both machines, each naming the other's agent as name@hub.
    let thread = laptop.json("alice", &["thread", &id]);
    let from: Vec<&str> = thread["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["from"].as_str().unwrap())
        .collect();
    assert_eq!(from, ["alice", "bob@ci-1"], "{thread}");
    let there = ci.rpc("email.thread", json!({ "id": id, "agent": "bob" }));
    let from: Vec<&str> = there["nodes"]
        .as_array()
        .unwrap()
        .iter()
        .map(|n| n["from"].as_str().unwrap())
        .collect();
    assert_eq!(from, ["alice@laptop", "bob"], "{there}");
}

#[test]
fn ask_question_is_answered_on_another_machines_page_and_the_blocking_call_returns_it() {
    let nats = Nats::start();
    let mut laptop = Hub::new("laptop", &nats, &["coder"], &["pat@srv"]);
    let mut srv = Hub::new("srv", &nats, &["pat"], &[]);
    laptop.configure(|config| config["agents"]["coder"]["human"] = json!("pat@srv"));
    srv.configure(|config| config["agents"]["pat"]["kind"] = json!("human"));
    laptop.start();
    srv.start();

    // The agent on the laptop asks and blocks, as the MCP tool does.
    let asking = laptop
        .command(
            "coder",
            &[
                "--json",
                "ask",
                "Which database?",
                "--option",
                "SQLite",
                "--option",
                "Postgres",
                "--project",
                "/src/app",
                "--timeout",
                "600",
            ],
        )
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();

    // The person's page on srv: the question is open there, and answered with a picture.
    srv.wait_for("pat", Folder::Inbox, "the question", |l| !l.is_empty());
    let open = srv.rpc("questions.open", json!({ "agent": "pat" }));
    let question = &open["questions"][0];
    assert_eq!(question["from"], "coder@laptop", "{open}");
    assert_eq!(question["options"], json!(["SQLite", "Postgres"]), "{open}");
    assert_eq!(question["project_directory"], "/src/app", "{open}");
    let picture = b"\x89PNG\r\n\x1a\n schema".to_vec();
    srv.rpc(
        "email.reply",
        json!({
            "from": "pat",
            "id": question["id"],
            "body": "Postgres, as in the schema",
            "attachments": [filebox_api::AttachmentArg::from_bytes(
                "schema.png",
                Some("image/png".into()),
                &picture,
            )],
        }),
    );

    // The blocking call returns the answer, its picture on this machine's disk.
    let output = asking.wait_with_output().unwrap();
    assert!(
        output.status.success(),
        "{}",
        String::from_utf8_lossy(&output.stderr)
    );
    let result: Value = serde_json::from_slice(&output.stdout).unwrap();
    assert_eq!(result["status"], "answered", "{result}");
    assert_eq!(result["answer"]["from"], "pat@srv", "{result}");
    assert_eq!(
        result["answer"]["text"], "Postgres, as in the schema",
        "{result}"
    );
    let attachment = &result["answer"]["attachments"][0];
    assert_eq!(attachment["name"], "schema.png", "{result}");
    assert_eq!(attachment["mime_type"], "image/png", "{result}");
    let path = attachment["path"].as_str().unwrap();
    assert!(path.starts_with(laptop.path().to_str().unwrap()), "{path}");
    assert_eq!(std::fs::read(path).unwrap(), picture);
    // Answered once: no longer open on the page.
    let open = srv.rpc("questions.open", json!({ "agent": "pat" }));
    assert_eq!(open["questions"], json!([]), "{open}");
    // Answering finished it for the person: their copy is in done/, on srv and in their
    // stand-in on the laptop (the same rule files both), never in an outbox.
    let id = question["id"].as_str().unwrap();
    srv.wait_for_id("pat", Folder::Done, id);
    laptop.wait_for_id("pat@srv", Folder::Done, id);
    for (hub, agent) in [(&srv, "pat"), (&laptop, "pat@srv")] {
        let outbox = hub.list(agent, Folder::Outbox);
        assert!(outbox.iter().all(|e| e.header.id() != id), "{agent}");
    }
}

#[test]
fn a_send_to_another_machine_is_queued_on_every_surface_until_its_receipt() {
    let nats = Nats::start();
    let mut laptop = Hub::new("laptop", &nats, &["alice", "carol"], &["bob@ci-1"]);
    // No NATS and no hub: the mail can only reach the spool.
    drop(nats);
    let sent = laptop.json("alice", &["send", "bob@ci-1,carol", "ER", "from the CLI"]);
    assert_eq!(sent["delivered_to"], json!(["carol"]), "{sent}");
    assert_eq!(sent["queued_for"], json!(["bob@ci-1"]), "{sent}");
    let id = sent["id"].as_str().unwrap();
    assert_eq!(status(&laptop, "alice", id), "pending");
    let text = laptop.cli("alice", &["send", "bob@ci-1", "ER", "in words"]);
    assert!(text.status.success());
    let said = String::from_utf8_lossy(&text.stderr);
    assert!(said.contains("queued for bob@ci-1"), "{said}");

    // The hub's answer to email.send is what email.status says of the same id.
    laptop.start();
    let email = laptop.rpc(
        "email.send",
        json!({
            "from": "alice", "to": ["bob@ci-1"], "subject": "s", "body": "from the page",
            "sourceType": "agent",
        }),
    );
    assert_eq!(email["status"], "pending", "{email}");
    assert!(email.get("deliveredAt").is_none(), "{email}");
    let seen = laptop.rpc(
        "email.status",
        json!({ "id": email["id"], "agent": "alice" }),
    );
    assert_eq!(seen["status"], email["status"], "{seen}");
    let read = laptop.rpc("email.read", json!({ "id": email["id"], "agent": "alice" }));
    assert_eq!(read["status"], "pending", "{read}");
    let outbox = laptop.rpc(
        "email.inbox",
        json!({ "agent": "alice", "folder": "outbox" }),
    );
    assert!(
        outbox
            .as_array()
            .unwrap()
            .iter()
            .all(|e| e["status"] == "pending"),
        "{outbox}"
    );
}

#[test]
fn mail_the_receiving_hub_refuses_comes_back_failed_with_the_reason() {
    let nats = Nats::start();
    // The laptop believes in bob@ci-1; ci-1 has no bob.
    let mut laptop = Hub::new("laptop", &nats, &["alice"], &["bob@ci-1"]);
    let mut ci = Hub::new("ci-1", &nats, &["carol"], &[]);
    laptop.start();
    ci.start();
    let id = laptop.ok("alice", &["send", "bob@ci-1", "ER", "to nobody"]);
    let id = id.trim();
    wait_status(&laptop, "alice", "bob@ci-1", id, Folder::Cancel, "failed");
    let text = laptop.ok("alice", &["status", id]);
    assert!(
        text.contains("\"to nobody\" is refused")
            && text.contains("- bob@ci-1: refused by its hub: hub ci-1 has no agent bob"),
        "{text}"
    );
    let seen = laptop.rpc("email.status", json!({ "id": id, "agent": "alice" }));
    assert_eq!(seen["status"], "failed", "{seen}");
    assert_eq!(seen["recipients"][0]["status"], "failed", "{seen}");
    assert_eq!(
        seen["recipients"][0]["refused"], "hub ci-1 has no agent bob",
        "{seen}"
    );
    // ci-1 keeps the file, and the laptop owes nothing any more.
    let report = ci.json("carol", &["federation", "status"]);
    assert_eq!(report["refused"], 1, "{report}");
    assert!(laptop.list("bob@ci-1", Folder::Inbox).is_empty());
    assert_eq!(hub_report(&laptop, "alice", "ci-1")["owed"], 0);
}

/// `hub`'s line of `federation status` on `from`.
fn hub_report(from: &Hub, agent: &str, hub: &str) -> Value {
    let report = from.json(agent, &["federation", "status"]);
    report["hubs"]
        .as_array()
        .unwrap()
        .iter()
        .find(|h| h["hub"] == hub)
        .cloned()
        .unwrap_or_else(|| panic!("no {hub} in {report}"))
}

#[test]
fn mail_the_stream_lost_is_published_again_until_its_receipt() {
    const COUNT: usize = 5;
    let mut nats = Nats::start();
    let mut laptop = Hub::new("laptop", &nats, &["alice"], &["bob@ci-1"]);
    laptop.configure(|config| config["federation"]["resend_after_secs"] = json!(2));
    let mut ci = Hub::new("ci-1", &nats, &["bob"], &[]);
    laptop.start();
    // ci-1 is away: the mail waits in the stream, owed a receipt.
    let sent: Vec<String> = (0..COUNT)
        .map(|n| laptop.send_in_process("alice", "bob@ci-1", &format!("lost {n}")))
        .collect();
    until("the mail in the stream", || {
        waiting_in_stream(&laptop, "ci-1") == COUNT as u64
    });
    let owed = hub_report(&laptop, "alice", "ci-1");
    assert_eq!(owed["owed"], COUNT, "{owed}");
    assert!(owed["oldest_owed_secs"].is_u64(), "{owed}");
    // The NATS store is lost with everything it acknowledged; then ci-1 comes.
    nats.restart_with_empty_store();
    ci.start();
    let inbox = ci.wait_for("bob", Folder::Inbox, "the lost mail", |l| l.len() >= COUNT);
    assert_unique(&inbox);
    let got: HashSet<String> = ids(&inbox).into_iter().collect();
    assert_eq!(got, sent.iter().cloned().collect::<HashSet<_>>());
    for id in &sent {
        wait_receipt(&laptop, "bob@ci-1", id);
    }
    let settled = hub_report(&laptop, "alice", "ci-1");
    assert_eq!(settled["owed"], 0, "{settled}");
}

#[test]
fn a_question_withdrawn_on_the_askers_machine_leaves_the_persons_page_on_theirs() {
    let nats = Nats::start();
    let mut laptop = Hub::new("laptop", &nats, &["coder"], &["pat@srv"]);
    let mut srv = Hub::new("srv", &nats, &["pat"], &[]);
    laptop.configure(|config| config["agents"]["coder"]["human"] = json!("pat@srv"));
    srv.configure(|config| config["agents"]["pat"]["kind"] = json!("human"));
    laptop.start();
    srv.start();
    let withdraw = AtomicBool::new(false);
    let asked = std::thread::scope(|scope| {
        let asking = scope.spawn(|| {
            laptop.ask_in_process("coder", "Which database?", &|| {
                withdraw.load(Ordering::SeqCst)
            })
        });
        srv.wait_for("pat", Folder::Inbox, "the question", |l| !l.is_empty());
        // The asking call is cancelled on the laptop.
        withdraw.store(true, Ordering::SeqCst);
        asking.join().unwrap()
    });
    assert!(
        matches!(asked.state, QuestionState::Withdrawn(_)),
        "{asked:?}"
    );
    // On srv it leaves the page, as on one machine, and a late answer is refused.
    srv.wait_for_id("pat", Folder::Cancel, &asked.id);
    let open = srv.rpc("questions.open", json!({ "agent": "pat" }));
    assert_eq!(open["questions"], json!([]), "{open}");
    let late = srv.cli("pat", &["reply", &asked.id, "Postgres"]);
    assert!(!late.status.success(), "a late answer was accepted");
    let said = String::from_utf8_lossy(&late.stderr);
    assert!(said.contains("withdrawn"), "{said}");
}

#[test]
fn a_stream_of_three_replicas_carries_mail_with_one_nats_server_down() {
    let mut servers = Nats::cluster(3);
    let mut laptop = Hub::new("laptop", &servers[0], &["alice"], &["bob@ci-1"]);
    let mut ci = Hub::new("ci-1", &servers[1], &["bob"], &[]);
    for hub in [&laptop, &ci] {
        hub.configure(|config| config["federation"]["replicas"] = json!(3));
    }
    laptop.start();
    ci.start();
    let first = laptop.ok("alice", &["send", "bob@ci-1", "ER", "on three servers"]);
    let first = first.trim();
    ci.wait_for_id("bob", Folder::Inbox, first);
    wait_receipt(&laptop, "bob@ci-1", first);
    let report = laptop.json("alice", &["federation", "status"]);
    assert_eq!(report["stream"]["replicas"], 3, "{report}");
    // The third server goes: the other two still hold a majority of the stream.
    drop(servers.pop());
    let second = laptop.ok("alice", &["send", "bob@ci-1", "ER", "on two of them"]);
    let second = second.trim();
    ci.wait_for_id("bob", Folder::Inbox, second);
    wait_receipt(&laptop, "bob@ci-1", second);
}
