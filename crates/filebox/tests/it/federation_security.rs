//! Federation security against a real `nats-server`: each hub its own NATS user (a password,
//! or an NKey) whose permissions are DEPLOY.md's (a hub publishes only subjects whose second
//! token is itself and reads only through its own consumer), TLS with a client certificate
//! from certificates made here with `openssl`, and clear errors for a hub that has the wrong
//! password or does not trust the server.

use std::io::{BufRead, BufReader, Write};
use std::net::TcpStream;
use std::path::Path;
use std::process::Command;

use filebox_core::Folder;
use serde_json::{Value, json};

use crate::cluster::{Hub, Nats};

/// DEPLOY.md's permissions of hub `hub`'s NATS user, after `auth` (`user: ..., password:
/// ...` or `nkey: ...`).
fn hub_user(hub: &str, auth: &str) -> String {
    format!(
        r#"{{ {auth}, permissions: {{
      publish: {{ allow: ["filebox.*.{hub}.>",
                          "$JS.API.STREAM.INFO.FILEBOX",
                          "$JS.API.STREAM.CREATE.FILEBOX",
                          "$JS.API.CONSUMER.INFO.FILEBOX.hub-{hub}",
                          "$JS.API.CONSUMER.CREATE.FILEBOX.hub-{hub}",
                          "$JS.API.CONSUMER.CREATE.FILEBOX.hub-{hub}.>",
                          "$JS.API.CONSUMER.DURABLE.CREATE.FILEBOX.hub-{hub}",
                          "$JS.API.CONSUMER.MSG.NEXT.FILEBOX.hub-{hub}",
                          "$JS.ACK.FILEBOX.hub-{hub}.>"] }},
      subscribe: {{ allow: ["_INBOX.>"] }} }} }}"#
    )
}

/// Speak the NATS text protocol as `user`: connect, send `commands`, and return what the
/// server answered up to the PONG of a final PING (its `-ERR` lines, if any).
fn raw_nats(port: u16, user: &str, password: &str, commands: &str) -> String {
    let mut stream = TcpStream::connect(("127.0.0.1", port)).unwrap();
    let mut reader = BufReader::new(stream.try_clone().unwrap());
    let mut info = String::new();
    reader.read_line(&mut info).unwrap();
    assert!(info.starts_with("INFO"), "{info}");
    let connect = json!({ "user": user, "pass": password, "verbose": false, "pedantic": false });
    write!(stream, "CONNECT {connect}\r\n{commands}PING\r\n").unwrap();
    let mut answered = String::new();
    loop {
        let mut line = String::new();
        if reader.read_line(&mut line).unwrap() == 0 || line.starts_with("PONG") {
            return answered;
        }
        answered.push_str(&line);
    }
}

/// `federation status --json`'s connection as `agent` of `hub` (it exits non-zero when it is
/// not connected).
fn connection(hub: &Hub, agent: &str) -> String {
    let output = hub.cli(agent, &["--json", "federation", "status"]);
    let report: Value = serde_json::from_slice(&output.stdout).unwrap();
    let connection = report["connection"].as_str().unwrap().to_owned();
    assert_eq!(
        output.status.success(),
        connection == "connected",
        "{report}"
    );
    connection
}

/// Wait until the hub's log shows `text` (it prints each NATS event as it happens).
fn wait_for_log(hub: &Hub, text: &str) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while !hub.log().contains(text) {
        assert!(
            std::time::Instant::now() < deadline,
            "hub {} never logged {text:?}:\n{}",
            hub.name,
            hub.log()
        );
        std::thread::sleep(std::time::Duration::from_millis(50));
    }
}

