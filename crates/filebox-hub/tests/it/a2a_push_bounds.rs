//! Push-notification configs: one given with a streaming send is kept like any; and configs built to hurt: URLs beside the one the allow-list names (another
//! port, `localhost`, IPv6 loopback, a user name before the host, another scheme), tokens and
//! credentials too large or unfit for a header, and more configs on one task than a task needs,
//! each refused before anything is kept; and a receiver that answers with a redirect.

use crate::a2a::{
    call, call_err, hub_allowing, next_data, next_push, push_configs, push_receiver, stream,
    text_message,
};
use crate::support::{self, TestHub};

use serde_json::{Value, json};

/// A hub whose `hub.callback_allow` names `http://127.0.0.1:<port>/hooks` of a receiver on
/// port 0, with one task of dev; the receiver's port.
async fn hub_with_a_task() -> (TestHub, String, u16) {
    let (receiver, received) = push_receiver().await;
    // Deliveries to the allowed URL are taken and dropped.
    drop(received);
    let port = url::Url::parse(&receiver).unwrap().port().unwrap();
    let hub = hub_allowing(&format!("http://127.0.0.1:{port}/hooks")).await;
    let sent = call(&hub, "dev", "SendMessage", text_message("p-1", "push me")).await;
    let id = sent["task"]["id"].as_str().unwrap().to_owned();
    (hub, id, port)
}

