//! What a new user trips over (issue 7): each test is one thing that went wrong when the
//! README and `--help` were taken literally.

use std::fs;

use serde_json::Value;

use crate::support::Test;

#[test]
fn read_without_a_folder_looks_in_every_folder_inbox_first() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "Batch import");
    let short = &id[..8];
    let text = t.as_agent("dev").args(["read", short]).success();
    assert!(text.starts_with("# ER: Batch import"), "{text}");
    t.as_agent("dev")
        .args(["resolved", short, "Shipped"])
        .success();
    let json: Value =
        serde_json::from_str(&t.as_agent("dev").args(["--json", "read", short]).success()).unwrap();
    assert_eq!(json["folder"], "done");
    // The folder still narrows the search, and a folder alone is a usage error.
    t.as_agent("dev").args(["read", "inbox", short]).failure();
    t.as_agent("dev").args(["read", "done", short]).success();
    let err = t.as_agent("dev").args(["read", "inbox"]).usage_error();
    assert!(err.contains("give the message"), "{err}");
}

#[test]
fn list_thread_takes_a_short_id_and_names_a_thread_that_does_not_exist() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "One thread");
    t.send("qa", "dev", "ER", "Another thread");
    let listed = t
        .as_agent("dev")
        .args(["list", "inbox", "--thread", &id[..8]])
        .success();
    assert_eq!(listed.lines().count(), 1, "{listed}");
    assert!(listed.contains("One thread"), "{listed}");
    let err = t
        .as_agent("dev")
        .args(["list", "inbox", "--thread", "deadbeef"])
        .failure();
    assert!(
        err.contains("no message of your mailbox belongs to it"),
        "{err}"
    );
    // A thread that exists but has nothing in this folder is an empty listing, not an error.
    let none = t
        .as_agent("dev")
        .args(["list", "done", "--thread", &id[..8]])
        .success();
    assert_eq!(none.trim(), "No messages.");
}

#[test]
fn an_empty_body_is_refused_and_nothing_is_written() {
    let t = Test::new().agents(["qa", "dev"]);
    for empty in ["", "  \n\t"] {
        let err = t
            .as_agent("qa")
            .args(["send", "dev", "ER", empty])
            .failure();
        assert!(err.contains("it is empty"), "{err}");
    }
    assert!(t.files("dev", "inbox").is_empty());
    assert!(t.files("qa", "outbox").is_empty());
}

#[test]
fn sending_to_myself_is_delivered_with_a_note() {
    let t = Test::new().agents(["qa", "dev"]);
    // Delivered: success, the note on stderr.
    let (out, err) = t
        .as_agent("qa")
        .args(["send", "qa", "ER", "a note to self"])
        .expect_code(0);
    assert!(err.contains("qa is you"), "{err}");
    assert_eq!(t.files("qa", "inbox").len(), 1, "{out}");
    let (_, err) = t
        .as_agent("qa")
        .args(["send", "dev", "ER", "to someone else"])
        .expect_code(0);
    assert!(err.is_empty(), "{err}");
}