#[test]
fn hubs_with_their_own_nats_users_exchange_mail_and_may_publish_only_as_themselves() {
    // ci-1 signs in with an NKey, laptop with a password.
    let ci_key = nkeys::KeyPair::new_user();
    let conf = format!(
        "authorization {{ users = [\n{},\n{}\n] }}\n",
        hub_user("laptop", r#"user: laptop, password: "laptop-secret""#),
        hub_user("ci-1", &format!("nkey: {}", ci_key.public_key())),
    );
    let nats = Nats::start_with(&conf);
    let mut laptop = Hub::new("laptop", &nats, &["alice"], &["bob@ci-1"]);
    let mut ci = Hub::new("ci-1", &nats, &["bob"], &[]);
    laptop.configure(|config| {
        config["federation"]["user"] = json!("laptop");
        config["federation"]["password"] = json!("laptop-secret");
    });
    std::fs::write(ci.path().join("ci-1.nk"), ci_key.seed().unwrap()).unwrap();
    ci.configure(|config| config["federation"]["nkey"] = json!("ci-1.nk"));
    laptop.start();
    ci.start();

    // Mail, its receipt and the answer all cross under these permissions.
    let id = laptop.ok(
        "alice",
        &["send", "bob@ci-1", "ER", "over authenticated NATS"],
    );
    let id = id.trim();
    ci.wait_for_id("bob", Folder::Inbox, id);
    ci.ok("bob", &["reply", id, "received"]);
    laptop.wait_for("alice", Folder::Inbox, "bob's answer", |l| {
        l.iter().any(|e| e.header.id() == id)
    });

    // laptop may not speak as another hub, nor read another hub's mail off the wire.
    let refused = raw_nats(
        nats.port,
        "laptop",
        "laptop-secret",
        "PUB filebox.ci-1.srv.mail.bob 5\r\nhello\r\nSUB filebox.ci-1.> 1\r\n",
    );
    assert!(
        refused.contains("Permissions Violation for Publish to \"filebox.ci-1.srv.mail.bob\""),
        "{refused}"
    );
    assert!(
        refused.contains("Permissions Violation for Subscription to \"filebox.ci-1.>\""),
        "{refused}"
    );
    assert_eq!(raw_nats(nats.port, "laptop", "laptop-secret", ""), "");

    // A wrong password is said plainly, by the status command and by a hub trying to start.
    let mut wrong = Hub::new("laptop", &nats, &["alice"], &["bob@ci-1"]);
    wrong.configure(|config| {
        config["federation"]["user"] = json!("laptop");
        config["federation"]["password"] = json!("not-the-secret");
    });
    let said = connection(&wrong, "alice");
    assert!(said.contains("authorization violation"), "{said}");
    wrong.start();
    wait_for_log(&wrong, "authorization violation");
}

/// Make a CA, a server certificate for 127.0.0.1 and a client certificate in `dir` with the
/// `openssl` command (scripts/test-all installs it).
fn make_certificates(dir: &Path) {
    let openssl = |args: &[&str]| {
        let output = Command::new("openssl")
            .args(args)
            .current_dir(dir)
            .output()
            .expect("openssl is not installed: scripts/test-all installs it");
        assert!(
            output.status.success(),
            "openssl {args:?}: {}",
            String::from_utf8_lossy(&output.stderr)
        );
    };
    let ec = [
        "-newkey",
        "ec",
        "-pkeyopt",
        "ec_paramgen_curve:prime256v1",
        "-nodes",
    ];
    let mut ca = vec!["req", "-x509", "-days", "2", "-subj", "/CN=filebox test CA"];
    ca.extend(ec);
    ca.extend(["-keyout", "ca.key", "-out", "ca.pem"]);
    openssl(&ca);
    for (name, extensions) in [
        (
            "server",
            "subjectAltName=IP:127.0.0.1\nextendedKeyUsage=serverAuth\n",
        ),
        ("client", "extendedKeyUsage=clientAuth\n"),
    ] {
        std::fs::write(dir.join(format!("{name}.ext")), extensions).unwrap();
        let mut request = vec!["req", "-subj"];
        let subject = format!("/CN={name}");
        request.push(&subject);
        request.extend(ec);
        let (key, csr, pem, ext) = (
            format!("{name}.key"),
            format!("{name}.csr"),
            format!("{name}.pem"),
            format!("{name}.ext"),
        );
        request.extend(["-keyout", &key, "-out", &csr]);
        openssl(&request);
        openssl(&[
            "x509",
            "-req",
            "-days",
            "2",
            "-in",
            &csr,
            "-CA",
            "ca.pem",
            "-CAkey",
            "ca.key",
            "-CAcreateserial",
            "-extfile",
            &ext,
            "-out",
            &pem,
        ]);
    }
}

#[test]
fn hubs_talk_over_tls_with_client_certificates_and_refuse_what_they_cannot_verify() {
    let prepared = Nats::prepare();
    let certs = prepared.path().join("certs");
    std::fs::create_dir(&certs).unwrap();
    make_certificates(&certs);
    let at = |name: &str| certs.join(name).display().to_string();
    let conf = format!(
        "tls {{ cert_file: \"{}\", key_file: \"{}\", ca_file: \"{}\", verify: true, timeout: 5 }}\n",
        at("server.pem"),
        at("server.key"),
        at("ca.pem")
    );
    let nats = prepared.run(&conf);
    let url = format!("tls://127.0.0.1:{}", nats.port);
    let tls = json!({ "ca": at("ca.pem"), "cert": at("client.pem"), "key": at("client.key") });
    let mut laptop = Hub::new("laptop", &nats, &["alice"], &["bob@ci-1"]);
    let mut ci = Hub::new("ci-1", &nats, &["bob"], &[]);
    for hub in [&laptop, &ci] {
        hub.configure(|config| {
            config["federation"]["nats"] = json!(url);
            config["federation"]["tls"] = tls.clone();
        });
    }
    laptop.start();
    ci.start();
    let id = laptop.ok("alice", &["send", "bob@ci-1", "ER", "over TLS"]);
    ci.wait_for_id("bob", Folder::Inbox, id.trim());
    assert_eq!(connection(&laptop, "alice"), "connected");

    // Without a client certificate the server refuses; without the CA, the hub refuses the
    // server. Both are said, not hung on.
    let stranger = Hub::new("laptop", &nats, &["alice"], &["bob@ci-1"]);
    stranger.configure(|config| {
        config["federation"]["nats"] = json!(url);
        config["federation"]["tls"] = json!({ "ca": at("ca.pem") });
    });
    let said = connection(&stranger, "alice");
    assert!(
        said.starts_with(&format!("connecting to NATS at {url}")),
        "{said}"
    );
    let trusting_nobody = Hub::new("laptop", &nats, &["alice"], &["bob@ci-1"]);
    trusting_nobody.configure(|config| {
        config["federation"]["nats"] = json!(url);
        config["federation"]["tls"] = json!({ "cert": at("client.pem"), "key": at("client.key") });
    });
    let said = connection(&trusting_nobody, "alice");
    assert!(
        said.starts_with(&format!("connecting to NATS at {url}")),
        "{said}"
    );
    assert!(said.to_lowercase().contains("certificate"), "{said}");
}
