//! The authorization matrix: one table of (surface × verb × caller) → allowed or refused, run
//! against a real hub on every surface (JSON-RPC over TCP and the Unix socket, the verbs by
//! their names and the `email.*` aliases, `/events`, `/mcp`, Connect, attachments, the origin's
//! human client at `/ws`, A2A's agent endpoints). Every verb
//! of the table must have a row, so a new verb cannot ship unchecked.
//!
//! The config: `me` (human), `dev` and `qa` (agents) hold tokens; `ops` has none and is the
//! hub's own agent (`/mcp`, Connect without a token); `system` and `bob@elsewhere` (a stand-in
//! of an agent elsewhere) have none and are the hub's own mailboxes. `dev` sent `qa` a message, so the thread
//! is held only in token-protected mailboxes; `ops` sent `me` one.

use crate::support;

use serde_json::{Value, json};
use support::{TestHub, give_token, write_config, ws};
use tokio::io::{AsyncReadExt, AsyncWriteExt};

/// Who calls.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Caller {
    /// No token.
    Nobody,
    /// `dev`'s token: the target's own.
    Own,
    /// `qa`'s token: another agent's.
    Other,
    /// `me`'s token: the human's.
    Human,
}

const CALLERS: [Caller; 4] = [Caller::Nobody, Caller::Own, Caller::Other, Caller::Human];
const ONLY_OWN: &[Caller] = &[Caller::Own];

/// The hub, the four callers' tokens and the ids the rows name.
struct World {
    hub: TestHub,
    tokens: [(Caller, Option<String>); 4],
    /// dev → qa: held only by token-protected mailboxes.
    private: String,
}

impl World {
    async fn start() -> World {
        let dir = tempfile::tempdir().unwrap();
        let config = write_config(
            dir.path(),
            &[
                ("ops", "agent"),
                ("me", "human"),
                ("dev", "agent"),
                ("qa", "agent"),
                ("system", "agent"),
                ("bob@elsewhere", "agent"),
            ],
        );
        let hub = TestHub::start_in(dir, config).await;
        // Sent before the tokens exist: the files are there whoever asks later.
        let private = hub
            .call(
                "email.send",
                json!({ "from": "dev", "to": ["qa"], "subject": "private plan", "body": "secret-dev-qa", "sourceType": "agent" }),
            )
            .await["id"]
            .as_str()
            .unwrap()
            .to_owned();
        hub.call(
            "email.send",
            json!({ "from": "ops", "to": ["me"], "subject": "open note", "body": "public-ops", "sourceType": "agent" }),
        )
        .await;
        let tokens = [
            (Caller::Nobody, None),
            (Caller::Own, Some(give_token(&hub, "dev"))),
            (Caller::Other, Some(give_token(&hub, "qa"))),
            (Caller::Human, Some(give_token(&hub, "me"))),
        ];
        World {
            hub,
            tokens,
            private,
        }
    }

    fn bearer(&self, caller: Caller) -> Option<String> {
        self.tokens
            .iter()
            .find(|(c, _)| *c == caller)
            .and_then(|(_, token)| token.as_ref())
            .map(|token| format!("Bearer {token}"))
    }

    /// A JSON-RPC call over TCP: the answer's body.
    async fn rpc(&self, caller: Caller, method: &str, params: Value) -> Value {
        self.rpc_at("/rpc", caller, method, params).await
    }

