//! `/attachments`: whatever another program attached (an SVG or HTML file with script, a
//! picture) is served as a file to save, sandboxed and not sniffed, to a `GET` with the token in
//! `Authorization` and to the page's download form that posts it; a refusal is sandboxed too.

use crate::support;

use serde_json::json;
use support::{Response, TestHub, give_token, request};

/// `(name, bytes)` of the files dev attaches: two that run script when a browser renders them
/// as documents, and a picture.
const FILES: [(&str, &str); 3] = [
    (
        "evil.svg",
        r#"<svg xmlns="http://www.w3.org/2000/svg"><script>fetch("/rpc")</script></svg>"#,
    ),
    ("evil.html", r#"<script>fetch("/rpc")</script>"#),
    ("pixel.png", "\u{89}PNG\r\n\u{1a}\n"),
];

/// dev sends qa a message with [`FILES`] attached; its Message ID.
async fn send_files(hub: &TestHub) -> String {
    use base64::Engine as _;
    let attachments: Vec<_> = FILES
        .iter()
        .map(|(name, bytes)| {
            json!({ "name": name, "data": base64::engine::general_purpose::STANDARD.encode(bytes) })
        })
        .collect();
    let sent = hub
        .call(
            "email.send",
            json!({
                "from": "dev", "to": ["qa"], "subject": "files", "body": "see the files",
                "sourceType": "agent", "attachments": attachments,
            }),
        )
        .await;
    sent["id"].as_str().unwrap().to_owned()
}

/// The headers every answer of the route carries, file or refusal.
fn assert_sandboxed(response: &Response, what: &str) {
    assert_eq!(
        response.header("content-security-policy"),
        Some("sandbox; default-src 'none'"),
        "{what}"
    );
    assert_eq!(
        response.header("x-content-type-options"),
        Some("nosniff"),
        "{what}"
    );
}

/// The page's download form posting `token`.
async fn post_form(hub: &TestHub, path: &str, body: &str) -> Response {
    let host = hub.addr.to_string();
    let headers = [
        ("Host", host.as_str()),
        ("Origin", &format!("http://{host}")),
        ("Content-Type", "application/x-www-form-urlencoded"),
    ];
    request(hub.addr, "POST", path, &headers, body.as_bytes()).await
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_attachment_is_a_sandboxed_file_to_save() {
    let hub = TestHub::start().await;
    let id = send_files(&hub).await;
    for (name, bytes) in FILES {
        let served = hub.get(&format!("/attachments/qa/{id}/{name}"), &[]).await;
        assert_eq!(served.status, 200, "{name}: {}", served.body);
        assert_eq!(served.body.as_bytes(), bytes.as_bytes(), "{name}");
        assert_sandboxed(&served, name);
        assert_eq!(
            served.header("content-disposition"),
            Some(format!("attachment; filename=\"{name}\"").as_str()),
            "{name}"
        );
    }
    let missing = hub
        .get(&format!("/attachments/qa/{id}/none.svg"), &[])
        .await;
    assert_eq!(missing.status, 404);
    assert_sandboxed(&missing, "a missing file");
    hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn the_download_form_carries_the_token_in_its_body() {
    let hub = TestHub::start().await;
    let token = give_token(&hub, "qa");
    let id = send_files(&hub).await;
    let path = format!("/attachments/qa/{id}/evil.svg");

    let without = post_form(&hub, &path, "").await;
    assert_eq!(without.status, 401, "{}", without.body);
    assert_sandboxed(&without, "a refused download");
    let wrong = post_form(&hub, &path, "token=not-the-token").await;
    assert_eq!(wrong.status, 401, "{}", wrong.body);

    let saved = post_form(&hub, &path, &format!("token={token}")).await;
    assert_eq!(saved.status, 200, "{}", saved.body);
    assert_eq!(saved.body, FILES[0].1);
    assert_sandboxed(&saved, "a download");
    assert_eq!(
        saved.header("content-disposition"),
        Some("attachment; filename=\"evil.svg\"")
    );
    // The same file to a GET with the token in its header.
    let bearer = format!("Bearer {token}");
    let got = hub.get(&path, &[("Authorization", &bearer)]).await;
    assert_eq!((got.status, got.body), (200, FILES[0].1.to_owned()));
    hub.stop().await.unwrap();
}
