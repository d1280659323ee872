//! Writers killed with SIGKILL at random instants, many times over: every visible file is
//! whole and parses, nothing acknowledged is lost, no message is in two places, and the next
//! command cleans up what the dead left in `tmp/`.

use std::collections::BTreeMap;
use std::process::Child;
use std::time::{Duration, Instant};

use crate::support::{FOLDERS, Test};

const ROUNDS: usize = 30;

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

/// What a spawned writer was asked to do.
enum Job {
    Send,
    Resolve(String),
    Reply(String),
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
    let mut rng = Rng(seed);
    let context = format!("FILEBOX_CRASH_SEED={seed}");

    let t = Test::new().agents(["qa", "dev"]);
    let mut sent = Vec::new(); // acknowledged sends
    let mut resolved = Vec::new(); // acknowledged resolves
    let mut replied = Vec::new(); // acknowledged replies
    let mut killed = 0;

    for round in 0..ROUNDS {
        // Messages for dev to handle this round, sent without interference.
        let targets: Vec<String> = (0..3)
            .map(|n| t.send("qa", "dev", "ER", &format!("round {round} target {n}")))
            .collect();
        let mut jobs = Vec::new();
        for n in 0..4 {
            // Some bodies are large, so that a kill often lands mid-write.
            let size = if rng.below(2) == 0 { 64 } else { 256 * 1024 };
            let body = format!("round {round} send {n}\n{}", "x".repeat(size));
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

        // Kill each after its own random 0-20 ms.
        let start = Instant::now();
        let mut deadlines: Vec<(Duration, usize)> = (0..jobs.len())
            .map(|i| (Duration::from_micros(rng.below(20_000)), i))
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
                None => killed += 1,
                Some(0) => match job {
                    Job::Send => sent.push(stdout),
                    Job::Resolve(id) => resolved.push(id),
                    Job::Reply(id) => replied.push(id),
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
    assert!(killed > 0, "{context}: no writer was ever killed");

    // Every visible file is whole and parses; no id is in two folders of one mailbox, nor in
    // two mailboxes (outboxes are records and excluded).
    let mut places: BTreeMap<String, Vec<String>> = BTreeMap::new();
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
    eprintln!(
        "crash test: {context}, {killed} writers killed, acknowledged: {} sends, {} resolves, {} replies",
        sent.len(),
        resolved.len(),
        replied.len()
    );
}
