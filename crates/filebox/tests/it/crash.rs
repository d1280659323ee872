//! The crash campaign: `send`, reply, `resolved`, `fork`, `reindex` and `wait` killed with
//! SIGKILL at random instants, round after round: every visible file is whole and parses,
//! nothing acknowledged is lost, no message is in two places, the next command cleans up what
//! the dead left in `tmp/`, the index agrees with the files (before and after `reindex`), and
//! the wait cursor never skips a message.
//!
//! CI runs 30 rounds; `FILEBOX_CRASH_ROUNDS=1000` is the long campaign (RELIABILITY.md),
//! `FILEBOX_CRASH_SEED` replays a failed run's commands, and `FILEBOX_CRASH_KILL_WITHIN_MS`
//! narrows the kill window (default 20 ms) so that a fast binary is still killed mid-work.

use std::collections::{BTreeMap, BTreeSet};
use std::process::Child;
use std::time::{Duration, Instant};

use serde_json::Value;

use crate::support::{FOLDERS, Test};

/// Rounds when `FILEBOX_CRASH_ROUNDS` is not set.
const ROUNDS: usize = 30;
/// Each process is killed after a random delay below this, unless `FILEBOX_CRASH_KILL_WITHIN_MS`
/// says otherwise: a debug build on a busy machine needs the 20 ms to start, a release build on
/// an idle one finishes most commands within 3 ms.
const KILL_WITHIN_MS: u64 = 20;
/// A word every crash-test send carries, to compare the index with the files.
const WORD: &str = "crashword";

/// A small deterministic generator (xorshift64*), seeded per run and printed on failure.
struct Rng(u64);

impl Rng {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
}

/// What a spawned process was asked to do.
enum Job {
    Send,
    Resolve(String),
    Reply(String),
    Fork,
    Reindex,
    Wait,
}

impl Job {
    fn name(&self) -> &'static str {
        match self {
            Job::Send => "send",
            Job::Resolve(_) => "resolved",
            Job::Reply(_) => "reply",
            Job::Fork => "fork",
            Job::Reindex => "reindex",
            Job::Wait => "wait",
        }
    }
}

/// The ids in `wait --json` (`messages`) or `search --json` (`hits`).
fn ids(json: &str) -> Vec<String> {
    let value: Value = serde_json::from_str(json).unwrap_or(Value::Null);
    value["messages"]
        .as_array()
        .or(value["hits"].as_array())
        .map(|items| {
            items
                .iter()
                .filter_map(|m| m["id"].as_str().map(str::to_owned))
                .collect()
        })
        .unwrap_or_default()
}

