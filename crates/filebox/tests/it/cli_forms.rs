//! Command forms beside the verbs' own: `filebox email ...`, `filebox mcp --help`, adding a
//! person's mailbox, and what a person or a timed-out question is told on the command line.

use serde_json::Value;

use crate::support::Test;

/// The Message ID a command printed alone on its line.
fn id_of(out: &str) -> String {
    let id = out.trim().to_owned();
    assert_eq!(id.len(), 36, "not a Message ID: {out:?}");
    id
}

#[test]
fn email_send_is_a_send_with_subject_and_body() {
    let t = Test::new().agents(["qa", "dev", "ops"]);
    let out = t
        .as_agent("qa")
        .args([
            "email",
            "send",
            "--to",
            "dev",
            "--subject",
            "Export",
            "--body",
        ])
        .args(["Please add CSV export", "--cc", "ops", "--type", "ER"])
        .args(["--priority", "urgent"])
        .success();
    let id = id_of(&out);
    let read = t.read_json("dev", "inbox", &id);
    assert_eq!(read["title"], "Export", "{read}");
    assert_eq!(read["type"], "ER", "{read}");
    assert_eq!(read["headers"]["Priority"], "urgent", "{read}");
    assert!(
        read["markdown"]
            .as_str()
            .unwrap()
            .contains("Please add CSV export")
    );
    assert_eq!(t.files("ops", "inbox").len(), 1, "the copy reaches --cc");

    // The type defaults to DIS; the body can come from standard input.
    let out = t
        .as_agent("qa")
        .args([
            "email",
            "send",
            "--to",
            "dev",
            "--subject",
            "Note",
            "--body",
            "-",
        ])
        .stdin("from stdin")
        .success();
    let read = t.read_json("dev", "inbox", &id_of(&out));
    assert_eq!(read["type"], "DIS", "{read}");
}

#[test]
fn email_inbox_lists_the_named_agents_inbox() {
    let t = Test::new().agents(["qa", "dev"]);
    t.send("qa", "dev", "ER", "First request");
    t.send("qa", "dev", "BR", "A bug");
    // The current agent is qa: `email inbox dev` lists dev's inbox, not qa's.
    let out = t.run().args(["email", "inbox", "dev"]).success();
    assert_eq!(out.lines().count(), 2, "{out}");
    assert!(
        out.contains("ER First request") && out.contains("BR A bug"),
        "{out}"
    );
    let mine = t.run().args(["email", "inbox"]).success();
    assert!(!mine.contains("First request"), "{mine}");
    let unknown = t.run().args(["email", "inbox", "ghost"]).failure();
    assert!(unknown.contains("ghost"), "{unknown}");
}

#[test]
fn email_reply_answers_like_reply() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "Please add export");
    let out = t
        .as_agent("dev")
        .args(["email", "reply", &id, "--body", "Done in 1.2"])
        .success();
    assert_eq!(out.trim(), format!("{id} -> qa"));
    let read = t.read_json("qa", "inbox", &id);
    assert!(
        read["markdown"].as_str().unwrap().contains("Done in 1.2"),
        "{read}"
    );
}

#[test]
fn email_threads_lists_an_agents_threads() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "Thread starter");
    let out = t
        .run()
        .args(["--json", "email", "threads", "dev"])
        .success();
    let listed: Value = serde_json::from_str(&out).unwrap();
    let threads = listed["threads"].as_array().expect("threads");
    assert_eq!(threads.len(), 1, "{listed}");
    assert_eq!(threads[0]["thread"], Value::from(id.clone()), "{listed}");
    let text = t.as_agent("dev").args(["email", "threads"]).success();
    assert!(text.contains("Thread starter"), "{text}");
}

#[test]
fn email_fork_forks_with_or_without_context() {
    let t = Test::new().agents(["qa", "dev"]);
    let root = t.send("qa", "dev", "ER", "Build the importer");
    t.as_agent("dev")
        .args(["reply", &root, "Started on CSV"])
        .success();
    let out = t
        .as_agent("qa")
        .args(["--json", "email", "fork", "--from", &root, "--reason"])
        .args(["direction-change", "--context", "Use JSON instead"])
        .success();
    let forked: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(forked["reason"], "direction-change", "{forked}");
    assert_eq!(forked["forked_from"], Value::from(root.clone()), "{forked}");
    let read = t.read_json("dev", "inbox", forked["id"].as_str().unwrap());
    assert!(
        read["markdown"]
            .as_str()
            .unwrap()
            .contains("Use JSON instead")
    );

    let out = t
        .as_agent("qa")
        .args(["--json", "email", "fork", "--from", &root, "--reason"])
        .args(["context-compression"])
        .success();
    let forked: Value = serde_json::from_str(&out).unwrap();
    let read = t.read_json("dev", "inbox", forked["id"].as_str().unwrap());
    let markdown = read["markdown"].as_str().unwrap();
    assert!(
        markdown.contains(&format!("Forked from {root}")),
        "{markdown}"
    );
}

