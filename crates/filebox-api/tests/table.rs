//! The verb table as a JSON surface sees it: names, schemas, dispatch by name, typed errors,
//! and warnings and notes carried in the result.

use std::collections::BTreeSet;

use filebox_api::{CallError, Effect, VerbContext, verbs};
use filebox_core::Mailroom;
use serde_json::{Value, json};

/// A config with agents `qa` and `dev` (mailboxes under a temp dir), acting as `me`.
fn mailroom(dir: &tempfile::TempDir, me: &str) -> Mailroom {
    mailroom_among(dir, &["qa", "dev"], me)
}

/// A config with these agents (and any it had), acting as `me`.
fn mailroom_among(dir: &tempfile::TempDir, agents: &[&str], me: &str) -> Mailroom {
    let agents: Vec<(&str, &str)> = agents.iter().map(|agent| (*agent, "agent")).collect();
    filebox_testkit::mailroom(dir.path(), &agents, me)
}

fn call(mailroom: &Mailroom, name: &str, args: Value) -> Result<filebox_api::Reply, CallError> {
    verbs::call(&VerbContext::new(mailroom), name, args)
}

#[test]
fn names_are_unique_and_every_schema_is_an_object() {
    let names: BTreeSet<&str> = verbs::TABLE.iter().map(|v| v.name).collect();
    let cli: BTreeSet<&str> = verbs::TABLE.iter().map(|v| v.cli).collect();
    assert_eq!(names.len(), verbs::TABLE.len());
    assert_eq!(cli.len(), verbs::TABLE.len());
    for verb in verbs::TABLE {
        assert_eq!(verb.args_schema()["type"], "object", "{}", verb.name);
        let output = verb.output_schema();
        assert_eq!(output["type"], "object", "{}", verb.name);
        assert!(
            output["properties"].get("warnings").is_some(),
            "{} results carry warnings",
            verb.name
        );
        assert!(std::ptr::eq(verbs::find(verb.name).unwrap(), verb));
    }
    let wait = verbs::find("wait_for_messages").unwrap();
    assert_eq!(wait.effect, Effect::Updating);
    assert!(!verbs::find("reindex").unwrap().for_models);
}

#[test]
fn closed_sets_are_enums_in_the_schemas() {
    let search = verbs::find("search_messages").unwrap().args_schema();
    let defs = &search["properties"];
    assert_eq!(
        defs["status"]["enum"],
        json!([
            "pending",
            "delivered",
            "read",
            "processing",
            "replied",
            "failed",
            "obsolete"
        ])
    );
    assert_eq!(
        defs["folder"]["enum"],
        json!(["inbox", "outbox", "done", "cancel", "hold"])
    );
    let send = verbs::find("send_message").unwrap().args_schema();
    assert_eq!(
        send["properties"]["priority"]["enum"],
        json!(["normal", "urgent"])
    );
    assert_eq!(
        send["properties"]["source_type"]["enum"],
        json!(["agent", "human", "system", "external"])
    );
    let fork = verbs::find("fork_thread").unwrap().args_schema();
    assert_eq!(
        fork["properties"]["reason"]["enum"],
        json!(["context-compression", "direction-change"])
    );
}

#[test]
fn a_call_by_name_runs_the_verb_and_returns_its_json_and_text() {
    let dir = tempfile::tempdir().unwrap();
    let qa = mailroom(&dir, "qa");
    let dev = mailroom(&dir, "dev");
    let sent = call(
        &qa,
        "send_message",
        json!({"to": "dev", "type": "er", "content": "# Dark mode\n\nPlease."}),
    )
    .unwrap();
    let id = sent.value["id"].as_str().unwrap().to_owned();
    assert_eq!(sent.value["delivered_to"], json!(["dev"]));
    assert!(
        sent.text.starts_with(&format!("Sent {id} to dev (")),
        "{}",
        sent.text
    );
    assert!(sent.warnings.is_empty() && sent.value.get("warnings").is_none());

    let listed = call(&dev, "list_messages", Value::Null).unwrap();
    assert_eq!(listed.value["messages"][0]["id"], id.as_str());
    assert_eq!(listed.value["messages"][0]["type"], "ER");
    assert_eq!(listed.value["messages"][0]["folder"], "inbox");
    assert_eq!(listed.value["messages"][0]["unread"], true);
    let file = listed.value["messages"][0]["file"].as_str().unwrap();
    // The model's text: the page, then one short line per message.
    assert_eq!(
        listed.text.lines().collect::<Vec<_>>()[..1],
        ["1 in inbox, newest first (* unread):"]
    );
    let line = listed.text.lines().nth(1).unwrap();
    assert!(
        line.starts_with(&format!("* {} ER qa ", &id[..8])) && line.ends_with(" Dark mode"),
        "{line}"
    );

    let moved = call(
        &dev,
        "resolve_message",
        json!({"id": id, "details": "done"}),
    )
    .unwrap();
    assert_eq!(moved.value["folder"], "done");
    assert_eq!(moved.text, format!("{id} -> done/{file}"));
}

