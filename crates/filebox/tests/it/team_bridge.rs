//! `filebox teams bridge`: a Claude Code team and the FileBox agent `alice` talk through it, in
//! both directions, without losing or duplicating a message when a pass is interrupted and run
//! again; on both inbox shapes: the 2.1.88/2.1.112 fixture (`Boom_UI`, whose roster and inboxes
//! are in two folders; delivered messages flagged `read`) and the current one (a session team,
//! `msg_id`s, delivered messages removed), and a session team that ends while bridged.

use std::fs;
use std::path::PathBuf;

use serde_json::Value;

use crate::support::{Test, in_session};

const TEAM: &str = "Boom_UI";

/// A fixture's Claude folder and its team.
#[derive(Clone, Copy)]
struct Shape {
    fixture: &'static str,
    team: &'static str,
    /// Whether delivered messages are removed (current) rather than flagged (older).
    prunes: bool,
}

const OLDER: Shape = Shape {
    fixture: "claude",
    team: TEAM,
    prunes: false,
};
const CURRENT: Shape = Shape {
    fixture: "claude-2.1.331",
    team: "session-1a2b3c4d",
    prunes: true,
};
const SHAPES: [Shape; 2] = [OLDER, CURRENT];

fn setup(shape: Shape) -> (Test, PathBuf) {
    let t = Test::new().agents(["alice"]);
    let dir = t.fixture(shape.fixture);
    (t, dir)
}

fn team_inbox(t: &Test, shape: Shape, member: &str) -> PathBuf {
    t.path().join(format!(
        "{}/teams/{}/inboxes/{member}.json",
        shape.fixture, shape.team
    ))
}

fn messages(t: &Test, shape: Shape, member: &str) -> Vec<Value> {
    let text = fs::read_to_string(team_inbox(t, shape, member)).unwrap();
    serde_json::from_str::<Value>(&text)
        .unwrap()
        .as_array()
        .unwrap()
        .clone()
}

fn pass(t: &Test, shape: Shape, dir: &PathBuf) -> Value {
    let out = t
        .run()
        .args([
            "--json",
            "teams",
            "bridge",
            shape.team,
            "--once",
            "--claude-dir",
        ])
        .args([dir])
        .success();
    serde_json::from_str(&out).unwrap_or(Value::Null)
}

/// One pass of a bridge given no team, run inside the fixtures' Claude Code session.
fn pass_in_session(t: &Test, dir: &PathBuf) -> Value {
    let mut command = t
        .run()
        .args(["--json", "teams", "bridge", "--once", "--claude-dir"])
        .args([dir])
        .command();
    in_session(&mut command);
    let out = command.output().unwrap();
    assert!(out.status.success(), "{out:?}");
    serde_json::from_slice(&out.stdout).unwrap()
}

/// `teams send` into `member`'s team inbox, as a teammate.
/// alice's next mail (waited for up to 120 s), then the hub stopped with SIGTERM: what `wait`
/// printed, and how the hub exited.
fn next_mail_then_stop(
    t: &Test,
    hub: &mut std::process::Child,
) -> (Value, std::process::ExitStatus) {
    let out = t
        .as_agent("alice")
        .args(["--json", "wait", "--timeout", "120"])
        .output();
    std::process::Command::new("kill")
        .args(["-TERM", &hub.id().to_string()])
        .status()
        .unwrap();
    let status = hub.wait().unwrap();
    (serde_json::from_slice(&out.stdout).unwrap(), status)
}

fn teammate_sends(t: &Test, shape: Shape, dir: &PathBuf, member: &str, from: &str, text: &str) {
    t.run()
        .args(["teams", "send", shape.team, member, text, "--from", from])
        .args(["--claude-dir"])
        .args([dir])
        .success();
}