#[test]
fn a_normalised_type_is_noted() {
    let t = Test::new().agents(["qa", "dev"]);
    let (_, err) = t
        .as_agent("qa")
        .args(["send", "dev", "Feature", "a custom type"])
        .expect_code(0);
    assert!(
        err.contains(r#"the type "Feature" is written as FEATURE"#),
        "{err}"
    );
    let (_, err) = t
        .as_agent("qa")
        .args(["send", "dev", "ER", "a known type"])
        .expect_code(0);
    assert!(err.is_empty(), "{err}");
}

/// The one line of JSON a failing `--json` command writes on stderr.
fn json_error(stderr: &str) -> Value {
    let error: Value = serde_json::from_str(stderr.trim()).expect("stderr is one JSON value");
    assert!(error["error"]["message"].is_string(), "{error}");
    error
}

#[test]
fn with_json_errors_are_json_on_stderr() {
    let t = Test::new().agents(["qa", "dev"]);
    let err = t
        .as_agent("qa")
        .args(["--json", "read", "inbox", "deadbeef"])
        .failure();
    assert_eq!(json_error(&err)["error"]["kind"], "not_found");
    let err = t
        .as_agent("qa")
        .args(["list", "trash", "--json"])
        .usage_error();
    assert_eq!(json_error(&err)["error"]["kind"], "usage");
    // Without --json, errors stay text.
    let err = t
        .as_agent("qa")
        .args(["read", "inbox", "deadbeef"])
        .failure();
    assert!(err.starts_with("filebox: error: "), "{err}");
}

#[test]
fn help_says_what_each_option_means_for_its_command() {
    let t = Test::new();
    let mcp = t.run().args(["mcp", "--help"]).success();
    assert!(!mcp.contains("--json"), "{mcp}");
    let init = t.run().args(["init", "--help"]).success();
    assert!(init.contains("the agent to create"), "{init}");
    let send = t.run().args(["send", "--help"]).success();
    assert!(send.contains("[alias: --reply-to]"), "{send}");
    assert!(send.contains("that is --reply_to"), "{send}");
    // No help cites a document the user of the repository does not have.
    let top = t.run().args(["--help"]).success();
    let commands: Vec<&str> = top
        .lines()
        .skip_while(|l| !l.starts_with("Commands:"))
        .skip(1)
        .take_while(|l| !l.is_empty())
        .filter(|l| l.starts_with("  ") && !l.starts_with("   "))
        .filter_map(|l| l.split_whitespace().next())
        .filter(|command| *command != "help")
        .collect();
    assert!(commands.len() > 20, "{top}");
    for command in commands {
        let help = t.run().args([command, "--help"]).success();
        let lower = help.to_lowercase();
        assert!(
            !lower.contains("seed 0") && !lower.contains('§'),
            "{command}: {help}"
        );
    }
}

#[test]
fn reply_prints_the_id_and_who_got_it() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "Batch import");
    let out = t
        .as_agent("dev")
        .args(["reply", &id[..8], "Which columns?"])
        .success();
    assert_eq!(out.trim(), format!("{id} -> qa"));
}

#[test]
fn agents_is_an_aligned_table_with_normalised_paths_and_no_lock_file_stays() {
    let t = Test::new().agents(["qa"]);
    let elsewhere = t.path().join("work/../other/./mailbox");
    t.run()
        .args(["agents", "add", "a-long-name", "--mailbox"])
        .args([&elsewhere])
        .success();
    let table = t.run().args(["agents"]).success();
    let lines: Vec<&str> = table.lines().collect();
    assert!(lines[0].starts_with("AGENT "), "{table}");
    let column = lines[0].find("MAILBOX").unwrap();
    for line in &lines[1..] {
        assert_eq!(line.chars().nth(column - 1), Some(' '), "{table}");
        assert_eq!(line.chars().nth(column - 2), Some(' '), "{table}");
    }
    let normal = t.path().join("other/mailbox");
    assert!(
        table.contains(&format!("  {}", normal.display())),
        "{table}"
    );
    assert!(table.contains("qa (you)"), "{table}");
    let leftovers: Vec<_> = std::fs::read_dir(t.path())
        .unwrap()
        .map(|e| e.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.contains("lock"))
        .collect();
    assert!(leftovers.is_empty(), "{leftovers:?}");
}

#[test]
fn relative_mailbox_paths_of_a_project_config_resolve_against_the_project_folder() {
    let t = Test::new();
    let project = t.path().join("project");
    std::fs::create_dir_all(project.join(".filebox")).unwrap();
    let config = project.join(".filebox/config.json");
    std::fs::write(
        &config,
        r#"{"current_agent_id": "qa", "agents": {"qa": {"mailbox_path": "docs/mailbox"}}}"#,
    )
    .unwrap();
    let listed: Value = serde_json::from_str(
        &t.run()
            .args(["--json", "--config"])
            .args([&config])
            .args(["agents"])
            .success(),
    )
    .unwrap();
    let expected = project.join("docs/mailbox");
    assert_eq!(
        listed["agents"][0]["mailbox_path"],
        expected.display().to_string()
    );
    t.run()
        .args(["--config"])
        .args([&config])
        .args(["send", "qa", "ER", "hello"])
        .expect_code(0);
    assert!(expected.join("inbox").is_dir());
    assert!(!project.join(".filebox/docs").exists());
}

#[test]
fn quickstart_ends_with_a_command_that_runs_as_printed() {
    let t = Test::new();
    let out = t
        .run()
        .args(["quickstart", "--dir"])
        .args([t.path().join("demo")])
        .success();
    let hint = out.lines().last().unwrap();
    let program = env!("CARGO_BIN_EXE_filebox");
    assert!(
        hint.contains(&format!("try: {program} --config ")),
        "{hint}"
    );
}