fn kept(hub: &TestHub) -> bool {
    hub.dir
        .path()
        .join(".filebox/a2a/push")
        .read_dir()
        .is_ok_and(|mut d| d.next().is_some())
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_url_beside_the_allowed_one_is_refused() {
    let (hub, id, port) = hub_with_a_task().await;
    for url in [
        format!("http://127.0.0.1:{}/hooks", port + 1),
        format!("http://localhost:{port}/hooks"),
        format!("http://[::1]:{port}/hooks"),
        format!("http://127.0.0.2:{port}/hooks"),
        format!("http://127.0.0.1:{port}@10.0.0.1/hooks"),
        format!("http://me@127.0.0.1:{port}/hooks"),
        format!("https://127.0.0.1:{port}/hooks"),
        format!("http://127.0.0.1:{port}/hooksx"),
        format!("http://127.0.0.1:{port}/other/../../admin"),
        "file:///etc/passwd".to_owned(),
    ] {
        let error = call_err(
            &hub,
            "dev",
            "CreateTaskPushNotificationConfig",
            json!({ "taskId": id, "url": url }),
        )
        .await;
        assert_eq!(error["code"], -32602, "{url}: {error}");
    }
    assert!(!kept(&hub), "a refused config was kept");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn push_tokens_and_credentials_that_no_header_can_carry_are_refused() {
    let (hub, id, port) = hub_with_a_task().await;
    let url = format!("http://127.0.0.1:{port}/hooks/a2a");
    let huge = "t".repeat(1_000_000);
    let cases: Vec<(&str, Value)> = vec![
        ("a 1 MB token", json!({ "token": huge })),
        (
            "a token with a line break",
            json!({ "token": "a\r\nX-Evil: 1" }),
        ),
        (
            "1 MB credentials",
            json!({ "authentication": { "scheme": "Bearer", "credentials": huge } }),
        ),
        (
            "credentials with a line break",
            json!({ "authentication": { "scheme": "Bearer", "credentials": "a\nb" } }),
        ),
        (
            "a scheme with a space",
            json!({ "authentication": { "scheme": "Bearer x", "credentials": "c" } }),
        ),
        ("a 1 MB config id", json!({ "id": huge })),
    ];
    for (what, extra) in cases {
        let mut params = json!({ "taskId": id, "url": url });
        params
            .as_object_mut()
            .unwrap()
            .extend(extra.as_object().unwrap().clone());
        let error = call_err(&hub, "dev", "CreateTaskPushNotificationConfig", params).await;
        assert_eq!(error["code"], -32602, "{what}: {:.300}", error.to_string());
        assert!(
            error.to_string().len() < 4096,
            "{what}: the error echoes the field"
        );
    }
    assert!(!kept(&hub), "a refused config was kept");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_task_keeps_a_bounded_number_of_push_configs() {
    let (hub, id, port) = hub_with_a_task().await;
    let url = format!("http://127.0.0.1:{port}/hooks/a2a");
    let create = |n: usize| json!({ "taskId": id, "id": format!("cfg-{n}"), "url": url });
    for n in 0..10 {
        call(&hub, "dev", "CreateTaskPushNotificationConfig", create(n)).await;
    }
    // The same id again replaces; a new one past the bound is refused.
    call(&hub, "dev", "CreateTaskPushNotificationConfig", create(3)).await;
    let error = call_err(&hub, "dev", "CreateTaskPushNotificationConfig", create(10)).await;
    assert_eq!(error["code"], -32602, "{error}");
    assert!(error["message"].as_str().unwrap().contains("10"), "{error}");
    let listed = push_configs(&hub, &id).await;
    assert_eq!(listed["configs"].as_array().unwrap().len(), 10, "{listed}");
    hub.stop().await.unwrap();
}

/// A receiver that answers every POST with a redirect to `to`, counting what it got.
async fn redirecting_receiver(to: String) -> (u16, tokio::sync::mpsc::UnboundedReceiver<()>) {
    let (sink, received) = tokio::sync::mpsc::unbounded_channel();
    let app = axum::Router::new().fallback(axum::routing::post(move || {
        let (sink, to) = (sink.clone(), to.clone());
        async move {
            let _ = sink.send(());
            (
                axum::http::StatusCode::TEMPORARY_REDIRECT,
                [(axum::http::header::LOCATION, to)],
            )
        }
    }));
    let listener = tokio::net::TcpListener::bind("127.0.0.1:0").await.unwrap();
    let port = listener.local_addr().unwrap().port();
    tokio::spawn(async move { axum::serve(listener, app).await });
    (port, received)
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_answered_with_a_redirect_is_tried_again_never_followed() {
    // Where the redirect leads: not in the allow-list, and it must never be posted to.
    let (elsewhere, mut followed) = push_receiver().await;
    let (port, mut tried) = redirecting_receiver(format!("{elsewhere}stolen")).await;
    let hub = hub_allowing(&format!("http://127.0.0.1:{port}/hooks")).await;
    let sent = call(&hub, "dev", "SendMessage", text_message("r-1", "push me")).await;
    call(
        &hub,
        "dev",
        "CreateTaskPushNotificationConfig",
        json!({ "taskId": sent["task"]["id"], "url": format!("http://127.0.0.1:{port}/hooks/a2a") }),
    )
    .await;
    // The first try and the retry after it: a redirect followed would have come between them.
    for _ in 0..2 {
        tokio::time::timeout(support::GIVE_UP, tried.recv())
            .await
            .expect("a delivery in time")
            .unwrap();
    }
    assert!(
        followed.try_recv().is_err(),
        "the hub followed a redirect out of the allow-list"
    );
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_push_config_given_with_a_streaming_send_is_kept_and_delivered() {
    let (url, mut received) = push_receiver().await;
    let hub = hub_allowing(&url).await;
    let mut params = text_message("s-push", "Stream me and tell my receiver");
    params["configuration"] =
        json!({ "taskPushNotificationConfig": { "url": url, "token": "stream-1" } });
    let body =
        json!({ "jsonrpc": "2.0", "id": 9, "method": "SendStreamingMessage", "params": params });
    let mut events = stream(&hub, "dev", body).await;
    let first = next_data(&mut events).await.unwrap();
    let id = first["result"]["task"]["id"].as_str().unwrap().to_owned();

    let (headers, pushed) = next_push(&mut received).await;
    assert_eq!(pushed["task"]["id"], id.as_str(), "{pushed}");
    assert_eq!(headers["x-a2a-notification-token"], "stream-1");
    let listed = push_configs(&hub, &id).await;
    assert_eq!(
        listed["configs"].as_array().map(Vec::len),
        Some(1),
        "{listed}"
    );
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_retried_send_with_a_push_config_and_no_id_keeps_one_config() {
    let (url, _received) = push_receiver().await;
    let hub = hub_allowing(&url).await;
    let mut params = text_message("again-1", "Tell my receiver, once");
    params["configuration"] = json!({ "taskPushNotificationConfig": { "url": url } });
    let first = call(&hub, "dev", "SendMessage", params.clone()).await;
    let again = call(&hub, "dev", "SendMessage", params).await;
    let id = first["task"]["id"].as_str().unwrap().to_owned();
    assert_eq!(
        again["task"]["id"],
        id.as_str(),
        "the same messageId, the same task"
    );
    let listed = push_configs(&hub, &id).await;
    assert_eq!(
        listed["configs"].as_array().map(Vec::len),
        Some(1),
        "a retry must not deliver each state twice: {listed}"
    );
    hub.stop().await.unwrap();
}