#[test]
fn team_messages_become_filebox_mail_once_and_are_marked_read_after() {
    for shape in SHAPES {
        let (t, dir) = setup(shape);
        t.run()
            .args([
                "teams",
                "send",
                shape.team,
                "alice",
                "Please review <docs/api.md>",
                "--from",
                "researcher",
            ])
            .args([
                "--color",
                "blue",
                "--summary",
                "Review the API doc",
                "--claude-dir",
            ])
            .args([&dir])
            .success();
        let sent = fs::read_to_string(team_inbox(&t, shape, "alice")).unwrap();
        let report = pass(&t, shape, &dir);
        let team = shape.team;
        assert_eq!(
            report["members_added"],
            serde_json::json!([
                format!("team-lead@{team}"),
                format!("researcher@{team}"),
                format!("tester@{team}")
            ])
        );
        assert_eq!(report["carried"][0]["from"], format!("researcher@{team}"));
        assert_eq!(report["carried"][0]["direction"], "in");
        let id = report["carried"][0]["id"].as_str().unwrap().to_owned();
        let read = t.read_json("alice", "inbox", &id);
        assert_eq!(read["sender"], format!("researcher@{team}"));
        assert_eq!(read["title"], "Review the API doc");
        assert_eq!(read["body"], "Please review <docs/api.md>");
        assert_eq!(read["headers"]["Claude Color"], "blue");
        let delivered = |t: &Test| match shape.prunes {
            true => messages(t, shape, "alice").is_empty(),
            false => messages(t, shape, "alice")[0]["read"] == true,
        };
        assert!(
            delivered(&t),
            "{}: marked as Claude Code marks",
            shape.fixture
        );
        let config: Value =
            serde_json::from_str(&fs::read_to_string(t.config_path()).unwrap()).unwrap();
        assert!(
            config["agents"][format!("tester@{team}")]["mailbox_path"]
                .as_str()
                .unwrap()
                .ends_with(&format!("bridges/{team}/tester"))
        );

        // A pass interrupted after delivering but before marking: nothing is delivered twice.
        fs::write(team_inbox(&t, shape, "alice"), sent).unwrap();
        assert_eq!(
            pass(&t, shape, &dir),
            Value::Null,
            "an idle pass prints nothing"
        );
        assert_eq!(t.files("alice", "inbox").len(), 1);
        assert!(delivered(&t));
    }
}

#[test]
fn mail_to_member_at_team_reaches_the_team_inbox_once() {
    for shape in SHAPES {
        let (t, dir) = setup(shape);
        pass(&t, shape, &dir);
        let before = messages(&t, shape, "tester").len();
        let member = format!("tester@{}", shape.team);
        t.send("alice", &member, "ER", "# Run the suite\n\nTwice, please.");
        let report = pass(&t, shape, &dir);
        assert_eq!(report["carried"][0]["direction"], "out");
        assert_eq!(report["carried"][0]["to"], member.as_str());
        let inbox = messages(&t, shape, "tester");
        assert_eq!(inbox.len(), before + 1);
        let last = &inbox[before];
        assert_eq!(last["from"], "alice");
        assert_eq!(last["text"], "# Run the suite\n\nTwice, please.");
        assert_eq!(last["summary"], "Run the suite");
        assert_eq!(last["read"], false);
        assert_eq!(last["type"], "message");
        assert_eq!(last["msgV"], 1);
        crate::teams::assert_uuid(&last["msg_id"]);
        assert!(last["timestamp"].as_str().unwrap().ends_with(".000Z"));
        let mailbox = t.path().join(format!("bridges/{}/tester", shape.team));
        let names = |folder: &str| -> Vec<String> {
            fs::read_dir(mailbox.join(folder))
                .unwrap()
                .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
                .collect()
        };
        assert!(names("inbox").is_empty());
        let done = names("done");
        assert_eq!(done.len(), 1);

        // Interrupted after appending but before resolving: the message is back in the inbox;
        // the next pass recognizes it in the team inbox and only resolves it.
        fs::rename(
            mailbox.join("done").join(&done[0]),
            mailbox.join("inbox").join(&done[0]),
        )
        .unwrap();
        pass(&t, shape, &dir);
        assert!(names("inbox").is_empty());
        assert_eq!(
            messages(&t, shape, "tester").len(),
            before + 1,
            "not appended twice"
        );
    }
}

#[test]
fn a_reply_to_a_teammate_goes_back_to_its_team_inbox() {
    for shape in SHAPES {
        let (t, dir) = setup(shape);
        teammate_sends(&t, shape, &dir, "alice", "researcher", "Is the API frozen?");
        let report = pass(&t, shape, &dir);
        let id = report["carried"][0]["id"].as_str().unwrap().to_owned();
        t.as_agent("alice")
            .args(["reply", &id, "Yes, since Monday."])
            .success();
        let report = pass(&t, shape, &dir);
        assert_eq!(report["carried"][0]["from"], "alice");
        assert_eq!(
            report["carried"][0]["to"],
            format!("researcher@{}", shape.team)
        );
        let last = messages(&t, shape, "researcher").last().unwrap().clone();
        assert_eq!(last["text"], "Yes, since Monday.");
        assert_eq!(last["from"], "alice");
    }
}

