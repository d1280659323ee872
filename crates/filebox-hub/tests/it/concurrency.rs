//! Many `email.send` calls at once into one inbox: the hub's deliveries run in parallel and
//! share their directory fsyncs (group commit), and still every acknowledged message is there
//! exactly once, in the inbox and in the sender's outbox, with nothing left in `tmp/`.

use crate::support;

use std::collections::BTreeSet;

use serde_json::{Value, json};
use support::{TestHub, request};

const SENDS: usize = 48;

#[tokio::test(flavor = "multi_thread", worker_threads = 4)]
async fn concurrent_sends_into_one_inbox_are_each_delivered_once() {
    let hub = TestHub::start().await;
    let mut calls = tokio::task::JoinSet::new();
    for n in 0..SENDS {
        let (addr, host) = (hub.addr, hub.addr.to_string());
        calls.spawn(async move {
            let params = json!({ "from": "qa", "to": ["dev"], "subject": format!("send {n}"), "body": format!("body {n}"), "sourceType": "agent" });
            let call = json!({ "jsonrpc": "2.0", "id": n, "method": "email.send", "params": params });
            let headers = [("Host", host.as_str()), ("Content-Type", "application/json")];
            let response = request(addr, "POST", "/rpc", &headers, call.to_string().as_bytes()).await;
            assert_eq!(response.status, 200, "{}", response.body);
            serde_json::from_str::<Value>(&response.body).unwrap()["result"].clone()
        });
    }
    let sent = calls.join_all().await;
    let ids: BTreeSet<String> = sent
        .iter()
        .map(|email| email["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(ids.len(), SENDS, "every send acknowledged with its own id");

    let inbox = hub.call("email.inbox", json!({ "agent": "dev" })).await;
    let delivered: BTreeSet<String> = inbox
        .as_array()
        .unwrap()
        .iter()
        .map(|email| email["id"].as_str().unwrap().to_owned())
        .collect();
    assert_eq!(delivered, ids, "each acknowledged message is in the inbox");
    assert_eq!(hub.files("dev", "inbox").len(), SENDS, "and only once");
    assert_eq!(hub.files("qa", "outbox").len(), SENDS);
    assert!(hub.files("dev", "tmp").is_empty());
    assert!(hub.files("qa", "tmp").is_empty());
    hub.stop().await.unwrap();
}