#[test]
fn a_message_to_myself_is_delivered_with_a_note_not_a_warning() {
    let dir = tempfile::tempdir().unwrap();
    let qa = mailroom(&dir, "qa");
    let sent = call(
        &qa,
        "send_message",
        json!({"to": "qa", "type": "SU", "content": "note to self"}),
    )
    .unwrap();
    assert!(sent.warnings.is_empty(), "{:?}", sent.warnings);
    assert_eq!(sent.notes.len(), 1);
    assert!(sent.notes[0].starts_with("qa is you"), "{:?}", sent.notes);
    assert_eq!(sent.value["notes"], json!(sent.notes));
    // A model reads the note after the result.
    assert!(
        sent.text.contains("\n\nNotes:\n- qa is you"),
        "{}",
        sent.text
    );
}

#[test]
fn errors_are_typed_unknown_verb_bad_arguments_or_the_cores() {
    let dir = tempfile::tempdir().unwrap();
    let qa = mailroom(&dir, "qa");
    assert!(matches!(
        call(&qa, "no_such_verb", json!({})),
        Err(CallError::UnknownVerb(name)) if name == "no_such_verb"
    ));
    match call(&qa, "list_messages", json!({"folder": "attic"})) {
        Err(CallError::InvalidArguments {
            verb,
            field,
            message,
        }) => {
            assert_eq!(verb, "list_messages");
            assert_eq!(field, "folder");
            assert!(message.starts_with("unknown variant `attic`"), "{message}");
        }
        other => panic!("expected invalid arguments, got {other:?}"),
    }
    // A missing field is named, not the object that lacks it.
    match call(&qa, "send_message", json!({"content": "hi"})) {
        Err(error @ CallError::InvalidArguments { .. }) => {
            assert_eq!(
                error.to_string(),
                "invalid arguments for send_message: to: missing field `to`"
            );
        }
        other => panic!("expected invalid arguments, got {other:?}"),
    }
    match call(&qa, "read_message", json!({"id": "0123abcd"})) {
        Err(CallError::Failed(error)) => {
            assert_eq!(filebox_api::advice::kind(&error), "not_found");
        }
        other => panic!("expected not found, got {other:?}"),
    }
}

#[test]
fn an_unreadable_file_is_a_warning_beside_the_listing() {
    let dir = tempfile::tempdir().unwrap();
    let dev = mailroom(&dir, "dev");
    // Opening the mailbox creates its folders.
    call(&dev, "list_messages", json!({})).unwrap();
    std::fs::write(dir.path().join("dev/inbox/garbage.md"), "no header\n").unwrap();
    let listed = call(&dev, "list_messages", json!({})).unwrap();
    assert_eq!(listed.value["messages"], json!([]));
    assert_eq!(listed.warnings.len(), 1);
    assert!(
        listed.warnings[0].starts_with("skipped "),
        "{:?}",
        listed.warnings
    );
    assert!(listed.warnings[0].contains("garbage.md"));
    assert_eq!(listed.value["warnings"], json!(listed.warnings));
    assert_eq!(listed.text, "No messages.");
}