#[test]
fn a_session_team_that_ends_refuses_mail_back_and_says_so() {
    let shape = CURRENT;
    let (t, dir) = setup(shape);
    pass(&t, shape, &dir);
    let member = format!("tester@{}", shape.team);
    let id = t.send("alice", &member, "ER", "Run the suite once more");
    let folder = dir.join(format!("teams/{}", shape.team));
    fs::remove_dir_all(&folder).unwrap();
    let report = pass(&t, shape, &dir);
    assert_eq!(report["team_ended"], true, "{report}");
    let notice = report["notices"][0].as_str().unwrap();
    assert!(
        notice.contains("team session-1a2b3c4d has ended")
            && notice.contains("its Claude Code session exited"),
        "{notice}"
    );
    assert_eq!(report["carried"][0]["direction"], "refused");
    assert_eq!(report["carried"][0]["id"], id.as_str());
    assert!(!folder.exists(), "the ended team's folder is not recreated");
    let status: Value = serde_json::from_str(
        &t.as_agent("alice")
            .args(["--json", "status", &id])
            .success(),
    )
    .unwrap();
    assert_eq!(status["status"], "failed", "{status}");
    assert_eq!(status["recipients"][0]["folder"], "cancel");
    let cancel = t
        .path()
        .join(format!("bridges/{}/tester/cancel", shape.team));
    let refused = fs::read_dir(&cancel)
        .unwrap()
        .next()
        .unwrap()
        .unwrap()
        .path();
    let text = fs::read_to_string(refused).unwrap();
    assert!(
        text.contains("not delivered: the Claude Code team session-1a2b3c4d has ended"),
        "{text}"
    );
}

#[test]
fn a_bridge_without_a_team_follows_the_session_team() {
    let shape = CURRENT;
    let (t, dir) = setup(shape);
    teammate_sends(&t, shape, &dir, "alice", "tester", "Suite is green");
    let report = pass_in_session(&t, &dir);
    assert_eq!(
        report["carried"][0]["from"], "tester@session-1a2b3c4d",
        "{report}"
    );
}

#[test]
fn the_foreground_bridge_delivers_as_messages_arrive() {
    let (t, dir) = setup(OLDER);
    // The first wait starts from the inbox as it is: take that baseline before anything moves.
    t.as_agent("alice")
        .args(["wait", "--timeout", "0"])
        .expect_code(3);
    let mut bridge = t
        .run()
        .args([
            "teams",
            "bridge",
            TEAM,
            "--interval-ms",
            "50",
            "--claude-dir",
        ])
        .args([&dir])
        .command()
        .spawn()
        .unwrap();
    t.run()
        .args([
            "teams",
            "send",
            TEAM,
            "alice",
            "Build is green",
            "--from",
            "tester",
            "--claude-dir",
        ])
        .args([&dir])
        .success();
    let out = t
        .as_agent("alice")
        .args(["--json", "wait", "--timeout", "120"])
        .output();
    bridge.kill().unwrap();
    bridge.wait().unwrap();
    let arrived: Value = serde_json::from_slice(&out.stdout).unwrap();
    assert_eq!(
        arrived["messages"][0]["sender"], "tester@Boom_UI",
        "{arrived}"
    );
    assert_eq!(arrived["messages"][0]["title"], "Build is green");
}