#[test]
fn mcp_help_and_version_answer_without_serving() {
    let t = Test::new().agents(["qa"]);
    let help = t.run().args(["mcp", "--help"]).success();
    assert!(help.contains("Usage: filebox mcp"), "{help}");
    assert!(help.contains("--listen"), "{help}");
    assert!(help.contains("--allow-host"), "{help}");
    // Stdin is empty: a server would have read EOF and said nothing on stdout.
    let version = t.run().args(["mcp", "--version"]).success();
    assert!(version.contains(env!("CARGO_PKG_VERSION")), "{version}");
}

#[test]
fn agents_add_kind_human_makes_a_person_to_ask() {
    let t = Test::new().agents(["bot"]);
    // No person yet: asking fails and says so.
    t.as_agent("bot")
        .args(["ask", "Which port?", "--timeout", "0"])
        .failure();
    let out = t
        .run()
        .args(["agents", "add", "me", "--kind", "human"])
        .success();
    assert!(out.starts_with("added human me with mailbox "), "{out}");
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(t.config_path()).unwrap()).unwrap();
    assert_eq!(config["agents"]["me"]["kind"], "human", "{config}");
    assert!(t.mailbox("me").join("inbox").is_dir());

    // Now the question reaches the person, and a timeout names the commands to run.
    let (out, _) = t
        .as_agent("bot")
        .args(["ask", "Which port?", "--timeout", "1"])
        .expect_code(0);
    assert_eq!(t.files("me", "inbox").len(), 1);
    assert!(out.contains("`filebox answer "), "{out}");
    assert!(out.contains("`filebox wait`"), "{out}");
    assert!(!out.contains("get_answer"), "{out}");
}

#[test]
fn init_human_creates_a_persons_mailbox_beside_the_agent() {
    let t = Test::new();
    let out = t
        .run()
        .args(["--agent", "bot", "init", "--human", "me"])
        .success();
    assert!(out.contains("agent bot has its mailbox"), "{out}");
    assert!(out.contains("human me has its mailbox"), "{out}");
    let config: Value =
        serde_json::from_str(&std::fs::read_to_string(t.config_path()).unwrap()).unwrap();
    assert_eq!(config["current_agent_id"], "bot", "{config}");
    assert_eq!(config["agents"]["me"]["kind"], "human", "{config}");
    assert!(config["agents"]["bot"].get("kind").is_none(), "{config}");
    assert!(t.mailbox("me").join("inbox").is_dir() && t.mailbox("bot").join("inbox").is_dir());
}

#[test]
fn a_person_sends_as_human_and_the_answer_is_marked_done() {
    let t = Test::new().agents(["dev"]);
    t.run()
        .args(["agents", "add", "me", "--kind", "human"])
        .success();
    let id = t.send("me", "dev", "ER", "Please add export");
    let read = t.read_json("dev", "inbox", &id);
    assert_eq!(read["headers"]["Source Type"], "human", "{read}");
    // An agent's message keeps no source type (agent).
    let plain = t.send("dev", "me", "SU", "Status");
    assert!(t.read_json("me", "inbox", &plain)["headers"]["Source Type"].is_null());

    t.as_agent("dev").args(["reply", &id, "Done"]).success();
    assert!(t.files("me", "inbox").iter().all(|f| !f.contains(&id[..8])));
    assert_eq!(
        t.files("me", "done")
            .iter()
            .filter(|f| f.contains(&id[..8]))
            .count(),
        1,
        "the answer to a person's request lands in done/"
    );
    // Asked for explicitly, the source type wins over the kind.
    let out = t
        .as_agent("me")
        .args([
            "send",
            "dev",
            "DIS",
            "as an agent",
            "--source-type",
            "agent",
        ])
        .success();
    assert_eq!(
        t.read_json("dev", "inbox", out.trim())["headers"]["Source Type"],
        "agent"
    );
}

#[test]
fn a_json_error_advises_in_commands() {
    let t = Test::new().agents(["qa", "dev"]);
    let err = t
        .as_agent("qa")
        .args(["--json", "send", "ghost", "ER", "hello"])
        .failure();
    let error: Value = serde_json::from_str(err.trim()).unwrap();
    assert_eq!(error["error"]["kind"], "unknown_agent", "{error}");
    assert_eq!(
        error["error"]["advice"], "Run `filebox agents` to see the agents you can write to.",
        "{error}"
    );
}