/// `count` messages from qa in dev's inbox, titled `item 00`, `item 01`, ... (names sort in that order within a second); their ids in order.
fn fill_inbox(qa: &Mailroom, count: usize) -> Vec<String> {
    (0..count)
        .map(|n| {
            let sent = call(
                qa,
                "send_message",
                json!({"to": "dev", "type": "SU", "title": format!("item {n:02}"), "content": "x"}),
            )
            .unwrap();
            sent.value["id"].as_str().unwrap().to_owned()
        })
        .collect()
}

#[test]
fn a_listing_shows_a_page_of_fifty_and_says_how_to_get_the_rest() {
    let dir = tempfile::tempdir().unwrap();
    let qa = mailroom(&dir, "qa");
    let dev = mailroom(&dir, "dev");
    let ids = fill_inbox(&qa, 60);
    let listed_ids = |value: &Value| -> Vec<String> {
        value["messages"]
            .as_array()
            .unwrap()
            .iter()
            .map(|m| m["id"].as_str().unwrap().to_owned())
            .collect()
    };

    // Newest first.
    let newest: Vec<String> = ids.iter().rev().cloned().collect();
    let first = call(&dev, "list_messages", json!({})).unwrap();
    assert_eq!(listed_ids(&first.value), newest[..50]);
    assert_eq!(
        (
            first.value["total"].as_u64(),
            first.value["offset"].as_u64()
        ),
        (Some(60), Some(0))
    );
    assert!(
        first.text.starts_with("1-50 of 60 in inbox, newest first"),
        "{}",
        first.text
    );
    assert!(
        first.text.ends_with("\n10 more: list again with offset=50"),
        "{}",
        first.text
    );

    let rest = call(&dev, "list_messages", json!({"offset": 50})).unwrap();
    assert_eq!(listed_ids(&rest.value), newest[50..]);
    assert!(
        rest.text.starts_with("51-60 of 60 in inbox"),
        "{}",
        rest.text
    );
    assert!(!rest.text.contains("more"), "{}", rest.text);

    let all = call(&dev, "list_messages", json!({"limit": 0})).unwrap();
    assert_eq!(listed_ids(&all.value), newest);
    assert!(all.text.starts_with("60 in inbox"), "{}", all.text);
    let oldest = call(
        &dev,
        "list_messages",
        json!({"newest_first": false, "limit": 3}),
    )
    .unwrap();
    assert_eq!(listed_ids(&oldest.value), ids[..3]);
    assert!(
        oldest.text.starts_with("1-3 of 60 in inbox, oldest first"),
        "{}",
        oldest.text
    );

    let beyond = call(&dev, "list_messages", json!({"offset": 99})).unwrap();
    assert_eq!(beyond.value["messages"], json!([]));
    assert_eq!(beyond.text, "No messages at offset 60 (of 60).");
}

#[test]
fn a_listing_marks_what_i_have_not_read() {
    let dir = tempfile::tempdir().unwrap();
    let qa = mailroom(&dir, "qa");
    let dev = mailroom(&dir, "dev");
    let ids = fill_inbox(&qa, 3);
    call(&dev, "read_message", json!({"id": ids[1]})).unwrap();
    let listed = call(&dev, "list_messages", json!({})).unwrap();
    let unread: Vec<bool> = listed.value["messages"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["unread"].as_bool().unwrap())
        .collect();
    assert_eq!(unread, [true, false, true]);
    let marks: Vec<&str> = listed.text.lines().skip(1).map(|l| &l[..2]).collect();
    assert_eq!(marks, ["* ", "  ", "* "], "{}", listed.text);
    // Every verb takes the short id a line shows.
    let short = &listed.text.lines().nth(2).unwrap()[2..10];
    assert_eq!(short, &ids[1][..8]);
    let resolved = call(
        &dev,
        "resolve_message",
        json!({"id": short, "details": "ok"}),
    )
    .unwrap();
    assert_eq!(resolved.value["id"], ids[1].as_str());
}