#[test]
fn the_hub_runs_the_bridges_its_config_names() {
    let t = Test::new().agents(["alice"]);
    let dir = t.fixture("claude");
    let t = t.config(
        "bridges",
        serde_json::json!([{ "claude_team": TEAM, "mailbox": "alice", "claude_dir": "claude" }]),
    );
    t.as_agent("alice")
        .args(["wait", "--timeout", "0"])
        .expect_code(3);
    let mut hub = t
        .run()
        .args(["serve", "--listen", "127.0.0.1:0"])
        .command()
        .spawn()
        .unwrap();
    t.run()
        .args([
            "teams",
            "send",
            TEAM,
            "alice",
            "Deployed",
            "--from",
            "team-lead",
            "--claude-dir",
        ])
        .args([&dir])
        .success();
    let (arrived, status) = next_mail_then_stop(&t, &mut hub);
    assert_eq!(
        arrived["messages"][0]["sender"], "team-lead@Boom_UI",
        "{arrived}"
    );
    assert!(
        status.success(),
        "the hub stops its bridges and exits: {status}"
    );

    let t = t.config("bridges", serde_json::json!([{ "team": TEAM }]));
    let err = t.run().args(["serve", "--listen", "127.0.0.1:0"]).failure();
    assert!(err.contains("the \"bridges\" section"), "{err}");
}

#[test]
fn the_hubs_bridge_without_a_team_follows_the_session_team_once_it_appears() {
    let shape = CURRENT;
    let (t, dir) = setup(shape);
    let t = t.config(
        "bridges",
        serde_json::json!([{ "mailbox": "alice", "claude_dir": shape.fixture }]),
    );
    // The hub starts before the session has made its team.
    let folder = dir.join(format!("teams/{}", shape.team));
    let aside = t.path().join("session-team-aside");
    fs::rename(&folder, &aside).unwrap();
    t.as_agent("alice")
        .args(["wait", "--timeout", "0"])
        .expect_code(3);
    let mut command = t.run().args(["serve", "--listen", "127.0.0.1:0"]).command();
    in_session(&mut command);
    let mut hub = command.spawn().unwrap();
    std::thread::sleep(std::time::Duration::from_millis(1500));
    fs::rename(&aside, &folder).unwrap();
    teammate_sends(&t, shape, &dir, "alice", "tester", "Session team is up");
    let (arrived, _) = next_mail_then_stop(&t, &mut hub);
    assert_eq!(
        arrived["messages"][0]["sender"], "tester@session-1a2b3c4d",
        "{arrived}"
    );
}

