//! A reply continues the fullest version of a conversation: after a message was resolved,
//! rejected or put on hold, from either side, and twice, nothing said or done so far is lost
//! from what is delivered, nor from the replier's outbox record.

use serde_json::Value;

use crate::support::Test;

/// A copy's history as comparable lines: `from to body` per conversation entry, and
/// `action by` per processing entry.
#[derive(Debug, PartialEq, Eq)]
struct History {
    conversation: Vec<String>,
    processing: Vec<String>,
}

fn history(t: &Test, agent: &str, folder: &str, short: &str) -> History {
    let message = t.read_json(agent, folder, short);
    let lines = |key: &str, parts: &[&str]| -> Vec<String> {
        let entries = message[key].as_array().cloned().unwrap_or_default();
        entries
            .iter()
            .map(|entry: &Value| {
                parts
                    .iter()
                    .map(|p| entry[*p].as_str().unwrap_or_default())
                    .collect::<Vec<_>>()
                    .join(" ")
            })
            .collect()
    };
    // Reading a copy here writes its read receipt (`Read qa`): bookkeeping of who read which
    // version, tested in channel.rs and the core, left out of what this test compares.
    let mut processing = lines("processing", &["action", "by"]);
    processing.retain(|line| !line.starts_with("Read "));
    History {
        conversation: lines("conversation", &["from", "to", "body"]),
        processing,
    }
}

fn reply(t: &Test, from: &str, to: &str, short: &str, body: &str) {
    t.as_agent(from)
        .args(["send", to, "DIS", body, "--reply_to", short])
        .success();
}

/// A transition: the command, the folder it leaves the message in, its processing action.
type Transition = (&'static str, &'static str, &'static str);
const RESOLVE: Transition = ("resolved", "done", "Resolved");
const REJECT: Transition = ("reject", "cancel", "Rejected");
const HOLD: Transition = ("onhold", "hold", "On Hold");

/// qa sends dev a BR and they talk; then `replier` (qa, the sender, or dev, the recipient)
/// handles the message with `transition` and replies twice. Each time, the copy the other side
/// receives and the replier's outbox copy hold the whole conversation, both replies as they
/// come, and the processing entry; a record (done/, cancel/) stays as it was.
fn handle_then_reply_twice((verb, folder, action): Transition, replier: &str) {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "BR", "Crash on save");
    let short = &id[..8];
    let mut said = vec!["dev qa Need logs".to_owned()];
    reply(&t, "dev", "qa", short, "Need logs");
    let other = if replier == "qa" {
        "dev"
    } else {
        // The message must be in dev's inbox: qa answers, and dev's outbox keeps the
        // older version with only dev's question.
        reply(&t, "qa", "dev", short, "Logs attached");
        said.push("qa dev Logs attached".to_owned());
        "qa"
    };
    t.as_agent(replier)
        .args([verb, short, "looked at it"])
        .success();
    let processing = vec![format!("{action} {replier}")];
    let handled = history(&t, replier, folder, short);
    assert_eq!(handled.conversation, said);
    for body in ["Regression is back", "Still broken"] {
        reply(&t, replier, other, short, body);
        said.push(format!("{replier} {other} {body}"));
        let expected = History {
            conversation: said.clone(),
            processing: processing.clone(),
        };
        assert_eq!(history(&t, other, "inbox", short), expected, "delivered");
        assert_eq!(history(&t, replier, "outbox", short), expected, "outbox");
    }
    if folder == "hold" {
        // Held mail is still being handled: the reply moved it on.
        assert!(t.files(replier, "hold").is_empty());
    } else {
        assert_eq!(history(&t, replier, folder, short), handled, "the record");
    }
}

#[test]
fn the_sender_replies_after_resolving() {
    handle_then_reply_twice(RESOLVE, "qa");
}

#[test]
fn the_sender_replies_after_rejecting() {
    handle_then_reply_twice(REJECT, "qa");
}

#[test]
fn the_sender_replies_after_holding() {
    handle_then_reply_twice(HOLD, "qa");
}

#[test]
fn the_recipient_replies_after_resolving() {
    handle_then_reply_twice(RESOLVE, "dev");
}

#[test]
fn the_recipient_replies_after_rejecting() {
    handle_then_reply_twice(REJECT, "dev");
}

#[test]
fn the_recipient_replies_after_holding() {
    handle_then_reply_twice(HOLD, "dev");
}
