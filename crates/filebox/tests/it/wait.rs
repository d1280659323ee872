//! `wait` and `watch`: block until mail arrives, never missing what arrived between two waits.

use std::io::{BufRead, BufReader};
use std::process::{Command, Output, Stdio};

use serde_json::Value;

use crate::support::Test;

/// `wait --timeout 0` with nothing new: exits 3 (and sets the cursor on a first wait).
fn wait_for_nothing(t: &Test, agent: &str) -> Value {
    let (out, _) = t
        .as_agent(agent)
        .args(["--json", "wait", "--timeout", "0"])
        .expect_code(3);
    let result: Value = serde_json::from_str(&out).unwrap();
    result["messages"].clone()
}

/// `wait --json --timeout SECONDS` that gets mail: the messages.
fn wait_for_mail(t: &Test, agent: &str, seconds: &str) -> Value {
    let out = t
        .as_agent(agent)
        .args(["--json", "wait", "--timeout", seconds])
        .success();
    let result: Value = serde_json::from_str(&out).unwrap();
    result["messages"].clone()
}

/// Block until a `watch` says on stderr that it watches.
fn watching(watcher: &mut std::process::Child) {
    let mut stderr = BufReader::new(watcher.stderr.take().unwrap());
    let mut line = String::new();
    stderr.read_line(&mut line).unwrap();
    assert_eq!(line, "filebox: watching the inbox of b\n");
}

#[test]
fn wait_returns_what_arrived_since_the_last_wait() {
    let t = Test::new().agents(["a", "b"]);
    // The first wait starts from the inbox as it is; nothing new is a timeout (exit 3).
    assert_eq!(wait_for_nothing(&t, "b"), serde_json::json!([]));
    let id = t.send("a", "b", "DIS", "while no one waits");
    assert_eq!(wait_for_mail(&t, "b", "5")[0]["id"], id.as_str());
    assert_eq!(wait_for_nothing(&t, "b"), serde_json::json!([]));
}

#[test]
fn mail_a_wait_could_not_print_is_the_next_waits_answer() {
    let t = Test::new().agents(["a", "b"]);
    wait_for_nothing(&t, "b");
    let id = t.send("a", "b", "DIS", "printed nowhere");
    // Stdout is a pipe nobody reads any more: the wait finds the mail but cannot write it
    // (a broken pipe ends it quietly), so the cursor must not have moved past it.
    for json in [true, false] {
        let (reader, writer) = std::io::pipe().unwrap();
        drop(reader);
        let mut command = t.as_agent("b").command();
        if json {
            command.arg("--json");
        }
        let status = command
            .args(["wait", "--timeout", "5"])
            .stdout(writer)
            .status()
            .unwrap();
        assert!(status.success(), "{status:?}");
    }
    assert_eq!(wait_for_mail(&t, "b", "5")[0]["id"], id.as_str());
    assert_eq!(wait_for_nothing(&t, "b"), serde_json::json!([]));
}

#[test]
fn a_timeout_too_large_for_the_clock_is_no_timeout() {
    let t = Test::new().agents(["a", "b"]);
    wait_for_nothing(&t, "b");
    let id = t.send("a", "b", "DIS", "already here");
    assert_eq!(
        wait_for_mail(&t, "b", &u64::MAX.to_string())[0]["id"],
        id.as_str()
    );
}

#[test]
fn wait_wakes_when_another_process_delivers() {
    let t = Test::new().agents(["a", "b"]);
    wait_for_nothing(&t, "b");
    let waiter = t
        .as_agent("b")
        .args(["--json", "wait", "--timeout", "30"])
        .command()
        .spawn()
        .unwrap();
    // No need to know whether the waiter already sleeps: the cursor was set above, so a send
    // before its first look is its answer too.
    let id = t.send("a", "b", "DIS", "wake up");
    let out = waiter.wait_with_output().unwrap();
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["messages"][0]["id"], id.as_str());
}

#[test]
fn text_wait_prints_listing_lines_and_a_timeout_exits_3() {
    let t = Test::new().agents(["a", "b"]);
    let (out, err) = t
        .as_agent("b")
        .args(["wait", "--timeout", "0"])
        .expect_code(3);
    assert_eq!(out, "");
    assert_eq!(err, "filebox: no new mail within 0 s\n");
    t.send("a", "b", "ER", "first\n\nbody");
    t.send("a", "b", "DIS", "second");
    let out = t.as_agent("b").args(["wait", "--timeout", "5"]).success();
    let listing = t
        .as_agent("b")
        .args(["list", "inbox", "--oldest-first"])
        .success();
    // The same lines as `list`, one per message, in the same order (wait's: oldest first).
    assert_eq!(out, listing);
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(
        out.contains(" ER first (") && out.contains(" DIS second ("),
        "{out}"
    );
    let (out, err) = t
        .as_agent("b")
        .args(["wait", "--timeout", "1"])
        .expect_code(3);
    assert_eq!(
        (out.as_str(), err.as_str()),
        ("", "filebox: no new mail within 1 s\n")
    );
}

