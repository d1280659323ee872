//! `filebox hook claude-code|codex`, run with the JSON the hosts send: the context printed on
//! SessionStart and UserPromptSubmit, the Stop hook's wait and its exit codes, and that two
//! waiting hooks never report one message twice.

use std::io::Write;
use std::process::{Child, Stdio};

use serde_json::{Value, json};

use crate::support::Test;

/// The JSON Claude Code sends a command hook for `event` (Hooks reference: the common fields
/// and the event's own).
fn claude_input(t: &Test, event: &str) -> String {
    let mut input = json!({
        "session_id": "3f1c2b7e-52c4-4c1e-9a37-0d8e5b1f6a10",
        "transcript_path": t.path().join("session.jsonl"),
        "cwd": t.path(),
        "permission_mode": "default",
        "hook_event_name": event,
    });
    match event {
        "SessionStart" => input["source"] = json!("startup"),
        "UserPromptSubmit" => input["prompt"] = json!("What is in my inbox?"),
        "Stop" => input["stop_hook_active"] = json!(false),
        _ => {}
    }
    input.to_string()
}

fn hook(t: &Test, agent: &str, host: &str, input: &str) -> (i32, String, String) {
    let out = t.as_agent(agent).args(["hook", host]).stdin(input).output();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

/// A Stop hook started in the background, as Claude Code runs it with `async: true`.
fn spawn_stop(t: &Test, agent: &str, timeout: &str) -> Child {
    let mut command = t
        .as_agent(agent)
        .args(["hook", "claude-code", "--timeout", timeout])
        .command();
    command.stdin(Stdio::piped());
    let mut child = command.spawn().unwrap();
    let mut stdin = child.stdin.take().unwrap();
    stdin.write_all(claude_input(t, "Stop").as_bytes()).unwrap();
    child
}

fn finish(child: Child) -> (i32, String, String) {
    let out = child.wait_with_output().unwrap();
    (
        out.status.code().unwrap(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

fn short(id: &str) -> &str {
    &id[..8]
}

#[test]
fn session_start_and_prompt_submit_put_unread_mail_in_context_once_and_mark_it_read() {
    let t = Test::new().agents(["dev", "qa"]);
    let id = t.send(
        "qa",
        "dev",
        "ER",
        "# Batch import\n\nAdmins need to add 200 users.",
    );
    let (code, out, err) = hook(&t, "dev", "claude-code", &claude_input(&t, "SessionStart"));
    assert_eq!((code, err.as_str()), (0, ""), "{out}");
    let printed: Value = serde_json::from_str(&out).unwrap();
    let output = &printed["hookSpecificOutput"];
    assert_eq!(output["hookEventName"], "SessionStart");
    let context = output["additionalContext"].as_str().unwrap();
    assert!(
        context.starts_with(&format!(
            "New mail {} from qa (ER): Batch import\n",
            short(&id)
        )),
        "{context}"
    );
    assert!(
        context.contains("Admins need to add 200 users."),
        "{context}"
    );
    assert!(context.contains(&format!("read_message {{\"id\": \"{}\"}}", short(&id))));
    // Read now: the next prompt adds nothing, the copy has its receipt.
    let (code, out, _) = hook(
        &t,
        "dev",
        "claude-code",
        &claude_input(&t, "UserPromptSubmit"),
    );
    assert_eq!((code, out.as_str()), (0, ""));
    assert_eq!(
        t.as_agent("dev")
            .args(["list", "inbox", "--unread"])
            .success(),
        "No messages.\n"
    );
    let copy = t.read_json("dev", "inbox", &id);
    let processing = copy["processing"].to_string();
    assert!(
        processing.contains("\"Read\"") && processing.contains("hook"),
        "{processing}"
    );

    let second = t.send("qa", "dev", "BR", "Export fails");
    let (_, out, _) = hook(
        &t,
        "dev",
        "claude-code",
        &claude_input(&t, "UserPromptSubmit"),
    );
    let printed: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(
        printed["hookSpecificOutput"]["hookEventName"],
        "UserPromptSubmit"
    );
    let context = printed["hookSpecificOutput"]["additionalContext"]
        .as_str()
        .unwrap();
    assert!(context.starts_with(&format!("New mail {} from qa (BR)", short(&second))));
}

#[test]
fn a_stop_hook_waits_for_mail_and_wakes_the_session_with_exit_2() {
    let t = Test::new().agents(["dev", "qa"]);
    // The session started: its SessionStart hook set the cursor.
    hook(&t, "dev", "claude-code", &claude_input(&t, "SessionStart"));
    let waiting = spawn_stop(&t, "dev", "600");
    let id = t.send("qa", "dev", "ER", "# Login fails\n\nThe page says 500.");
    let (code, out, err) = finish(waiting);
    assert_eq!((code, out.as_str()), (2, ""), "{err}");
    assert!(
        err.starts_with(&format!(
            "New mail {} from qa (ER): Login fails\n",
            short(&id)
        )),
        "{err}"
    );
    assert!(err.contains("The page says 500."));
    // Reported: not again to a later hook, nor to `wait`.
    let (code, out, _) = hook(
        &t,
        "dev",
        "claude-code",
        &claude_input(&t, "UserPromptSubmit"),
    );
    assert_eq!((code, out.as_str()), (0, ""));
    t.as_agent("dev")
        .args(["wait", "--timeout", "0"])
        .expect_code(3);
}

#[test]
fn a_stop_hook_ends_quietly_at_its_timeout_and_at_once_when_already_continuing() {
    let t = Test::new().agents(["dev", "qa"]);
    hook(&t, "dev", "claude-code", &claude_input(&t, "SessionStart"));
    let (out, err) = t
        .as_agent("dev")
        .args(["hook", "claude-code", "--timeout", "0"])
        .stdin(claude_input(&t, "Stop"))
        .expect_code(0);
    assert_eq!((out.as_str(), err.as_str()), ("", ""));
    // Mail is waiting, but the session is going on because of a Stop hook: no loop.
    t.send("qa", "dev", "DIS", "ping");
    let mut input: Value = serde_json::from_str(&claude_input(&t, "Stop")).unwrap();
    input["stop_hook_active"] = json!(true);
    let (code, out, err) = hook(&t, "dev", "claude-code", &input.to_string());
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    let unread = t
        .as_agent("dev")
        .args(["list", "inbox", "--unread"])
        .success();
    assert!(unread.contains("ping"), "left for the next hook: {unread}");
}

#[test]
fn two_waiting_stop_hooks_never_both_report_one_message() {
    let t = Test::new().agents(["dev", "qa"]);
    hook(&t, "dev", "claude-code", &claude_input(&t, "SessionStart"));
    let mut hooks = vec![spawn_stop(&t, "dev", "600"), spawn_stop(&t, "dev", "600")];
    let first = t.send("qa", "dev", "DIS", "first");
    // Whichever hook claims it exits; the other goes on waiting, and gets the next one.
    let done = loop {
        if let Some(index) = hooks
            .iter_mut()
            .position(|child| child.try_wait().unwrap().is_some())
        {
            break hooks.remove(index);
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    let second = t.send("qa", "dev", "DIS", "second");
    let reports = [finish(done), finish(hooks.remove(0))];
    for ((code, _, err), id) in reports.iter().zip([&first, &second]) {
        assert_eq!(*code, 2, "{err}");
        let other = if id == &first { &second } else { &first };
        assert!(
            err.contains(short(id)) && !err.contains(short(other)),
            "{err}"
        );
    }
}

#[test]
fn codex_gets_context_and_mail_from_the_turn_continues_it_without_waiting() {
    let t = Test::new().agents(["dev", "qa"]);
    // Codex sends the same common fields, with its turn's.
    let input = |event: &str| {
        json!({
            "session_id": "0199a2b4-7c1d-7e52-a3f0-5b9c2d1e4f60",
            "turn_id": "1",
            "transcript_path": null,
            "cwd": t.path(),
            "model": "gpt-5-codex",
            "hook_event_name": event,
            "stop_hook_active": false,
        })
        .to_string()
    };
    let (code, out, _) = hook(&t, "dev", "codex", &input("SessionStart"));
    assert_eq!((code, out.as_str()), (0, ""));
    // Nothing came during the turn: the turn ends at once.
    let (code, out, err) = hook(&t, "dev", "codex", &input("Stop"));
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
    let id = t.send("qa", "dev", "ER", "# Add XLSX export");
    let (code, out, _) = hook(&t, "dev", "codex", &input("Stop"));
    assert_eq!(code, 0);
    let decision: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(decision["decision"], "block");
    let reason = decision["reason"].as_str().unwrap();
    assert!(
        reason.starts_with(&format!("New mail {} from qa (ER)", short(&id))),
        "{reason}"
    );
}

#[test]
fn input_that_is_not_a_hook_s_json_fails_and_other_events_do_nothing() {
    let t = Test::new().agents(["dev"]);
    let err = t
        .as_agent("dev")
        .args(["hook", "claude-code"])
        .stdin("not json")
        .failure();
    assert!(err.contains("standard input is not a hook's JSON"), "{err}");
    let (code, out, err) = hook(&t, "dev", "claude-code", &claude_input(&t, "PreCompact"));
    assert_eq!((code, out.as_str(), err.as_str()), (0, "", ""));
}