    /// [`World::rpc`] at another endpoint (an A2A agent's, `/a2a/<agent>`).
    async fn rpc_at(&self, path: &str, caller: Caller, method: &str, params: Value) -> Value {
        let body = json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params });
        let bearer = self.bearer(caller);
        let headers: Vec<(&str, &str)> = bearer
            .iter()
            .map(|b| ("Authorization", b.as_str()))
            .collect();
        let response = self
            .hub
            .post(path, &headers, body.to_string().as_bytes())
            .await;
        serde_json::from_str(&response.body)
            .unwrap_or_else(|e| panic!("{method}: {e}: {}", response.body))
    }

    /// A JSON-RPC call over the hub's Unix socket.
    async fn socket_rpc(&self, caller: Caller, method: &str, params: Value) -> Value {
        let path = self
            .hub
            .dir
            .path()
            .join(".filebox")
            .join(filebox_hub::SOCKET_NAME);
        let body =
            json!({ "jsonrpc": "2.0", "id": 1, "method": method, "params": params }).to_string();
        let mut head = format!(
            "POST /rpc HTTP/1.1\r\nHost: localhost\r\nConnection: close\r\nContent-Type: application/json\r\nContent-Length: {}\r\n",
            body.len()
        );
        if let Some(bearer) = self.bearer(caller) {
            head.push_str(&format!("Authorization: {bearer}\r\n"));
        }
        let mut stream = tokio::net::UnixStream::connect(&path).await.unwrap();
        stream
            .write_all(format!("{head}\r\n{body}").as_bytes())
            .await
            .unwrap();
        let mut raw = String::new();
        stream.read_to_string(&mut raw).await.unwrap();
        let (_, body) = raw.split_once("\r\n\r\n").unwrap();
        serde_json::from_str(body).unwrap_or_else(|e| panic!("{method}: {e}: {body}"))
    }

    /// The status of a GET.
    async fn get_status(&self, caller: Caller, path: &str) -> u16 {
        let bearer = self.bearer(caller);
        let headers: Vec<(&str, &str)> = bearer
            .iter()
            .map(|b| ("Authorization", b.as_str()))
            .collect();
        if path.starts_with("/events") {
            // A stream never ends: only its status line is read.
            return support::Events::status(&self.hub, path, &headers).await;
        }
        self.hub.get(path, &headers).await.status
    }

    /// An MCP session at `/mcp`: its id, or the refusal's status.
    async fn mcp_open(&self, caller: Caller) -> Result<String, u16> {
        let initialize = json!({ "jsonrpc": "2.0", "id": 1, "method": "initialize", "params": { "protocolVersion": "2025-06-18", "capabilities": {}, "clientInfo": { "name": "matrix", "version": "1" } } });
        let response = self.mcp_post(caller, None, &initialize).await;
        if response.status != 200 {
            return Err(response.status);
        }
        let session = response.header("mcp-session-id").unwrap().to_owned();
        let initialized = json!({ "jsonrpc": "2.0", "method": "notifications/initialized" });
        self.mcp_post(caller, Some(&session), &initialized).await;
        Ok(session)
    }

    /// The names of the tools an open MCP session (without a token) lists.
    async fn mcp_list_tools(&self, session: &str) -> Vec<String> {
        let list = json!({ "jsonrpc": "2.0", "id": 3, "method": "tools/list" });
        let response = self.mcp_post(Caller::Nobody, Some(session), &list).await;
        let data = response
            .body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .find(|data| data.contains("\"tools\""))
            .unwrap_or_else(|| panic!("no tool list in {}", response.body));
        let listed: Value = serde_json::from_str(data.trim()).unwrap();
        listed["result"]["tools"]
            .as_array()
            .unwrap()
            .iter()
            .map(|tool| tool["name"].as_str().unwrap().to_owned())
            .collect()
    }

    /// A tool's result (structured content and text) in an open MCP session.
    async fn mcp_tool(&self, caller: Caller, session: &str, tool: &str, args: Value) -> Value {
        let call = json!({ "jsonrpc": "2.0", "id": 2, "method": "tools/call", "params": { "name": tool, "arguments": args } });
        let response = self.mcp_post(caller, Some(session), &call).await;
        assert_eq!(response.status, 200, "{tool}: {}", response.body);
        let data = response
            .body
            .lines()
            .filter_map(|line| line.strip_prefix("data:"))
            .map(str::trim)
            .find(|data| data.contains("\"result\""))
            .unwrap_or_else(|| panic!("{tool}: no result in {}", response.body));
        serde_json::from_str::<Value>(data).unwrap()["result"].clone()
    }

    async fn mcp_post(
        &self,
        caller: Caller,
        session: Option<&str>,
        body: &Value,
    ) -> support::Response {
        let bearer = self.bearer(caller);
        let mut headers = vec![
            ("Accept", "application/json, text/event-stream"),
            ("MCP-Protocol-Version", "2025-06-18"),
        ];
        headers.extend(bearer.iter().map(|b| ("Authorization", b.as_str())));
        headers.extend(session.map(|s| ("Mcp-Session-Id", s)));
        self.hub
            .post("/mcp", &headers, body.to_string().as_bytes())
            .await
    }

    /// A Connect `AskQuestion` with `token` as `UserToken`: its HTTP status and Connect code.
    async fn connect_ask(&self, token: &str) -> (u16, String) {
        let body = json!({ "ID": "matrix", "UserToken": token, "Request": { "ProjectDirectory": "/src", "Question": "ok?", "Timeout": 1 } });
        let response = self
            .hub
            .post(
                "/agentassistproto.SrvAgentAssist/AskQuestion",
                &[("Connect-Protocol-Version", "1")],
                body.to_string().as_bytes(),
            )
            .await;
        let code = serde_json::from_str::<Value>(&response.body)
            .ok()
            .and_then(|v| v["code"].as_str().map(str::to_owned))
            .unwrap_or_default();
        (response.status, code)
    }
}

