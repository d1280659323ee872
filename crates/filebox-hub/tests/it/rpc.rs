//! The hub in-process on port 0: the email.* methods over JSON-RPC, batches, error
//! codes, the browser guards, the body limit and the Unix socket.

use crate::support;

use serde_json::{Value, json};
use support::TestHub;

fn send_params(from: &str, to: &str, subject: &str, source: &str) -> Value {
    json!({ "from": from, "to": [to], "subject": subject, "body": format!("{subject}\n\nbody"), "sourceType": source })
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_inbox_pages_oldest_first_or_newest_first() {
    let hub = TestHub::start().await;
    // Names sort by time, then type and title: one second's sends sort by their titles.
    for subject in ["m1", "m2", "m3"] {
        hub.call("email.send", send_params("dev", "qa", subject, "agent"))
            .await;
    }
    let subjects = |page: Value| -> Vec<String> {
        page.as_array()
            .unwrap()
            .iter()
            .map(|m| m["subject"].as_str().unwrap().to_owned())
            .collect()
    };
    let page = |params: Value| hub.call("email.inbox", params);
    assert_eq!(
        subjects(page(json!({ "agent": "qa" })).await),
        ["m1", "m2", "m3"]
    );
    assert_eq!(
        subjects(page(json!({ "agent": "qa", "offset": 1, "limit": 1 })).await),
        ["m2"]
    );
    assert_eq!(
        subjects(page(json!({ "agent": "qa", "newestFirst": true, "limit": 2 })).await),
        ["m3", "m2"]
    );
    assert_eq!(
        subjects(
            page(json!({ "agent": "qa", "newestFirst": true, "offset": 2, "limit": 2 })).await
        ),
        ["m1"]
    );
    assert_eq!(
        subjects(page(json!({ "agent": "qa", "newestFirst": true, "offset": 5 })).await),
        Vec::<String>::new()
    );
    // The next page after the last file shown, whatever arrived meanwhile.
    let first = page(json!({ "agent": "qa", "newestFirst": true, "limit": 2 })).await;
    let last_shown = first[1]["file"].as_str().unwrap().to_owned();
    hub.call("email.send", send_params("dev", "qa", "m4", "agent"))
        .await;
    assert_eq!(
        subjects(page(json!({ "agent": "qa", "newestFirst": true, "before": last_shown })).await),
        ["m1"]
    );
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_message_goes_from_send_to_inbox_read_and_reply() {
    let hub = TestHub::start().await;
    let sent = hub
        .call(
            "email.send",
            json!({ "from": "dev", "to": ["qa"], "cc": ["me"], "subject": "Login fails", "body": "Steps:\n1. open", "type": "BR", "priority": "urgent", "sourceType": "agent", "metadata": { "ticket": 7 } }),
        )
        .await;
    assert_eq!(sent["from"], "dev");
    assert_eq!(sent["to"], json!(["qa"]));
    assert_eq!(sent["cc"], json!(["me"]));
    assert_eq!(sent["type"], "BR");
    assert_eq!(sent["priority"], "urgent");
    assert_eq!(sent["metadata"], json!({ "ticket": 7 }));
    assert_eq!(sent["folder"], "outbox");
    assert_eq!(sent["status"], "delivered");
    assert!(sent["createdAt"].as_str().unwrap().ends_with('Z'));
    let id = sent["id"].as_str().unwrap().to_owned();

    let inbox = hub.call("email.inbox", json!({ "agent": "qa" })).await;
    assert_eq!(inbox.as_array().unwrap().len(), 1);
    assert_eq!(inbox[0]["id"], id.as_str());
    assert_eq!(inbox[0]["body"], "Steps:\n1. open");
    let unread = hub
        .call("email.inbox", json!({ "agent": "qa", "unread": true }))
        .await;
    assert_eq!(unread.as_array().unwrap().len(), 1);
    let read = hub
        .call("email.read", json!({ "agent": "qa", "id": &id[..8] }))
        .await;
    assert_eq!(read["subject"], "Login fails");
    let unread = hub
        .call("email.inbox", json!({ "agent": "qa", "unread": true }))
        .await;
    assert_eq!(unread, json!([]), "read marks the message read");

    let replied = hub
        .call(
            "email.reply",
            json!({ "from": "qa", "id": id, "body": "Fixed in 1.2" }),
        )
        .await;
    assert_eq!(replied["replies"][0]["from"], "qa");
    assert_eq!(replied["replies"][0]["to"], "dev");
    assert_eq!(replied["status"], "replied");
    assert!(replied["repliedAt"].is_string());
    assert!(hub.files("qa", "inbox").is_empty(), "the file moved on");
    let back = hub.call("email.inbox", json!({ "agent": "dev" })).await;
    assert_eq!(back[0]["replies"][0]["body"], "Fixed in 1.2");

    let status = hub.call("email.status", json!({ "id": id })).await;
    assert_eq!(status["id"], id.as_str());
    assert!(status["recipients"].is_array());

    let thread = hub.call("email.thread", json!({ "id": id })).await;
    assert_eq!(thread["thread"], id.as_str());
    let threads = hub.call("email.threads", json!({ "agent": "dev" })).await;
    assert_eq!(threads["threads"][0]["thread"], id.as_str());
    hub.stop().await.unwrap();
}

/// After an answer every copy names its replier as Sender and the answer's target as Receiver;
/// `email.read` still says who sent the message to whom, as the thread graph draws it, from
/// either side, and `email.status` says replied from the asker's copy.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answered_message_reads_from_its_sender_to_who_answered() {
    let hub = TestHub::start().await;
    let asked = hub
        .call(
            "email.send",
            send_params("dev", "me", "Deploy now?", "agent"),
        )
        .await;
    let id = asked["id"].as_str().unwrap();
    hub.call(
        "email.reply",
        json!({ "from": "me", "id": id, "body": "yes" }),
    )
    .await;
    let thread = hub.call("email.thread", json!({ "id": id })).await;
    let root = &thread["nodes"][0];
    assert_eq!((&root["from"], &root["to"]), (&json!("dev"), &json!("me")));
    for agent in ["dev", "me"] {
        let read = hub
            .call("email.read", json!({ "agent": agent, "id": id }))
            .await;
        assert_eq!(read["from"], "dev", "{agent}: {read}");
        assert_eq!(read["to"], json!(["me"]), "{agent}: {read}");
        assert_eq!(read["replies"][0]["to"], "dev", "{agent}: {read}");
    }
    let status = hub
        .call("email.status", json!({ "agent": "dev", "id": id }))
        .await;
    assert_eq!(status["status"], "replied", "{status}");
    assert_eq!(
        status["repliedAt"], status["replies"][0]["createdAt"],
        "{status}"
    );
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn transitions_fork_search_and_agents() {
    let hub = TestHub::start().await;
    let first = hub
        .call("email.send", send_params("dev", "qa", "Plan A", "agent"))
        .await;
    let id = first["id"].as_str().unwrap();
    let held = hub
        .call(
            "email.hold",
            json!({ "agent": "qa", "id": id, "details": "waiting for logs" }),
        )
        .await;
    assert_eq!(held["folder"], "hold");
    assert_eq!(held["status"], "processing");
    let done = hub
        .call(
            "email.resolve",
            json!({ "agent": "qa", "id": id, "details": "done" }),
        )
        .await;
    assert_eq!(done["folder"], "done");
    assert_eq!(done["status"], "replied");
    assert_eq!(done["history"].as_array().unwrap().len(), 2);

    let other = hub
        .call("email.send", send_params("dev", "qa", "Plan B", "agent"))
        .await;
    let rejected = hub
        .call(
            "email.reject",
            json!({ "agent": "qa", "id": other["id"], "details": "no" }),
        )
        .await;
    assert_eq!(rejected["status"], "failed");

    let fork = hub
        .call(
            "email.fork",
            json!({ "from": "dev", "forkFrom": id, "forkReason": "direction-change", "compressedContext": "Plan A failed: try C" }),
        )
        .await;
    assert_eq!(fork["forkFrom"], id);
    assert_eq!(fork["forkReason"], "direction-change");
    assert_eq!(fork["compressedContext"], "Plan A failed: try C");

    let found = hub
        .call("email.search", json!({ "agent": "qa", "query": "Plan" }))
        .await;
    assert!(found["hits"].as_array().unwrap().len() >= 2);
    let agents = hub.call("agents.list", json!({})).await;
    let me = agents
        .as_array()
        .unwrap()
        .iter()
        .find(|a| a["id"] == "me")
        .unwrap();
    assert_eq!(me["kind"], "human");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn errors_have_codes_kinds_and_name_the_field() {
    let hub = TestHub::start().await;
    let error = hub.call_err("email.nothing", json!({})).await;
    assert_eq!(error["code"], -32601);

    let error = hub
        .call_err(
            "email.send",
            json!({ "from": "dev", "to": "qa", "subject": "s", "body": "b", "sourceType": "agent" }),
        )
        .await;
    assert_eq!(error["code"], -32602);
    assert_eq!(error["data"]["field"], "to");

    // A missing field is named itself, not by the object that lacks it.
    let error = hub.call_err("email.send", json!({ "from": "dev" })).await;
    assert_eq!(error["code"], -32602);
    assert_eq!(error["data"]["field"], "to");
    assert_eq!(
        error["message"], "invalid params: to: missing field `to`",
        "{error}"
    );

    let error = hub
        .call_err(
            "email.send",
            json!({ "from": "dev", "to": ["qa"], "subject": "s", "body": "b" }),
        )
        .await;
    assert_eq!(error["code"], -32602);
    assert!(
        error["message"].as_str().unwrap().contains("sourceType"),
        "{error}"
    );

    let error = hub
        .call_err("email.send", send_params("dev", "nobody", "s", "agent"))
        .await;
    assert_eq!(error["data"]["kind"], "unknown_agent");
    assert!(error["code"].as_i64().unwrap() > 0);

    let error = hub
        .call_err(
            "email.read",
            json!({ "agent": "qa", "id": "../../etc/passwd" }),
        )
        .await;
    assert!(error["data"]["kind"].is_string(), "{error}");
    let error = hub
        .call_err("email.inbox", json!({ "agent": "../qa" }))
        .await;
    assert_eq!(error["code"], -32602);
    assert_eq!(error["data"]["field"], "agent");

    let error = hub
        .call_err("email.send", send_params("dev", "qa", "s", "human"))
        .await;
    assert_eq!(error["data"]["kind"], "invalid_argument", "{error}");
    assert!(
        error["message"].as_str().unwrap().contains("kind human"),
        "dev is not a human: {error}"
    );

    let error = hub
        .call_err(
            "email.send",
            json!({ "from": "dev", "to": ["qa"], "subject": "s", "body": "b", "sourceType": "external", "callback": { "type": "webhook", "endpoint": "http://169.254.169.254/" } }),
        )
        .await;
    assert_eq!(error["data"]["field"], "callback.endpoint");

    let sent = hub
        .call("email.send", send_params("dev", "qa", "once", "agent"))
        .await;
    hub.call(
        "email.resolve",
        json!({ "agent": "qa", "id": sent["id"], "details": "ok" }),
    )
    .await;
    let error = hub
        .call_err(
            "email.resolve",
            json!({ "agent": "qa", "id": sent["id"], "details": "again" }),
        )
        .await;
    assert!(
        ["already_handled", "not_found"].contains(&error["data"]["kind"].as_str().unwrap()),
        "{error}"
    );
    // Nothing of the failed calls was written.
    assert!(hub.files("qa", "inbox").is_empty());
    assert_eq!(hub.files("dev", "outbox").len(), 1);
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn batches_notifications_and_malformed_requests() {
    let hub = TestHub::start().await;
    let batch = json!([
        { "jsonrpc": "2.0", "id": "a", "method": "agents.list" },
        { "jsonrpc": "2.0", "method": "email.send", "params": send_params("dev", "qa", "note", "agent") },
        { "jsonrpc": "2.0", "id": 2, "method": "nope" },
        { "jsonrpc": "1.0", "id": 3, "method": "agents.list" },
        7
    ]);
    let response = hub.post("/rpc", &[], batch.to_string().as_bytes()).await;
    assert_eq!(response.status, 200);
    let answers: Value = serde_json::from_str(&response.body).unwrap();
    let answers = answers.as_array().unwrap();
    assert_eq!(answers.len(), 4, "the notification gets no answer");
    assert_eq!(answers[0]["id"], "a");
    assert!(answers[0]["result"].is_array());
    assert_eq!(answers[1]["error"]["code"], -32601);
    assert_eq!(answers[2]["error"]["code"], -32600);
    assert_eq!(answers[3]["error"]["code"], -32600);
    assert_eq!(hub.files("qa", "inbox").len(), 1, "notifications still run");

    let only_notification = json!({ "jsonrpc": "2.0", "method": "agents.list" });
    let response = hub
        .post("/rpc", &[], only_notification.to_string().as_bytes())
        .await;
    assert_eq!(response.status, 204);

    for body in [&b"{not json"[..], b"[]", b"\"text\""] {
        let response = hub.post("/rpc", &[], body).await;
        let answer: Value = serde_json::from_str(&response.body).unwrap();
        assert!(
            answer["error"]["code"].as_i64().unwrap() <= -32600,
            "{answer}"
        );
        assert_eq!(answer["id"], Value::Null);
    }
    let response = hub.post("/rpc", &[], b"{not json").await;
    let answer: Value = serde_json::from_str(&response.body).unwrap();
    assert_eq!(answer["error"]["code"], -32700);
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn foreign_hosts_origins_and_huge_bodies_are_refused() {
    let hub = TestHub::start().await;
    assert_eq!(hub.get("/healthz", &[]).await.status, 200);
    let call = json!({ "jsonrpc": "2.0", "id": 1, "method": "email.send", "params": send_params("dev", "qa", "x", "agent") });
    let body = call.to_string();
    let rebinding = support::request(
        hub.addr,
        "POST",
        "/rpc",
        &[("Host", "attacker.example:8765")],
        body.as_bytes(),
    )
    .await;
    assert_eq!(rebinding.status, 403);
    let csrf = hub
        .post(
            "/rpc",
            &[("Origin", "https://attacker.example")],
            body.as_bytes(),
        )
        .await;
    assert_eq!(csrf.status, 403);
    let null_origin = hub
        .post("/rpc", &[("Origin", "null")], body.as_bytes())
        .await;
    assert_eq!(null_origin.status, 403);
    let own_origin = format!("http://{}", hub.addr);
    let same = hub
        .post("/rpc", &[("Origin", &own_origin)], body.as_bytes())
        .await;
    assert_eq!(same.status, 200);
    assert!(!same.body.to_ascii_lowercase().contains("access-control"));
    assert_eq!(
        hub.files("qa", "inbox").len(),
        1,
        "only the same-origin call wrote"
    );

    let huge = vec![b' '; 100 * 1024 * 1024];
    let response = hub.post("/rpc", &[], &huge).await;
    assert_eq!(response.status, 413);
    let answer: Value = serde_json::from_str(&response.body).unwrap();
    assert_eq!(answer["error"]["code"], -32600);
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn discover_describes_every_method_from_the_types() {
    let hub = TestHub::start().await;
    let doc = hub.call("rpc.discover", json!({})).await;
    assert_eq!(doc["openrpc"], "1.3.2");
    let names: Vec<&str> = doc["methods"]
        .as_array()
        .unwrap()
        .iter()
        .map(|m| m["name"].as_str().unwrap())
        .collect();
    for method in [
        "email.send",
        "email.inbox",
        "email.read",
        "email.reply",
        "email.threads",
        "email.thread",
        "email.fork",
        "email.status",
        "email.resolve",
        "email.reject",
        "email.hold",
        "email.search",
        "agents.list",
        "rpc.discover",
    ] {
        assert!(names.contains(&method), "{method} missing from {names:?}");
    }
    let send = &doc["methods"][0];
    let source = send["params"]
        .as_array()
        .unwrap()
        .iter()
        .find(|p| p["name"] == "sourceType")
        .unwrap();
    assert_eq!(source["required"], true);
    // The result, an AgentEmail, is described whole and in the family's camelCase.
    let result = &send["result"]["schema"]["properties"];
    assert!(
        result["createdAt"].is_object() && result["sourceType"].is_object(),
        "{result}"
    );
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_unix_socket_is_private_and_serves_the_same_methods() {
    use std::os::unix::fs::PermissionsExt;
    let hub = TestHub::start().await;
    let socket = hub
        .dir
        .path()
        .join(".filebox")
        .join(filebox_hub::SOCKET_NAME);
    let mode = std::fs::metadata(&socket).unwrap().permissions().mode();
    assert_eq!(mode & 0o777, 0o600);
    let mut stream = tokio::net::UnixStream::connect(&socket).await.unwrap();
    let body = json!({ "jsonrpc": "2.0", "id": 9, "method": "agents.list" }).to_string();
    let request = format!(
        "POST /rpc HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Length: {}\r\n\r\n{body}",
        body.len()
    );
    use tokio::io::{AsyncReadExt, AsyncWriteExt};
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut raw = String::new();
    stream.read_to_string(&mut raw).await.unwrap();
    assert!(raw.starts_with("HTTP/1.1 200"), "{raw}");
    assert!(raw.contains("\"id\":9"));
    hub.stop().await.unwrap();
    assert!(!socket.exists(), "a graceful stop removes the socket");
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_verb_is_a_method_of_its_own_name() {
    let hub = TestHub::start().await;
    let sent = hub
        .call(
            "send_message",
            json!({ "agent": "dev", "to": "qa", "type": "ER", "content": "by the verb's name" }),
        )
        .await;
    let listed = hub
        .call(
            "list_messages",
            json!({ "agent": "qa", "newest_first": true }),
        )
        .await;
    assert_eq!(listed["messages"][0]["id"], sent["id"], "{listed}");
    // The alias is the same verb with the same params.
    let open = hub.call("open_questions", json!({ "agent": "me" })).await;
    assert_eq!(
        hub.call("questions.open", json!({ "agent": "me" })).await,
        open
    );
    // Without `agent`: the config's current agent (me).
    let agents = hub.call("list_agents", json!({})).await;
    assert_eq!(agents["me"], "me");
    let wrong = hub
        .call_err(
            "list_messages",
            json!({ "agent": "dev", "folder": "attic" }),
        )
        .await;
    assert_eq!(wrong["code"], -32602, "{wrong}");
    // rpc.discover describes each of them.
    let discovered = hub.call("rpc.discover", json!({})).await;
    let names: Vec<&str> = discovered["methods"]
        .as_array()
        .unwrap()
        .iter()
        .filter_map(|m| m["name"].as_str())
        .collect();
    for verb in filebox_api::verbs::TABLE {
        assert!(
            names.contains(&verb.name),
            "{} missing from rpc.discover",
            verb.name
        );
    }
    assert!(names.contains(&"questions.open") && names.contains(&"email.send"));
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn email_send_takes_attachments_as_email_reply_does() {
    let hub = TestHub::start().await;
    let mut params = send_params("dev", "qa", "with a file", "agent");
    params["attachments"] = json!([{ "name": "notes.txt", "data": "aGVsbG8=" }]);
    let sent = hub.call("email.send", params).await;
    let id = sent["id"].as_str().unwrap();
    let stored = hub
        .mailbox("qa")
        .join("attachments")
        .join(id)
        .join("notes.txt");
    assert_eq!(std::fs::read(&stored).unwrap(), b"hello");
    let read = hub
        .call("email.read", json!({ "agent": "qa", "id": id }))
        .await;
    assert!(
        read["body"].as_str().unwrap().contains("notes.txt"),
        "{read}"
    );
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_email_family_answers_in_one_casing_and_discover_resolves_every_reference() {
    let hub = TestHub::start().await;
    let sent = hub
        .call("email.send", send_params("dev", "qa", "casing", "agent"))
        .await;
    let id = sent["id"].as_str().unwrap();
    let thread = hub.call("email.thread", json!({ "id": id })).await;
    let threads = hub.call("email.threads", json!({ "agent": "qa" })).await;
    let agents = hub.call("agents.list", json!({})).await;
    let status = hub.call("email.status", json!({ "id": id })).await;
    for answer in [&thread, &threads, &agents, &status] {
        assert!(!keys(answer).iter().any(|k| k.contains('_')), "{answer}");
    }
    assert!(
        thread["nodes"][0].get("forkReason").is_some()
            || thread["nodes"][0].get("mailbox").is_some()
    );
    assert!(agents[0].get("mailboxPath").is_some(), "{agents}");
    // The same view by the verb's own name keeps the verbs' snake_case.
    let by_verb = hub
        .call("get_thread", json!({ "agent": "qa", "id": id }))
        .await;
    assert!(by_verb.get("thread").is_some() && keys(&by_verb).iter().any(|k| k.contains('_')));

    let document = hub.call("rpc.discover", json!({})).await;
    let components = document["components"]["schemas"].as_object().unwrap();
    let mut references = Vec::new();
    collect_refs(&document["methods"], &mut references);
    collect_refs(&document["components"], &mut references);
    assert!(!references.is_empty());
    for reference in references {
        let name = reference
            .strip_prefix("#/components/schemas/")
            .unwrap_or_else(|| panic!("{reference} points outside the components"));
        assert!(
            components.contains_key(name),
            "{reference} resolves to nothing"
        );
    }
    hub.stop().await.unwrap();
}

/// Every object key in a JSON value.
fn keys(value: &Value) -> Vec<String> {
    match value {
        Value::Object(map) => map
            .iter()
            .flat_map(|(k, v)| std::iter::once(k.clone()).chain(keys(v)))
            .collect(),
        Value::Array(items) => items.iter().flat_map(keys).collect(),
        _ => Vec::new(),
    }
}

fn collect_refs(value: &Value, out: &mut Vec<String>) {
    match value {
        Value::Object(map) => {
            for (key, value) in map {
                match (key.as_str(), value) {
                    ("$ref", Value::String(target)) => out.push(target.clone()),
                    _ => collect_refs(value, out),
                }
            }
        }
        Value::Array(items) => items.iter().for_each(|v| collect_refs(v, out)),
        _ => {}
    }
}
/// `idempotencyKey` on `email.send` and `email.reply`, `idempotency_key` on `send_message` by
/// its name: a repeat (also several at once) answers with the first message and writes
/// nothing; the key with other content is error 1014, `idempotency_key_reused`.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_send_or_reply_repeated_with_its_key_is_written_once() {
    let hub = TestHub::start().await;
    let mut params = send_params("dev", "qa", "once", "agent");
    params["idempotencyKey"] = json!("email-1");
    let calls: Vec<_> = (0..6)
        .map(|_| hub.call("email.send", params.clone()))
        .collect();
    let answers = futures_util::future::join_all(calls).await;
    assert!(
        answers.iter().all(|a| a["id"] == answers[0]["id"]),
        "{answers:?}"
    );
    assert_eq!(answers[0]["folder"], "outbox");
    assert_eq!(hub.files("qa", "inbox").len(), 1);
    assert_eq!(hub.files("dev", "outbox").len(), 1);

    let id = answers[0]["id"].clone();
    let reply = json!({ "from": "qa", "id": id, "body": "done", "idempotencyKey": "reply-1" });
    let replied = hub.call("email.reply", reply.clone()).await;
    assert_eq!(hub.call("email.reply", reply).await["id"], replied["id"]);
    let back = hub.call("email.inbox", json!({ "agent": "dev" })).await;
    assert_eq!(back[0]["replies"].as_array().unwrap().len(), 1, "{back}");

    params["body"] = json!("other content");
    let error = hub.call_err("email.send", params).await;
    assert_eq!(error["code"], 1014, "{error}");
    assert_eq!(error["data"]["kind"], "idempotency_key_reused");
    assert!(
        error["message"].as_str().unwrap().contains("email-1"),
        "{error}"
    );

    let by_name = json!({ "agent": "dev", "to": "qa", "type": "ER", "content": "by name", "idempotency_key": "verb-1" });
    let sent = hub.call("send_message", by_name.clone()).await;
    assert_eq!(hub.call("send_message", by_name).await, sent);
    assert_eq!(hub.files("dev", "outbox").len(), 2);
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn agents_list_marks_the_configs_current_agent() {
    // `me` (the first, current agent), `dev`, `qa`: the view without a token is the current one.
    let hub = TestHub::start().await;
    let agents = hub.call("agents.list", json!({})).await;
    let current: Vec<&str> = agents
        .as_array()
        .unwrap()
        .iter()
        .filter(|a| a["current"] == true)
        .filter_map(|a| a["id"].as_str())
        .collect();
    assert_eq!(current, ["me"], "{agents}");
    hub.stop().await.unwrap();
}

/// The hub builds each mailbox's index once it starts, so a reply by id and a page of a large
/// inbox read only the files they need; it then answers from the files as they are.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hub_indexes_every_mailbox_it_serves() {
    let dir = tempfile::tempdir().unwrap();
    let config = support::write_config(dir.path(), &[("dev", "agent"), ("qa", "agent")]);
    let mailbox = filebox_core::Mailbox::open(
        filebox_core::AgentId::new("qa").unwrap(),
        dir.path().join("mailboxes").join("qa"),
    )
    .unwrap();
    let hub = TestHub::start_in(dir, config).await;
    let sent = hub
        .call("email.send", send_params("dev", "qa", "before", "agent"))
        .await;
    let deadline = std::time::Instant::now() + support::GIVE_UP;
    for agent in ["dev", "qa"] {
        let database = hub.mailbox(agent).join(".filebox").join("index.db");
        while !database.exists() {
            assert!(std::time::Instant::now() < deadline, "no index for {agent}");
            tokio::time::sleep(std::time::Duration::from_millis(20)).await;
        }
    }
    // Caught up with the files, as every use of it is.
    let files = filebox_core::index::with_index(&mailbox, |index| index.file_count()).unwrap();
    assert_eq!(files, 1);
    let short = &sent["id"].as_str().unwrap()[..8];
    let replied = hub
        .call(
            "email.reply",
            json!({ "from": "qa", "id": short, "body": "done" }),
        )
        .await;
    assert_eq!(replied["id"], sent["id"]);
    hub.stop().await.unwrap();
}

/// The answer to `email.send` is the sender's record as this call wrote it, without reading it
/// back: the same, field for field, as reading that record afterwards.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_answer_to_a_send_is_the_record_as_read_afterwards() {
    let hub = TestHub::start().await;
    let sent = hub
        .call(
            "email.send",
            json!({ "from": "dev", "to": ["qa"], "cc": ["me"], "subject": "Login fails", "body": "Steps:\n1. open\n", "type": "BR", "priority": "urgent", "sourceType": "agent", "metadata": { "ticket": 7 }, "threadId": "t-1", "replyTo": "me",
                "attachments": [{ "name": "log.txt", "data": "YWJj" }] }),
        )
        .await;
    let read = hub
        .call("email.read", json!({ "agent": "dev", "id": sent["id"] }))
        .await;
    assert_eq!(sent, read);
    assert_eq!(sent["status"], "delivered");
    hub.stop().await.unwrap();
}

/// A reply by `email.send` (`inReplyTo`) answers with the replier's copy as the reply wrote
/// it, wherever the core keeps that copy: a question's answerer keeps it in done/, where the
/// answer was once looked for in the outbox only (and the call failed after replying).
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_reply_by_send_answers_with_the_repliers_copy_even_of_a_question() {
    let hub = TestHub::start().await;
    let mut question = send_params("dev", "qa", "Which port?", "agent");
    question["type"] = json!("ASK");
    let asked = hub.call("email.send", question).await;
    let answered = hub
        .call(
            "email.send",
            json!({ "from": "qa", "to": ["dev"], "subject": "", "body": "8765", "sourceType": "agent", "inReplyTo": asked["id"] }),
        )
        .await;
    assert_eq!(answered["mailbox"], "qa", "{answered}");
    assert_eq!(answered["folder"], "done", "{answered}");
    assert_eq!(answered["replies"][0]["body"], "8765", "{answered}");
    let read = hub
        .call(
            "email.read",
            json!({ "agent": "qa", "id": answered["file"] }),
        )
        .await;
    assert_eq!(answered, read);
    hub.stop().await.unwrap();
}

/// `metadata` is the sender's own: it comes back with the names it was given, not renamed into
/// the wire's camelCase.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn metadata_comes_back_with_the_names_the_sender_gave() {
    let hub = TestHub::start().await;
    let metadata = json!({ "ticket_id": 7, "nested": { "build_no": "a_b" } });
    let mut params = send_params("dev", "qa", "with metadata", "agent");
    params["metadata"] = metadata.clone();
    let sent = hub.call("email.send", params).await;
    assert_eq!(sent["metadata"], metadata, "{sent}");
    let read = hub
        .call("email.read", json!({ "agent": "qa", "id": sent["id"] }))
        .await;
    assert_eq!(read["metadata"], metadata, "{read}");
    let listed = hub.call("email.inbox", json!({ "agent": "qa" })).await;
    assert_eq!(listed[0]["metadata"], metadata, "{listed}");
    hub.stop().await.unwrap();
}

/// Mail that came while no one used the index is in it once the mailbox has been quiet: the
/// next look-up does not catch up the burst itself.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_hub_brings_an_index_up_to_date_once_its_mailbox_is_quiet() {
    let hub = TestHub::start().await;
    let index = hub.mailbox("qa").join(".filebox");
    let holds = |id: &str| {
        ["index.db", "index.db-wal"].iter().any(|file| {
            std::fs::read(index.join(file)).is_ok_and(|bytes| {
                bytes
                    .windows(id.len())
                    .any(|window| window == id.as_bytes())
            })
        })
    };
    // The first may be taken in by the build at the start; the second only by a catch-up.
    for subject in ["first", "while idle"] {
        let sent = hub
            .call("email.send", send_params("dev", "qa", subject, "agent"))
            .await;
        let id = sent["id"].as_str().unwrap();
        let deadline = std::time::Instant::now() + support::GIVE_UP;
        while !holds(id) {
            assert!(
                std::time::Instant::now() < deadline,
                "{subject} never indexed"
            );
            tokio::time::sleep(std::time::Duration::from_millis(50)).await;
        }
    }
    hub.stop().await.unwrap();
}

/// Issue 35: a subject or metadata longer than a listing reads was acknowledged with a
/// Message ID and then never listed. Each is refused at the edge, naming the field and its
/// limit, and nothing is written.
#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_subject_or_metadata_over_its_bound_is_refused_and_nothing_is_written() {
    let hub = TestHub::start().await;
    let huge = "x".repeat(1_100_000);
    let error = hub
        .call_err("email.send", send_params("dev", "qa", &huge, "agent"))
        .await;
    assert_eq!(error["code"], 1009, "{error}");
    assert_eq!(error["data"]["kind"], "too_large", "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("title is 1100000 characters, over the limit of 1000 characters"),
        "{message}"
    );
    assert!(message.len() < 400, "the error does not repeat the value");

    let mut params = send_params("dev", "qa", "with metadata", "agent");
    params["metadata"] = json!({ "blob": "m".repeat(1_100_000) });
    let error = hub.call_err("email.send", params).await;
    assert_eq!(error["data"]["kind"], "too_large", "{error}");
    let message = error["message"].as_str().unwrap();
    assert!(
        message.contains("\"Metadata\"") && message.contains("over the limit of 65536 bytes"),
        "{message}"
    );
    assert!(hub.files("qa", "inbox").is_empty());
    assert!(hub.files("dev", "outbox").is_empty());

    // At the bounds, the message is sent, listed and read.
    let mut params = send_params("dev", "qa", &"s".repeat(1000), "agent");
    params["metadata"] = json!({ "blob": "m".repeat(60_000) });
    let sent = hub.call("email.send", params).await;
    let inbox = hub.call("email.inbox", json!({ "agent": "qa" })).await;
    assert_eq!(inbox[0]["id"], sent["id"], "{inbox}");
    hub.stop().await.unwrap();
}