#[test]
fn a_bridge_without_a_team_moves_on_when_the_session_team_ends() {
    let shape = CURRENT;
    let (t, dir) = setup(shape);
    pass_in_session(&t, &dir);
    let id = t.send("alice", "tester@session-1a2b3c4d", "ER", "One more run");
    // The foreground bridge as one process over its passes: started on the session team, which
    // then ends while a `default` team exists.
    let mut command = t
        .run()
        .args([
            "--json",
            "teams",
            "bridge",
            "--interval-ms",
            "50",
            "--claude-dir",
        ])
        .args([&dir])
        .command();
    in_session(&mut command);
    command.stdout(std::process::Stdio::piped());
    command.stderr(std::process::Stdio::piped());
    let mut bridge = command.spawn().unwrap();
    let mut stderr = std::io::BufReader::new(bridge.stderr.take().unwrap());
    let mut started = String::new();
    std::io::BufRead::read_line(&mut stderr, &mut started).unwrap();
    assert!(
        started.starts_with("filebox: bridging team session-1a2b3c4d"),
        "{started}"
    );
    fs::create_dir_all(dir.join("teams/default/inboxes")).unwrap();
    // The bridge may be writing into the team as it ends (a file appears between the removal's
    // listing and its rmdir): remove again until nothing is left.
    let ended = dir.join(format!("teams/{}", shape.team));
    let mut tries = 0;
    while let Err(error) = fs::remove_dir_all(&ended) {
        tries += 1;
        assert!(
            error.kind() == std::io::ErrorKind::DirectoryNotEmpty && tries < 100,
            "{error}"
        );
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    let mut lines = std::io::BufRead::lines(std::io::BufReader::new(bridge.stdout.take().unwrap()));
    // The mail goes one way or the other, by when the bridge's first pass ran: into the team
    // before it ended ("out", to the teammate's inbox file), or refused back by the last pass
    // over the ended team. Either way exactly once.
    // The two notices come in one pass, or in two when the team's folder went between the
    // pass's look at which team Claude Code picks and its look at the team itself.
    let mut carried = Vec::new();
    let mut notices = String::new();
    while !(notices.contains("team session-1a2b3c4d has ended")
        && notices.contains("following default (was session-1a2b3c4d)"))
    {
        let Some(line) = lines.next() else {
            let mut rest = String::new();
            std::io::Read::read_to_string(&mut stderr, &mut rest).unwrap();
            panic!("the bridge stopped before it moved on ({notices}): {rest}");
        };
        let report: Value = serde_json::from_str(&line.unwrap()).unwrap();
        carried.extend(report["carried"].as_array().into_iter().flatten().cloned());
        notices.push_str(&report["notices"].to_string());
    }
    bridge.kill().unwrap();
    bridge.wait().unwrap();
    let mine: Vec<&Value> = carried.iter().filter(|c| c["id"] == id.as_str()).collect();
    assert_eq!(mine.len(), 1, "{carried:?}");
    assert!(
        mine[0]["direction"] == "refused" || mine[0]["direction"] == "out",
        "{carried:?}"
    );
}

/// One `--once` pass that is expected to report something (exit 1): its JSON report.
fn partial_pass(t: &Test, dir: &PathBuf) -> Value {
    let (out, err) = t
        .run()
        .args(["--json", "teams", "bridge", TEAM, "--once", "--claude-dir"])
        .args([dir])
        .expect_code(1);
    serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"))
}

/// Plant `plant` in place of alice's team inbox (older shape), with mail from alice waiting
/// for `tester@Boom_UI`: a pass refuses the inbox with `reason`, leaves it as it is, and
/// still carries the mail to tester.
fn a_planted_inbox_is_refused(plant: impl Fn(&std::path::Path), reason: &str) {
    let (t, dir) = setup(OLDER);
    pass(&t, OLDER, &dir);
    let inbox = team_inbox(&t, OLDER, "alice");
    plant(&inbox);
    let planted = fs::symlink_metadata(&inbox).unwrap();
    t.send("alice", "tester@Boom_UI", "ER", "Run the suite");
    let report = partial_pass(&t, &dir);
    let refused = report["refused"][0].as_str().unwrap_or_default();
    assert!(
        refused.starts_with(&format!("{}: refused: {reason}", inbox.display())),
        "{report}"
    );
    assert_eq!(report["carried"][0]["direction"], "out", "{report}");
    assert_eq!(
        messages(&t, OLDER, "tester").last().unwrap()["text"],
        "Run the suite"
    );
    let now = fs::symlink_metadata(&inbox).unwrap();
    assert_eq!(
        (now.file_type(), now.len()),
        (planted.file_type(), planted.len()),
        "left as it is"
    );
}

#[test]
fn a_fifo_in_place_of_a_team_inbox_is_refused_without_waiting_and_the_rest_bridged() {
    a_planted_inbox_is_refused(
        |path| {
            let made = std::process::Command::new("mkfifo")
                .arg(path)
                .status()
                .unwrap();
            assert!(made.success());
        },
        "it is a FIFO, not a regular file",
    );
}

#[test]
fn a_team_inbox_linked_to_dev_zero_is_refused_and_the_rest_bridged() {
    a_planted_inbox_is_refused(
        |path| std::os::unix::fs::symlink("/dev/zero", path).unwrap(),
        "it is a symbolic link",
    );
}

#[test]
fn a_team_inbox_linked_to_a_file_outside_the_team_is_refused_and_the_rest_bridged() {
    let outside = tempfile::tempdir().unwrap();
    let secret = outside.path().join("elsewhere.json");
    fs::write(
        &secret,
        r#"[{"from":"mallory","text":"not from this team","timestamp":"2026-04-01T10:30:00.000Z","read":false}]"#,
    )
    .unwrap();
    a_planted_inbox_is_refused(
        |path| std::os::unix::fs::symlink(&secret, path).unwrap(),
        "it is a symbolic link",
    );
}

#[test]
fn an_oversized_team_inbox_is_refused_unread_and_the_rest_bridged() {
    let size = filebox_bridge::team_inbox::MAX_TEAM_FILE_BYTES + 1;
    a_planted_inbox_is_refused(
        |path| {
            // Sparse: no disk is used, but a reader that reads it whole holds all of it.
            fs::File::create(path).unwrap().set_len(size).unwrap();
        },
        &format!("it holds {size} bytes"),
    );
}

/// Every file under `folder`, by name, with its bytes.
fn tree(folder: &std::path::Path) -> Vec<(String, Vec<u8>)> {
    let mut files: Vec<(String, Vec<u8>)> = fs::read_dir(folder)
        .unwrap()
        .map(|e| {
            let e = e.unwrap();
            (
                e.file_name().to_string_lossy().into_owned(),
                fs::read(e.path()).unwrap_or_default(),
            )
        })
        .collect();
    files.sort();
    files
}

#[test]
fn a_linked_inboxes_folder_is_refused_and_nothing_is_read_or_written_through_it() {
    let (t, dir) = setup(OLDER);
    pass(&t, OLDER, &dir);
    // The team's inboxes folder moved out of the team and linked back, with a message from
    // someone who is not in the team waiting in alice's inbox there.
    let inboxes = dir.join(format!("teams/{TEAM}/inboxes"));
    let outside = tempfile::tempdir().unwrap();
    let elsewhere = outside.path().join("inboxes");
    fs::rename(&inboxes, &elsewhere).unwrap();
    fs::write(
        elsewhere.join("alice.json"),
        r#"[{"from":"mallory","text":"not from this team","timestamp":"2026-04-01T10:30:00.000Z","read":false}]"#,
    )
    .unwrap();
    fs::remove_file(elsewhere.join("tester.json")).unwrap();
    std::os::unix::fs::symlink(&elsewhere, &inboxes).unwrap();
    let before = tree(&elsewhere);
    let id = t.send("alice", "tester@Boom_UI", "ER", "Run the suite");

    let report = partial_pass(&t, &dir);
    let refused = report["refused"].as_array().unwrap();
    let linked = format!("{}: refused: it is a symbolic link", inboxes.display());
    assert_eq!(refused.len(), 2, "alice's inbox and tester's: {report}");
    assert!(
        refused
            .iter()
            .all(|r| r.as_str().unwrap().starts_with(&linked)),
        "{report}"
    );
    assert_eq!(report["carried"], serde_json::json!([]), "{report}");
    assert!(
        t.files("alice", "inbox").is_empty(),
        "mallory's message not taken"
    );
    assert_eq!(tree(&elsewhere), before, "nothing written through the link");
    let status: Value = serde_json::from_str(
        &t.as_agent("alice")
            .args(["--json", "status", &id])
            .success(),
    )
    .unwrap();
    assert_eq!(
        status["recipients"][0]["folder"], "inbox",
        "the mail waits in tester's FileBox inbox: {status}"
    );
}

#[test]
fn the_hub_reports_a_refused_team_inbox_in_its_health_and_bridges_the_other_team() {
    let t = Test::new().agents(["alice"]);
    let older = t.fixture(OLDER.fixture);
    let current = t.fixture(CURRENT.fixture);
    let t = t.config(
        "bridges",
        serde_json::json!([
            { "claude_team": OLDER.team, "mailbox": "alice", "claude_dir": OLDER.fixture },
            { "claude_team": CURRENT.team, "mailbox": "alice", "claude_dir": CURRENT.fixture },
        ]),
    );
    let fifo = team_inbox(&t, OLDER, "alice");
    let made = std::process::Command::new("mkfifo")
        .arg(&fifo)
        .status()
        .unwrap();
    assert!(made.success());
    t.as_agent("alice")
        .args(["wait", "--timeout", "0"])
        .expect_code(3);
    let hub =
        crate::serve::Served::start(t.run().args(["serve", "--listen", "127.0.0.1:0"]).command());
    let health = || hub.get("/healthz").expect("the hub answers");
    // Only for a failing test: how long the hub may take to see it.
    let until = |what: &str, wanted: &dyn Fn(&(u16, String)) -> bool| {
        let start = std::time::Instant::now();
        loop {
            let now = health();
            if wanted(&now) {
                return now;
            }
            assert!(
                start.elapsed() < std::time::Duration::from_secs(120),
                "gave up waiting for {what}: /healthz says {now:?}"
            );
            std::thread::sleep(std::time::Duration::from_millis(100));
        }
    };
    let (status, body) = until("the refusal in /healthz", &|(status, _)| *status == 503);
    assert_eq!(status, 503);
    assert!(
        body.contains(&format!(
            "bridge Boom_UI ↔ alice runs, but: {}: refused: it is a FIFO",
            fifo.display()
        )),
        "{body}"
    );
    // The other team goes on.
    teammate_sends(&t, CURRENT, &current, "alice", "tester", "Still bridged");
    let out = t
        .as_agent("alice")
        .args(["--json", "wait", "--timeout", "120"])
        .success();
    let arrived: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        arrived["messages"][0]["sender"], "tester@session-1a2b3c4d",
        "{arrived}"
    );
    // Once the inbox is a file again, the hub is well again and that team is bridged.
    fs::remove_file(&fifo).unwrap();
    teammate_sends(&t, OLDER, &older, "alice", "researcher", "Back again");
    until("/healthz to be 200 again", &|(status, _)| *status == 200);
    let out = t
        .as_agent("alice")
        .args(["--json", "wait", "--timeout", "120"])
        .success();
    let arrived: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        arrived["messages"][0]["sender"], "researcher@Boom_UI",
        "{arrived}"
    );
    let (status, stderr) = hub.terminate();
    assert!(status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("refused: it is a FIFO").count(),
        1,
        "logged once, not every pass: {stderr}"
    );
    assert!(
        stderr.contains("no team file is refused any more"),
        "{stderr}"
    );
}