impl World {
    /// Log in at `/ws` with `caller`'s token (none: an empty one): whether the hub accepted it.
    async fn ws_login(&self, caller: Caller) -> bool {
        let token = self
            .bearer(caller)
            .map(|b| b.replace("Bearer ", ""))
            .unwrap_or_default();
        let mut socket = ws::connect(self.hub.addr).await;
        let login = ws::log_in(&mut socket, &token).await;
        let _ = socket.close(None).await;
        login.success
    }
}

/// Whether a JSON-RPC answer is the access policy's refusal (anything else, a result or a
/// domain error, means the call got past it).
fn refused(answer: &Value) -> bool {
    matches!(
        answer["error"]["data"]["kind"].as_str(),
        Some("unauthorized" | "forbidden")
    )
}

/// Whether a call got past the policy: for a read of another's thread, whether it showed it
/// (out of reach it is not found, as if it did not exist); else whether it was not refused.
fn shown(method: &str, params: &Value, answer: &Value) -> bool {
    if method == "email.thread" && params.get("agent").is_none() {
        answer["result"].is_object()
    } else {
        !refused(answer)
    }
}

/// Who may call a verb of the table as `dev`: dev's own token, except for the verbs on the
/// host's own files (Claude Code's team inboxes), which no caller of the hub may run.
fn verb_callers(verb: &filebox_api::VerbInfo) -> &'static [Caller] {
    if verb.uses_host_files() {
        &[]
    } else {
        ONLY_OWN
    }
}

/// Arguments for each verb of the table, acting as `dev`: valid enough that an allowed call
/// gets past the access check, harmless when it runs.
fn verb_args(verb: &str, private: &str) -> Value {
    let args = match verb {
        "list_messages" | "list_agents" | "list_threads" | "open_questions" | "reindex"
        | "list_teams" => json!({}),
        "read_message" | "message_status" | "get_thread" | "get_answer" => json!({ "id": private }),
        "send_message" => json!({ "to": "qa", "type": "DIS", "content": "matrix" }),
        "reply_message" => json!({ "id": "no-such-message", "content": "x" }),
        "resolve_message" => json!({ "id": "no-such-message", "details": "x" }),
        "reject_message" | "hold_message" => json!({ "id": "no-such-message", "reason": "x" }),
        "wait_for_messages" => json!({ "timeout": 0 }),
        "search_messages" => json!({ "query": "secret" }),
        "fork_thread" => {
            json!({ "from": "no-such-message", "reason": "direction-change", "context": "x" })
        }
        "ask_question" => json!({ "project_directory": "/src", "question": "ok?", "timeout": 1 }),
        "task_finish" | "work_report" => {
            json!({ "project_directory": "/src", "summary": "done", "timeout": 1 })
        }
        "team_inbox" | "read_team_inbox" => json!({ "team": "no-such-team", "member": "x" }),
        "send_team_message" => json!({ "team": "no-such-team", "to": "x", "text": "x" }),
        other => panic!("the matrix has no row for the verb {other}: add one"),
    };
    let mut args = args;
    args["agent"] = json!("dev");
    args
}