#[test]
fn messages_sent_within_one_second_list_in_the_order_they_were_sent() {
    let t = Test::new().agents(["qa", "dev"]);
    let titles = [
        "Request 1",
        "Request 2",
        "Request 10",
        "Request 11",
        "Request 3",
    ];
    for title in titles {
        t.send("qa", "dev", "ER", title);
    }
    // Give every file the same second in its name, as sends within one second get: only the
    // order they were written can tell them apart (the names' slugs sort 1, 10, 11, 2, 3).
    let inbox = t.folder("dev", "inbox");
    for name in t.files("dev", "inbox") {
        let same_second = format!("20250627T153000{}", &name[15..]);
        std::fs::rename(inbox.join(&name), inbox.join(same_second)).unwrap();
    }
    let listed = t
        .as_agent("dev")
        .args(["list", "inbox", "--oldest-first"])
        .success();
    let listed: Vec<&str> = listed
        .lines()
        .map(|line| {
            line.split(" ER ")
                .nth(1)
                .unwrap()
                .split(" (")
                .next()
                .unwrap()
        })
        .collect();
    assert_eq!(listed, titles);
}

#[test]
fn status_words_say_what_happened_and_threads_count_what_thread_draws() {
    let t = Test::new().agents(["qa", "dev", "ops"]);
    let id = t.send("qa", "dev,ops", "BR", "Login broken");
    let short = &id[..8];
    t.as_agent("dev")
        .args(["reply", short, "Fixed in 1.3"])
        .success();
    t.as_agent("qa")
        .args(["resolved", short, "Verified"])
        .success();
    let rejected = t.send("qa", "dev", "ER", "Rewrite everything");
    t.as_agent("dev")
        .args(["reject", &rejected[..8], "Out of scope"])
        .success();
    let held = t.send("qa", "dev", "ER", "Dark mode");
    t.as_agent("dev")
        .args(["onhold", &held[..8], "After the release"])
        .success();

    let thread = t.as_agent("qa").args(["thread", short]).success();
    let nodes: Vec<&str> = thread
        .lines()
        .filter(|l| l.trim_start().starts_with("- "))
        .collect();
    assert_eq!(nodes.len(), 2, "{thread}");
    assert!(nodes[0].contains("qa → dev, ops BR"), "{thread}");
    assert!(nodes[0].contains("[resolved]"), "{thread}");
    let threads = t.as_agent("qa").args(["threads"]).success();
    let line = threads
        .lines()
        .find(|l| l.contains("Login broken"))
        .unwrap();
    assert!(line.contains("(2 messages)"), "{threads}");
    let line = threads.lines().find(|l| l.contains("Dark mode")).unwrap();
    assert!(line.contains("(1 message)"), "{threads}");

    let status = |id: &str| t.as_agent("dev").args(["status", &id[..8]]).success();
    assert!(
        status(&rejected).contains("\" is rejected"),
        "{}",
        status(&rejected)
    );
    assert!(status(&held).contains("\" is on hold"), "{}", status(&held));
    let sent = t.as_agent("qa").args(["status", &held[..8]]).success();
    assert!(sent.contains("- dev: on hold (hold)"), "{sent}");
    let answered = t.as_agent("dev").args(["search", "login"]).success();
    assert!(answered.contains("[answered]"), "{answered}");
}

#[test]
fn search_from_finds_what_an_agent_wrote_any_part_of() {
    let t = Test::new().agents(["qa", "dev"]);
    let asked = t.send("qa", "dev", "ER", "Batch import please");
    t.as_agent("dev")
        .args(["reply", &asked[..8], "Which columns?"])
        .success();
    t.send("dev", "qa", "SU", "Deploy at five");
    let found = |from: &str| -> Vec<String> {
        // As dev: its only copy of the request is the record of its reply (Sender: dev).
        let out = t
            .as_agent("dev")
            .args(["--json", "search", "", "--from", from])
            .success();
        let hits: Value = serde_json::from_str(&out).unwrap();
        let mut titles: Vec<String> = hits["hits"]
            .as_array()
            .unwrap()
            .iter()
            .map(|h| h["title"].as_str().unwrap().to_owned())
            .collect();
        titles.sort();
        titles.dedup();
        titles
    };
    // qa wrote the request; dev wrote a reply in it and the status update.
    assert_eq!(found("qa"), ["Batch import please"]);
    assert_eq!(found("dev"), ["Batch import please", "Deploy at five"]);
}