#[test]
fn wait_xml_prints_the_messages_whole_for_a_models_context_and_marks_them_read() {
    let t = Test::new().agents(["a", "b"]);
    wait_for_nothing(&t, "b");
    t.send("a", "b", "ER", "Ship it?\n\n<b>now</b> & \"then\"");
    let out = t
        .as_agent("b")
        .args(["wait", "--xml", "--timeout", "5"])
        .success();
    let listing = t.as_agent("b").args(["list", "inbox"]).success();
    assert_eq!(
        out,
        format!(
            "{listing}\n<teammate-message teammate_id=\"a\" summary=\"Ship it?\">\n\
             Ship it?\n\n<b>now</b> & \"then\"\n</teammate-message>\n"
        )
    );
    let unread = t.as_agent("b").args(["list", "--unread"]).success();
    assert_eq!(unread, "No messages.\n");
}

#[test]
fn watch_streams_json_lines() {
    let t = Test::new().agents(["a", "b"]);
    let mut watcher = t.as_agent("b").args(["watch"]).command().spawn().unwrap();
    watching(&mut watcher);
    let first = t.send("a", "b", "DIS", "one");
    let mut lines = BufReader::new(watcher.stdout.take().unwrap()).lines();
    let line: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(line["id"], first.as_str());
    let second = t.send("a", "b", "DIS", "two");
    let line: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(line["id"], second.as_str());
    watcher.kill().unwrap();
    watcher.wait().unwrap();
}

#[test]
fn watch_prints_only_mail_arriving_after_it_started() {
    let t = Test::new().agents(["a", "b"]);
    wait_for_nothing(&t, "b");
    let before = t.send("a", "b", "DIS", "before the watch");
    let mut watcher = t.as_agent("b").args(["watch"]).command().spawn().unwrap();
    watching(&mut watcher);
    let after = t.send("a", "b", "DIS", "after the watch");
    let mut lines = BufReader::new(watcher.stdout.take().unwrap()).lines();
    let line: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(
        line["id"],
        after.as_str(),
        "the first line is what came after"
    );
    watcher.kill().unwrap();
    watcher.wait().unwrap();
    // Both are still the next wait's news.
    let waited = wait_for_mail(&t, "b", "5");
    let ids: Vec<&str> = waited
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["id"].as_str().unwrap())
        .collect();
    assert_eq!(ids, [before.as_str(), after.as_str()]);
}

#[test]
fn watch_leaves_what_it_prints_to_the_agents_wait() {
    let t = Test::new().agents(["a", "b"]);
    wait_for_nothing(&t, "b");
    let mut watcher = t.as_agent("b").args(["watch"]).command().spawn().unwrap();
    watching(&mut watcher);
    // The cursor is set, so the wait returns the message whether it looks before or after.
    let waiter = t
        .as_agent("b")
        .args(["--json", "wait", "--timeout", "30"])
        .command()
        .spawn()
        .unwrap();
    let id = t.send("a", "b", "DIS", "for both");
    // The watch and the wait running beside it both see the message...
    let mut lines = BufReader::new(watcher.stdout.take().unwrap()).lines();
    let line: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(line["id"], id.as_str());
    let out = waiter.wait_with_output().unwrap();
    let got: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(got["messages"][0]["id"], id.as_str());
    // ...and with no wait running, what the watch printed is still the next wait's news.
    let later = t.send("a", "b", "DIS", "watched first");
    let line: Value = serde_json::from_str(&lines.next().unwrap().unwrap()).unwrap();
    assert_eq!(line["id"], later.as_str());
    assert_eq!(wait_for_mail(&t, "b", "5")[0]["id"], later.as_str());
    watcher.kill().unwrap();
    watcher.wait().unwrap();
}

/// Runs `command` under `sh`, whose `times` builtin reports the CPU time its child used; returns
/// the output and that user + system time in seconds.
fn with_child_cpu_seconds(command: &Command) -> (Output, f64) {
    let mut shell = Command::new("sh");
    shell
        .args(["-c", r#""$@"; status=$?; times >&2; exit $status"#, "sh"])
        .arg(command.get_program())
        .args(command.get_args())
        .stdin(Stdio::null())
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    if let Some(dir) = command.get_current_dir() {
        shell.current_dir(dir);
    }
    for (key, value) in command.get_envs() {
        match value {
            Some(value) => shell.env(key, value),
            None => shell.env_remove(key),
        };
    }
    let output = shell.output().unwrap();
    let stderr = String::from_utf8_lossy(&output.stderr);
    // `times` prints the shell's own times, then its children's: "1m2.5s 0m0.25s".
    let children = stderr.lines().last().unwrap();
    let seconds = children
        .split_whitespace()
        .map(|field| {
            let (minutes, seconds) = field.trim_end_matches('s').split_once('m').unwrap();
            minutes.parse::<f64>().unwrap() * 60.0 + seconds.parse::<f64>().unwrap()
        })
        .sum();
    (output, seconds)
}

#[test]
fn an_idle_wait_sleeps_instead_of_spinning() {
    let t = Test::new().agents(["a", "b"]);
    wait_for_nothing(&t, "b");
    let wait = t.as_agent("b").args(["wait", "--timeout", "3"]).command();
    let (output, cpu) = with_child_cpu_seconds(&wait);
    assert_eq!(output.status.code(), Some(3), "{output:?}");
    // Three idle seconds cost a few milliseconds when the wait sleeps; a wait woken by its
    // own look at the folder used a whole core (about 3 s).
    assert!(cpu < 0.3, "an idle 3 s wait used {cpu:.3} s of CPU");
}