/// The `email.*` aliases and the other hub methods, acting as `dev` (or reading its thread),
/// with who may call each.
fn method_rows(private: &str) -> Vec<(&'static str, Value, &'static [Caller])> {
    const HOLDERS: &[Caller] = &[Caller::Own, Caller::Other];
    const EVERYONE: &[Caller] = &CALLERS;
    vec![
        ("email.inbox", json!({ "agent": "dev" }), ONLY_OWN),
        (
            "email.read",
            json!({ "agent": "dev", "id": private }),
            ONLY_OWN,
        ),
        (
            "email.send",
            json!({ "from": "dev", "to": ["qa"], "subject": "s", "body": "b", "sourceType": "agent" }),
            ONLY_OWN,
        ),
        (
            "email.send",
            json!({ "from": "dev", "to": ["qa"], "subject": "s", "body": "b", "sourceType": "system" }),
            ONLY_OWN,
        ),
        (
            "email.reply",
            json!({ "from": "dev", "id": "no-such", "body": "b" }),
            ONLY_OWN,
        ),
        ("email.threads", json!({ "agent": "dev" }), ONLY_OWN),
        (
            "email.thread",
            json!({ "agent": "dev", "id": private }),
            ONLY_OWN,
        ),
        // Without `agent`: the thread as the caller's reach holds it, i.e. only its holders
        // (see `shown`).
        ("email.thread", json!({ "id": private }), HOLDERS),
        (
            "email.fork",
            json!({ "from": "dev", "forkFrom": "no-such", "forkReason": "direction-change", "compressedContext": "c" }),
            ONLY_OWN,
        ),
        (
            "email.status",
            json!({ "agent": "dev", "id": private }),
            ONLY_OWN,
        ),
        (
            "email.resolve",
            json!({ "agent": "dev", "id": "no-such", "details": "x" }),
            ONLY_OWN,
        ),
        (
            "email.reject",
            json!({ "agent": "dev", "id": "no-such", "details": "x" }),
            ONLY_OWN,
        ),
        (
            "email.hold",
            json!({ "agent": "dev", "id": "no-such", "details": "x" }),
            ONLY_OWN,
        ),
        (
            "email.search",
            json!({ "agent": "dev", "query": "secret" }),
            ONLY_OWN,
        ),
        ("questions.open", json!({ "agent": "dev" }), ONLY_OWN),
        // A mailbox without a token: any caller without one, no token of another agent.
        ("email.inbox", json!({ "agent": "ops" }), &[Caller::Nobody]),
        // The hub's own mailboxes: no caller of the hub, though they have no token.
        ("email.inbox", json!({ "agent": "system" }), &[]),
        ("email.inbox", json!({ "agent": "bob@elsewhere" }), &[]),
        (
            "email.send",
            json!({ "from": "system", "to": ["dev"], "subject": "s", "body": "b", "sourceType": "system" }),
            &[],
        ),
        // The directory of agents is no secret (counts are: see below).
        ("agents.list", json!({}), EVERYONE),
        ("rpc.discover", json!({}), EVERYONE),
    ]
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn every_surface_asks_the_one_policy() {
    let world = World::start().await;
    let mut failures = Vec::new();
    let mut check = |row: String, caller: Caller, allowed: bool, wanted: &[Caller]| {
        if allowed != wanted.contains(&caller) {
            failures.push(format!("{row} as {caller:?}: allowed={allowed}"));
        }
    };

    // JSON-RPC: every verb by its name, over TCP and over the Unix socket.
    for verb in filebox_api::verbs::TABLE {
        let args = verb_args(verb.name, &world.private);
        for caller in CALLERS {
            let tcp = world.rpc(caller, verb.name, args.clone()).await;
            check(
                format!("rpc {}", verb.name),
                caller,
                !refused(&tcp),
                verb_callers(verb),
            );
            let socket = world.socket_rpc(caller, verb.name, args.clone()).await;
            check(
                format!("socket {}", verb.name),
                caller,
                !refused(&socket),
                verb_callers(verb),
            );
        }
    }
    // The aliases and the hub's methods.
    for (method, params, wanted) in method_rows(&world.private) {
        for caller in CALLERS {
            let answer = world.rpc(caller, method, params.clone()).await;
            let allowed = shown(method, &params, &answer);
            check(format!("rpc {method} {params}"), caller, allowed, wanted);
        }
    }
    // Live events of dev's mailbox; attachments of dev's mailbox (404 once allowed: none there).
    for caller in CALLERS {
        let events = world.get_status(caller, "/events?agent=dev").await;
        check(
            "GET /events?agent=dev".into(),
            caller,
            events == 200,
            ONLY_OWN,
        );
        let attachment = world
            .get_status(caller, &format!("/attachments/dev/{}/a.png", world.private))
            .await;
        let allowed = !matches!(attachment, 401 | 403);
        check("GET /attachments/dev/…".into(), caller, allowed, ONLY_OWN);
    }
    // /mcp serves ops, which has no token: a caller without one only (a token is someone else).
    for caller in CALLERS {
        let opened = world.mcp_open(caller).await;
        check(
            "/mcp initialize".into(),
            caller,
            opened.is_ok(),
            &[Caller::Nobody],
        );
    }
    // Connect: each known token asks as its own agent; an unknown one is refused.
    for caller in [Caller::Own, Caller::Other, Caller::Human] {
        let token = world.bearer(caller).unwrap().replace("Bearer ", "");
        let (status, code) = world.connect_ask(&token).await;
        let allowed = !matches!(code.as_str(), "unauthenticated" | "permission_denied");
        check(
            format!("Connect AskQuestion ({status} {code})"),
            caller,
            allowed,
            &CALLERS,
        );
    }
    let (status, code) = world.connect_ask("not-a-token").await;
    assert_eq!((status, code.as_str()), (401, "unauthenticated"));
    // A2A: an agent's endpoint takes a message from whoever may act for that agent; the hub's
    // own mailboxes are no A2A agents.
    for (agent, wanted) in [
        ("dev", ONLY_OWN),
        ("ops", &[Caller::Nobody][..]),
        ("system", &[][..]),
    ] {
        for caller in CALLERS {
            let params = json!({ "message": {
                "messageId": format!("access-{agent}-{caller:?}"), "role": "ROLE_USER",
                "parts": [{ "text": "from A2A" }],
            } });
            let path = format!("/a2a/{agent}");
            let answer = world.rpc_at(&path, caller, "SendMessage", params).await;
            check(
                format!("A2A SendMessage to {agent}"),
                caller,
                answer.get("result").is_some(),
                wanted,
            );
        }
    }
    // /ws (the origin's human client): only the human's token logs in; an agent's token is
    // not a human's, and no token may not act as `me`, who has one.
    for caller in CALLERS {
        let logged_in = world.ws_login(caller).await;
        check("/ws UserLogin".into(), caller, logged_in, &[Caller::Human]);
    }

    assert!(failures.is_empty(), "{}", failures.join("\n"));
    world.hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_caller_sees_nothing_of_mailboxes_out_of_its_reach() {
    let world = World::start().await;
    let private = world.private.clone();

    // /mcp without a token (it serves ops): no body, thread or count of dev's and qa's mail,
    // and no tool on the host's own files.
    let session = world.mcp_open(Caller::Nobody).await.unwrap();
    let listed = world.mcp_list_tools(&session).await;
    for verb in filebox_api::verbs::TABLE.iter().filter(|v| v.for_models) {
        let offered = listed.contains(&verb.name.to_owned());
        assert_eq!(offered, !verb.uses_host_files(), "{} on /mcp", verb.name);
    }
    let found = world
        .mcp_tool(
            Caller::Nobody,
            &session,
            "search_messages",
            json!({ "query": "secret-dev-qa", "all": true }),
        )
        .await;
    // A search answers with its text alone (`Verb::ANSWER_IS_TEXT`).
    assert_eq!(found["content"][0]["text"], "No messages match.", "{found}");
    let public = world
        .mcp_tool(
            Caller::Nobody,
            &session,
            "search_messages",
            json!({ "query": "public-ops", "all": true }),
        )
        .await;
    // ops's copy; me's (it has a token) is out of reach. A hit is a line and its snippet.
    let hits = public["content"][0]["text"].as_str().unwrap();
    let copies: Vec<&str> = hits.lines().filter(|line| !line.starts_with(' ')).collect();
    assert_eq!(copies.len(), 1, "{public}");
    assert!(copies[0].contains(" ops/"), "{public}");
    let thread = world
        .mcp_tool(
            Caller::Nobody,
            &session,
            "get_thread",
            json!({ "id": private }),
        )
        .await;
    assert_eq!(thread["isError"], true, "{thread}");
    assert!(!thread.to_string().contains("private plan"), "{thread}");
    let agents = world
        .mcp_tool(Caller::Nobody, &session, "list_agents", json!({}))
        .await;
    for agent in agents["structuredContent"]["agents"].as_array().unwrap() {
        let counted = !agent["counts"].is_null();
        let open = matches!(agent["id"].as_str(), Some("ops"));
        assert_eq!(counted, open, "{agent}");
    }

    // JSON-RPC without a token: a thread held only by token mailboxes reveals nothing.
    let thread = world
        .rpc(Caller::Nobody, "email.thread", json!({ "id": private }))
        .await;
    assert_eq!(thread["error"]["data"]["kind"], "not_found", "{thread}");
    assert!(!thread.to_string().contains("private plan"), "{thread}");
    let search = world
        .rpc(
            Caller::Nobody,
            "search_messages",
            json!({ "query": "secret-dev-qa", "all": true, "agent": "ops" }),
        )
        .await;
    assert_eq!(search["result"]["hits"], json!([]), "{search}");

    // A fork: not by someone outside the thread, and only the forker's and the fork's
    // recipients' copies change.
    let outsider = world
        .rpc(
            Caller::Human,
            "email.fork",
            json!({ "from": "me", "forkFrom": private, "forkReason": "direction-change", "compressedContext": "c" }),
        )
        .await;
    assert!(outsider["error"].is_object(), "{outsider}");
    let untouched = std::fs::read_to_string(&world.hub.files_in("qa", "inbox")[0]).unwrap();
    assert!(!untouched.contains("obsolete"), "{untouched}");

    // A refused system send adds no `system` mailbox to the config.
    let before = std::fs::read_to_string(&world.hub.config).unwrap();
    let denied = world
        .rpc(
            Caller::Nobody,
            "email.send",
            json!({ "from": "dev", "to": ["qa"], "subject": "s", "body": "b", "sourceType": "system" }),
        )
        .await;
    assert!(refused(&denied), "{denied}");
    assert_eq!(std::fs::read_to_string(&world.hub.config).unwrap(), before);
    world.hub.stop().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_open_event_stream_ends_when_its_agent_gets_a_token() {
    let world = World::start().await;
    let mut stream = tokio::net::TcpStream::connect(world.hub.addr)
        .await
        .unwrap();
    let request = format!(
        "GET /events?agent=ops HTTP/1.0\r\nHost: {}\r\n\r\n",
        world.hub.addr
    );
    stream.write_all(request.as_bytes()).await.unwrap();
    let mut head = [0u8; 12];
    stream.read_exact(&mut head).await.unwrap();
    assert!(String::from_utf8_lossy(&head).contains("200"));
    give_token(&world.hub, "ops");
    world
        .rpc(
            Caller::Own,
            "email.send",
            json!({ "from": "dev", "to": ["ops"], "subject": "after-the-token", "body": "b", "sourceType": "agent" }),
        )
        .await;
    // The stream ends at the first event after the token, without showing it.
    let mut rest = String::new();
    tokio::time::timeout(support::GIVE_UP, stream.read_to_string(&mut rest))
        .await
        .expect("the stream ended")
        .unwrap();
    assert!(!rest.contains("after-the-token"), "{rest}");
    world.hub.stop().await.unwrap();
}