/// One `--once` pass of the bridge of `team` (in `claude/` beside the config), which refuses
/// the team because it is named like a federated hub: its report.
fn refused_team_pass(t: &Test, team: &str) -> Value {
    let (out, err) = t
        .run()
        .args(["--json", "teams", "bridge", team, "--once", "--claude-dir"])
        .args([t.path().join("claude")])
        .expect_code(1);
    let report: Value = serde_json::from_str(&out).unwrap_or_else(|e| panic!("{e}: {out}\n{err}"));
    let refused = report["refused"][0].as_str().unwrap_or_default();
    assert!(
        refused.starts_with(&format!("team {team} is not bridged: ")),
        "{report}"
    );
    assert_eq!(report["refused"].as_array().unwrap().len(), 1, "{report}");
    assert_eq!(
        report.get("carried"),
        Some(&serde_json::json!([])),
        "{report}"
    );
    assert_eq!(report["members_added"], serde_json::json!([]), "{report}");
    report
}

#[test]
fn mail_for_an_agent_on_another_hub_goes_by_federation_not_to_a_team_named_like_that_hub() {
    for team in ["ci-1", "session-0c1c1c1c"] {
        let t = Test::new().agents(["alice"]);
        let member = format!("bob@{team}");
        let t = t.config(
            "agents",
            serde_json::json!({
                "alice": { "mailbox_path": "mailboxes/alice" },
                member.clone(): { "hub": team },
            }),
        );
        let inboxes = t.path().join(format!("claude/teams/{team}/inboxes"));
        fs::create_dir_all(&inboxes).unwrap();
        fs::write(inboxes.join("bob.json"), "[]").unwrap();
        let id = t.send("alice", &member, "ER", "For the real bob");
        // A team named like the hub, with a member named like the agent: refused, running...
        refused_team_pass(&t, team);
        assert_eq!(fs::read_to_string(inboxes.join("bob.json")).unwrap(), "[]");
        // ... and, for a session team, ended: the mail is not refused back either.
        if team.starts_with("session-") {
            fs::remove_dir_all(t.path().join(format!("claude/teams/{team}"))).unwrap();
            refused_team_pass(&t, team);
        }
        let spool = t.path().join(format!("remote/{member}/inbox"));
        assert_eq!(fs::read_dir(&spool).unwrap().count(), 1, "still queued");
        let status: Value = serde_json::from_str(
            &t.as_agent("alice")
                .args(["--json", "status", &id])
                .success(),
        )
        .unwrap();
        assert_eq!(status["recipients"][0]["status"], "pending", "{status}");
    }
}