#[test]
fn a_config_named_by_a_bare_file_name_is_written_in_the_working_directory() {
    // `--config config.json`: the file's folder is the working directory (issue 36), for every
    // command that writes the config, not only `init`.
    let t = Test::new();
    t.run()
        .args(["--config", "config.json", "init", "--agent", "qa"])
        .success();
    t.run()
        .args(["--config", "config.json", "agents", "add", "dev"])
        .success();
    t.run()
        .args(["--config", "config.json", "agents", "token", "dev"])
        .success();
    let config: Value =
        serde_json::from_str(&fs::read_to_string(t.config_path()).unwrap()).unwrap();
    assert!(
        config["agents"]["dev"]["token_sha256"].is_string(),
        "{config}"
    );
    assert_eq!(
        config["agents"]["dev"]["mailbox_path"],
        t.path().join("mailboxes/dev").display().to_string()
    );
    // Each write's staged copy was renamed onto config.json: none is left beside it.
    let staged: Vec<String> = fs::read_dir(t.path())
        .unwrap()
        .map(|entry| entry.unwrap().file_name().to_string_lossy().into_owned())
        .filter(|name| name.ends_with(".part"))
        .collect();
    assert_eq!(staged, Vec::<String>::new());
}

/// The quickstart's steps, as printed: each `$ filebox ...` command line (a quoted argument
/// may span lines) and what it printed after it.
fn quickstart_steps(out: &str) -> Vec<(String, String)> {
    let mut steps: Vec<(String, String)> = Vec::new();
    let mut lines = out.lines();
    while let Some(line) = lines.next() {
        if line.starts_with("The files are in ") {
            break;
        }
        let Some(command) = line.strip_prefix("$ filebox ") else {
            if let Some((_, printed)) = steps.last_mut() {
                printed.push_str(line);
                printed.push('\n');
            }
            continue;
        };
        let mut command = format!("filebox {command}");
        while command.matches('\'').count() % 2 == 1 {
            command.push('\n');
            command.push_str(lines.next().expect("a quoted argument ends"));
        }
        steps.push((command, String::new()));
    }
    steps
}

#[test]
fn quickstart_prints_the_real_command_lines_and_what_each_prints() {
    let t = Test::new().agents(["qa", "dev"]);
    let demo = t.path().join("demo");
    let out = t
        .run()
        .args(["quickstart", "--dir"])
        .args([&demo])
        .success();
    let steps = quickstart_steps(&out);
    assert_eq!(steps.len(), 8, "{out}");
    // Typed into a shell in another project with the same agents, each command prints what
    // the quickstart printed (but for the new message's id, the times and the folder).
    let binary = std::path::Path::new(env!("CARGO_BIN_EXE_filebox"));
    let path = format!(
        "{}:{}",
        binary.parent().unwrap().display(),
        std::env::var("PATH").unwrap_or_default()
    );
    let run = |command: &str| {
        let done = std::process::Command::new("bash")
            .args(["-c", command])
            .current_dir(t.path())
            .env("PATH", &path)
            .env("FILEBOX_CONFIG", t.config_path())
            .env("HOME", t.path())
            .env_remove("FILEBOX_AGENT")
            .output()
            .unwrap();
        assert!(done.status.success(), "{command}: {done:?}");
        String::from_utf8(done.stdout).unwrap()
    };
    let (send, sent) = &steps[0];
    let (demo_id, id) = (sent.trim().to_owned(), run(send).trim().to_owned());
    let same = |text: &str, folder: &std::path::Path| {
        text.replace(&demo_id, "ID")
            .replace(&id, "ID")
            .replace(&demo_id[..8], "ID")
            .replace(&id[..8], "ID")
            .replace(&folder.display().to_string(), "FOLDER")
            .chars()
            .map(|c| if c.is_ascii_digit() { '0' } else { c })
            .collect::<String>()
            .trim_end()
            .to_owned()
    };
    for (command, printed) in &steps[1..] {
        let typed = run(&command.replace(&demo_id[..8], &id[..8]));
        assert_eq!(
            same(&typed, t.path()),
            same(printed, &demo),
            "`{command}` prints otherwise than the quickstart showed"
        );
    }
}

#[test]
fn help_lists_report_once_and_work_report_still_runs() {
    let t = Test::new().agents(["qa"]);
    let help = t.run().args(["--help"]).success();
    let listed: Vec<&str> = help
        .lines()
        .map(str::trim_start)
        .filter(|line| line.starts_with("report ") || line.starts_with("work-report "))
        .collect();
    assert_eq!(listed.len(), 1, "{help}");
    assert!(listed[0].contains("(also:"), "{help}");
    let usage = t.run().args(["work-report", "--help"]).success();
    assert!(usage.contains("Usage: filebox work-report"), "{usage}");
}