#[test]
fn killed_writers_lose_nothing_acknowledged_and_leave_nothing_half_written() {
    let seed = std::env::var("FILEBOX_CRASH_SEED")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or_else(|| {
            std::time::SystemTime::now()
                .duration_since(std::time::UNIX_EPOCH)
                .unwrap()
                .as_nanos() as u64
                | 1
        });
    let rounds = std::env::var("FILEBOX_CRASH_ROUNDS")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(ROUNDS);
    let kill_within_us = std::env::var("FILEBOX_CRASH_KILL_WITHIN_MS")
        .ok()
        .and_then(|s| s.parse::<u64>().ok())
        .unwrap_or(KILL_WITHIN_MS)
        .clamp(1, 60_000)
        * 1000;
    let mut rng = Rng(seed);
    let context = format!("FILEBOX_CRASH_SEED={seed}");

    let t = Test::new().agents(["qa", "dev"]);
    let mut sent = Vec::new(); // acknowledged sends
    let mut resolved = Vec::new(); // acknowledged resolves
    let mut replied = Vec::new(); // acknowledged replies
    let mut forks = Vec::new(); // acknowledged forks: (fork id, ids it marked obsolete)
    let mut waited = BTreeSet::new(); // ids reported by waits (whole results printed)
    let mut killed: BTreeMap<&str, usize> = BTreeMap::new();
    // The first wait ever starts from the inbox as it is.
    t.as_agent("dev")
        .args(["wait", "--timeout", "0"])
        .expect_code(3);

    for round in 0..rounds {
        // A thread with a branch to obsolete: a base and a first fork of it; the killed fork
        // below forks from the base again, which obsoletes the first fork's copies.
        let base = t.send("qa", "dev", "ER", &format!("round {round} fork base"));
        t.as_agent("qa")
            .args(["fork", "--from", &base, "--reason", "direction-change"])
            .args(["--context", "first branch"])
            .success();

        // Messages for dev to handle this round, sent without interference.
        let targets: Vec<String> = (0..3)
            .map(|n| t.send("qa", "dev", "ER", &format!("round {round} target {n}")))
            .collect();
        let mut jobs = Vec::new();
        for n in 0..4 {
            // Some bodies are large, so that a kill often lands mid-write.
            let size = if rng.below(2) == 0 { 64 } else { 256 * 1024 };
            let body = format!("round {round} send {n} {WORD}\n{}", "x".repeat(size));
            let file = t.path().join(format!("body-{round}-{n}.md"));
            std::fs::write(&file, body).unwrap();
            let child = t
                .as_agent("qa")
                .args(["send", "dev", "SU", "--title", "crash test", "--file"])
                .args([&file])
                .command()
                .spawn()
                .unwrap();
            jobs.push((Job::Send, child));
        }
        for (n, id) in targets.iter().enumerate() {
            let (job, args) = if n == 0 || rng.below(2) == 0 {
                (Job::Resolve(id.clone()), vec!["resolved", id, "fixed"])
            } else {
                (
                    Job::Reply(id.clone()),
                    vec!["send", "qa", "DIS", "a question", "--reply_to", id],
                )
            };
            let child = t.as_agent("dev").args(args).command().spawn().unwrap();
            jobs.push((job, child));
        }
        let others = [
            (
                Job::Fork,
                "qa",
                vec![
                    "--json",
                    "fork",
                    "--from",
                    &base,
                    "--reason",
                    "direction-change",
                    "--context",
                    "second branch",
                ],
            ),
            (Job::Reindex, "dev", vec!["reindex"]),
            (Job::Wait, "dev", vec!["--json", "wait", "--timeout", "10"]),
        ];
        for (job, agent, args) in others {
            let child = t.as_agent(agent).args(args).command().spawn().unwrap();
            jobs.push((job, child));
        }

        // Kill each after its own random delay within the window.
        let start = Instant::now();
        let mut deadlines: Vec<(Duration, usize)> = (0..jobs.len())
            .map(|i| (Duration::from_micros(rng.below(kill_within_us)), i))
            .collect();
        deadlines.sort();
        for (deadline, i) in deadlines {
            if let Some(wait) = deadline.checked_sub(start.elapsed()) {
                std::thread::sleep(wait);
            }
            let child: &mut Child = &mut jobs[i].1;
            if child.try_wait().unwrap().is_none() {
                let _ = child.kill(); // SIGKILL
            }
        }
        for (job, child) in jobs {
            let out = child.wait_with_output().unwrap();
            let stdout = String::from_utf8_lossy(&out.stdout).trim().to_owned();
            match out.status.code() {
                None => {
                    *killed.entry(job.name()).or_default() += 1;
                    // A wait killed after writing its whole result reported those messages
                    // (it commits the cursor after the output): what it printed counts.
                    if matches!(job, Job::Wait) {
                        waited.extend(ids(&stdout));
                    }
                }
                // A wait that timed out reported nothing.
                Some(3) if matches!(job, Job::Wait) => {}
                Some(0) => match job {
                    Job::Send => sent.push(stdout),
                    Job::Resolve(id) => resolved.push(id),
                    Job::Reply(id) => replied.push(id),
                    Job::Fork => {
                        let fork: Value = serde_json::from_str(&stdout).unwrap();
                        // Every copy marked: no warning about one that could not be.
                        assert!(fork.get("warnings").is_none(), "{context}: {fork}");
                        let obsoleted = fork["obsoleted"]
                            .as_array()
                            .unwrap()
                            .iter()
                            .filter_map(|id| id.as_str().map(str::to_owned))
                            .collect::<Vec<_>>();
                        forks.push((fork["id"].as_str().unwrap().to_owned(), obsoleted));
                    }
                    Job::Reindex => {}
                    Job::Wait => waited.extend(ids(&stdout)),
                },
                Some(code) => panic!(
                    "{context}: round {round}: a writer failed with {code}: {}",
                    String::from_utf8_lossy(&out.stderr)
                ),
            }
        }

        // The next commands clean up what the dead left: dev's tmp/ holds dev's moves and
        // qa's staged sends; qa's holds dev's staged replies.
        let (_, stderr) = t.as_agent("dev").args(["list", "inbox"]).expect_code(0);
        assert_eq!(stderr, "", "{context}: round {round}");
        t.as_agent("qa").args(["list", "inbox"]).success();
        for agent in ["qa", "dev"] {
            let left = t.files(agent, "tmp");
            assert!(
                left.is_empty(),
                "{context}: round {round}: {agent}/tmp/ holds {left:?}"
            );
        }
    }
    for job in ["send", "resolved", "reply", "fork", "reindex", "wait"] {
        assert!(
            killed.contains_key(job),
            "{context}: no {job} was ever killed"
        );
    }

    // Every visible file is whole and parses; no id is in two folders of one mailbox, nor in
    // two mailboxes (outboxes are records and excluded).
    let mut places: BTreeMap<String, Vec<String>> = BTreeMap::new();
    let mut not_obsolete = BTreeSet::new(); // ids with a copy not marked obsolete
    let mut in_dev_inbox = BTreeSet::new();
    for agent in ["qa", "dev"] {
        for folder in FOLDERS {
            for name in t.files(agent, folder) {
                let read = t.read_json(agent, folder, &name);
                assert!(
                    read["markdown"]
                        .as_str()
                        .unwrap()
                        .contains("\n## Processing History\n"),
                    "{context}: {agent}/{folder}/{name} is incomplete"
                );
                let id = read["id"].as_str().unwrap().to_owned();
                let marked = read["markdown"]
                    .as_str()
                    .unwrap()
                    .contains("\n**Status:** obsolete\n");
                if !marked {
                    not_obsolete.insert(id.clone());
                }
                if agent == "dev" && folder == "inbox" {
                    in_dev_inbox.insert(id.clone());
                }
                let body = read["body"].as_str().unwrap();
                if read["title"] == "crash test" {
                    // A send's body is whole: its first line says how long the rest is.
                    let rest = body.split_once('\n').map_or("", |(_, r)| r);
                    assert!(
                        rest.len() == 64 || rest.len() == 256 * 1024,
                        "{context}: {agent}/{folder}/{name} has a cut body"
                    );
                }
                if folder != "outbox" {
                    places
                        .entry(id)
                        .or_default()
                        .push(format!("{agent}/{folder}"));
                }
            }
        }
    }
    for (id, at) in &places {
        assert_eq!(at.len(), 1, "{context}: {id} is in {at:?}");
    }
    let place = |id: &str| places.get(id).map(|p| p[0].as_str());
    for id in &sent {
        assert_eq!(
            place(id),
            Some("dev/inbox"),
            "{context}: acknowledged send {id}"
        );
    }
    for id in &resolved {
        assert_eq!(
            place(id),
            Some("dev/done"),
            "{context}: acknowledged resolve {id}"
        );
    }
    for id in &replied {
        assert_eq!(
            place(id),
            Some("qa/inbox"),
            "{context}: acknowledged reply {id}"
        );
    }
    for (fork, marked) in &forks {
        assert_eq!(
            place(fork),
            Some("dev/inbox"),
            "{context}: acknowledged fork {fork}"
        );
        for id in marked.iter().filter(|id| !id.contains('#')) {
            assert!(
                !not_obsolete.contains(id),
                "{context}: a copy of {id} is not marked obsolete"
            );
        }
    }

    // The wait cursor never skips: every message in dev's inbox was reported by a wait that
    // returned, or is reported by the next ones.
    loop {
        let out = t
            .as_agent("dev")
            .args(["--json", "wait", "--timeout", "0"])
            .output();
        assert!(
            matches!(out.status.code(), Some(0 | 3)),
            "{context}: {out:?}"
        );
        let more = ids(&String::from_utf8_lossy(&out.stdout));
        if more.is_empty() {
            break;
        }
        waited.extend(more);
    }
    let skipped: Vec<_> = in_dev_inbox.difference(&waited).collect();
    assert!(
        skipped.is_empty(),
        "{context}: no wait reported {skipped:?}"
    );

    // The index agrees with the files: after the killed reindexes (a search syncs by itself),
    // and after a reindex that finished.
    let holding_word: BTreeSet<String> = sent
        .iter()
        .filter(|id| place(id).is_some())
        .cloned()
        .collect();
    for reindex in [false, true] {
        if reindex {
            t.as_agent("dev").args(["reindex"]).success();
        }
        let hits = t
            .as_agent("dev")
            .args([
                "--json", "search", WORD, "--folder", "inbox", "--limit", "0",
            ])
            .success();
        let found: BTreeSet<String> = ids(&hits).into_iter().collect();
        assert!(
            holding_word.is_subset(&found),
            "{context}: reindex {reindex}: the index misses {:?}",
            holding_word.difference(&found).collect::<Vec<_>>()
        );
        for id in &found {
            assert_eq!(place(id), Some("dev/inbox"), "{context}: search found {id}");
        }
    }

    eprintln!(
        "crash test: {context}, {rounds} rounds, kills within {} ms, killed {killed:?}, \
         acknowledged: {} sends, {} resolves, {} replies, {} forks, {} messages reported by waits",
        kill_within_us / 1000,
        sent.len(),
        resolved.len(),
        replied.len(),
        forks.len(),
        waited.len()
    );
}