#[test]
fn a_team_named_like_a_federated_hub_is_not_bridged_so_its_members_never_pass_for_that_hub_s_agents()
 {
    // A hub an agent lives on, and this machine's own hub name.
    let cases = [
        (
            "ci-1",
            serde_json::json!({ "bob@ci-1": { "hub": "ci-1" } }),
            None,
        ),
        (
            "laptop",
            serde_json::json!({}),
            Some(serde_json::json!({ "nats": "nats://127.0.0.1:4222", "hub": "laptop" })),
        ),
    ];
    for (team, agents, federation) in cases {
        let t = Test::new().agents(["alice"]);
        let mut all = serde_json::json!({ "alice": { "mailbox_path": "mailboxes/alice" } });
        all.as_object_mut()
            .unwrap()
            .extend(agents.as_object().unwrap().clone());
        let mut t = t.config("agents", all);
        if let Some(federation) = federation {
            t = t.config("federation", federation);
        }
        // bob of the local Claude Code team writes to alice's team inbox.
        let inboxes = t.path().join(format!("claude/teams/{team}/inboxes"));
        fs::create_dir_all(&inboxes).unwrap();
        let entry = r#"[{"from":"bob","text":"Approve the release","timestamp":"2026-04-01T10:30:00.000Z","read":false}]"#;
        fs::write(inboxes.join("alice.json"), entry).unwrap();

        refused_team_pass(&t, team);
        assert!(
            t.files("alice", "inbox").is_empty(),
            "{team}: never delivered as bob@{team}"
        );
        assert_eq!(
            fs::read_to_string(inboxes.join("alice.json")).unwrap(),
            entry,
            "{team}: left unread in the team inbox"
        );
        let config: Value =
            serde_json::from_str(&fs::read_to_string(t.config_path()).unwrap()).unwrap();
        assert!(
            config["agents"]
                .get(format!("bob@{team}"))
                .is_none_or(|bob| bob["hub"] == team),
            "{team}: no local bob@{team} added: {config}"
        );
    }
}