/// `send_message` and `reply_message` with `idempotency_key`: a repeat returns the first result
/// and writes nothing; the key with other content is refused with its own kind and next step.
#[test]
fn a_keyed_send_or_reply_repeated_by_name_writes_once() {
    let dir = tempfile::tempdir().unwrap();
    let qa = mailroom(&dir, "qa");
    let dev = mailroom(&dir, "dev");
    let send = json!({"to": "dev", "type": "ER", "content": "build it", "idempotency_key": "s-1"});
    let first = call(&qa, "send_message", send.clone()).unwrap().value;
    assert_eq!(call(&qa, "send_message", send).unwrap().value, first);
    let id = first["id"].as_str().unwrap();
    let reply = json!({"id": id, "content": "built", "idempotency_key": "r-1"});
    let replied = call(&dev, "reply_message", reply.clone()).unwrap().value;
    assert_eq!(call(&dev, "reply_message", reply).unwrap().value, replied);
    let read = call(&qa, "read_message", json!({"id": id})).unwrap().value;
    assert_eq!(read["conversation"].as_array().unwrap().len(), 1, "{read}");
    let listed = call(&dev, "list_messages", json!({"folder": "outbox"}))
        .unwrap()
        .value;
    assert_eq!(listed["messages"].as_array().unwrap().len(), 1, "{listed}");

    let other =
        json!({"to": "dev", "type": "ER", "content": "something else", "idempotency_key": "s-1"});
    match call(&qa, "send_message", other) {
        Err(CallError::Failed(error)) => {
            assert_eq!(filebox_api::advice::kind(&error), "idempotency_key_reused");
            assert!(error.to_string().contains("\"s-1\""), "{error}");
            let advice = filebox_api::advice::advice(&error);
            assert!(advice.contains("new idempotency key"), "{advice}");
        }
        other => panic!("expected the key to be refused, got {other:?}"),
    }
    match call(
        &qa,
        "send_message",
        json!({"to": "dev", "type": "ER", "content": "x", "idempotency_key": "has space"}),
    ) {
        Err(CallError::Failed(error)) => {
            assert_eq!(
                filebox_api::advice::kind(&error),
                "invalid_argument",
                "{error}"
            );
        }
        other => panic!("expected an invalid key, got {other:?}"),
    }
}

/// The README's thread: qa asks dev, answers to go to lead; dev answers (to lead), lead answers
/// back (to dev). Three entries, none of them in qa's copy. Returns the mailrooms of qa and dev
/// and the message's id.
fn answered_elsewhere(dir: &tempfile::TempDir) -> (Mailroom, Mailroom, String) {
    let qa = mailroom_among(dir, &["qa", "dev", "lead"], "qa");
    let dev = mailroom_among(dir, &["qa", "dev", "lead"], "dev");
    let lead = mailroom_among(dir, &["qa", "dev", "lead"], "lead");
    let asked = json!({"to": "dev", "type": "ER", "content": "Export users as CSV",
        "reply_to_agent": "lead"});
    let sent = call(&qa, "send_message", asked).unwrap();
    let id = sent.value["id"].as_str().unwrap().to_owned();
    call(
        &dev,
        "reply_message",
        json!({"id": id, "content": "Done, see PR 12"}),
    )
    .unwrap();
    call(
        &lead,
        "reply_message",
        json!({"id": id, "content": "Thanks; also XLSX?"}),
    )
    .unwrap();
    (qa, dev, id)
}

#[test]
fn a_thread_counts_its_entries_wherever_they_are() {
    let dir = tempfile::tempdir().unwrap();
    let (qa, _dev, id) = answered_elsewhere(&dir);
    let drawn = call(&qa, "get_thread", json!({"id": id})).unwrap();
    assert_eq!(drawn.value["nodes"].as_array().unwrap().len(), 3);
    let listed = call(&qa, "list_threads", json!({})).unwrap();
    assert_eq!(
        listed.value["threads"][0]["messages"], 3,
        "{}",
        listed.value
    );
    assert!(listed.text.contains("(3 messages)"), "{}", listed.text);
}

#[test]
fn status_says_who_sent_the_message_not_who_wrote_last() {
    let dir = tempfile::tempdir().unwrap();
    let (_qa, dev, id) = answered_elsewhere(&dir);
    let status = call(&dev, "message_status", json!({"id": id})).unwrap();
    assert!(status.text.contains("; from qa,"), "{}", status.text);
    assert_eq!(status.value["original_sender"], "qa", "{}", status.value);
    // The last writer is its own field.
    assert_eq!(status.value["sender"], "lead", "{}", status.value);
}