#[test]
fn the_hub_reports_a_team_named_like_a_federated_hub_in_its_health_and_log() {
    let t = Test::new().agents(["alice"]);
    let t = t.config(
        "agents",
        serde_json::json!({
            "alice": { "mailbox_path": "mailboxes/alice" },
            "bob@ci-1": { "hub": "ci-1" },
        }),
    );
    let t = t.config(
        "bridges",
        serde_json::json!([{ "claude_team": "ci-1", "mailbox": "alice", "claude_dir": "claude" }]),
    );
    let inboxes = t.path().join("claude/teams/ci-1/inboxes");
    fs::create_dir_all(&inboxes).unwrap();
    fs::write(inboxes.join("alice.json"), "[]").unwrap();
    let hub =
        crate::serve::Served::start(t.run().args(["serve", "--listen", "127.0.0.1:0"]).command());
    // Only for a failing test: how long the hub may take to see it.
    let start = std::time::Instant::now();
    let (status, body) = loop {
        let now = hub.get("/healthz").expect("the hub answers");
        if now.0 == 503 {
            break now;
        }
        assert!(
            start.elapsed() < std::time::Duration::from_secs(120),
            "gave up waiting for the refusal in /healthz: {now:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(100));
    };
    assert_eq!(status, 503);
    assert!(
        body.contains(
            "bridge ci-1 ↔ alice runs, but: team ci-1 is not bridged: ci-1 is a federated hub"
        ),
        "{body}"
    );
    let (status, stderr) = hub.terminate();
    assert!(status.success(), "{stderr}");
    assert_eq!(
        stderr.matches("team ci-1 is not bridged").count(),
        1,
        "logged once, not every pass: {stderr}"
    );
}

#[test]
fn a_teammates_huge_summary_is_cut_and_the_message_stays_readable() {
    let (t, dir) = setup(OLDER);
    let summary = "s".repeat(1_100_000);
    let entry = serde_json::json!([{
        "from": "researcher",
        "text": "The body is kept whole.",
        "timestamp": "2026-04-01T10:30:00.000Z",
        "read": false,
        "summary": summary,
        "color": "c".repeat(1_100_000),
    }]);
    fs::write(team_inbox(&t, OLDER, "alice"), entry.to_string()).unwrap();
    let report = pass(&t, OLDER, &dir);
    let id = report["carried"][0]["id"].as_str().unwrap().to_owned();
    let listed: Value = serde_json::from_str(
        &t.as_agent("alice")
            .args(["--json", "list", "inbox"])
            .success(),
    )
    .unwrap();
    assert_eq!(listed["messages"][0]["id"], id.as_str(), "{listed}");
    let read = t.read_json("alice", "inbox", &id);
    assert_eq!(read["title"], format!("{}…", &summary[..200]));
    assert_eq!(
        read["headers"]["Claude Color"],
        format!("{}…", "c".repeat(200))
    );
    assert_eq!(read["body"], "The body is kept whole.");
    assert_eq!(messages(&t, OLDER, "alice")[0]["read"], true);
}
