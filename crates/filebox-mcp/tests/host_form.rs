//! `ask_question`'s second answer path, driven by rmcp's client as a host with a form
//! (elicitation, in a session): the person answers in the host and the answer is the human's
//! reply in the files; or the page answers first and the host's form is withdrawn.

use std::sync::Arc;
use std::sync::atomic::{AtomicBool, Ordering};

use filebox_api::{VerbContext, verbs};
use filebox_core::{Folder, Mailroom};
use rmcp::model::{
    CallToolRequestParams, ClientCapabilities, ClientConfig, ElicitRequestParams, ElicitResult,
    ElicitationAction, Implementation,
};
use rmcp::service::{RequestContext, RoleClient};
use rmcp::{ClientHandler, ErrorData, ServiceExt};
use serde_json::{Value, json};
use tokio::sync::Notify;

/// A config with the agent `qa` and its human `me`, acting as `who`.
fn mailroom(dir: &tempfile::TempDir, who: &str) -> Mailroom {
    filebox_testkit::mailroom(dir.path(), &[("qa", "agent"), ("me", "human")], who)
}

/// A host that shows the form: answers `answer` at once, or (with none) waits until the form
/// is withdrawn.
#[derive(Clone, Default)]
struct Host {
    answer: Option<String>,
    shown: Arc<Notify>,
    withdrawn: Arc<AtomicBool>,
}

impl ClientHandler for Host {
    fn get_info(&self) -> ClientConfig {
        let capabilities = ClientCapabilities::builder().enable_elicitation().build();
        ClientConfig::new(capabilities, Implementation::new("host", "1"))
    }

    async fn create_elicitation(
        &self,
        request: ElicitRequestParams,
        context: RequestContext<RoleClient>,
    ) -> Result<ElicitResult, ErrorData> {
        let ElicitRequestParams::FormElicitationParams { message, .. } = request else {
            panic!("a form is asked for")
        };
        assert_eq!(message, "SQLite or Postgres?");
        self.shown.notify_one();
        match &self.answer {
            Some(text) => {
                Ok(ElicitResult::new(ElicitationAction::Accept)
                    .with_content(json!({"answer": text})))
            }
            None => {
                context.ct.cancelled().await;
                self.withdrawn.store(true, Ordering::SeqCst);
                Ok(ElicitResult::new(ElicitationAction::Cancel))
            }
        }
    }
}

async fn ask(host: Host, dir: &tempfile::TempDir) -> Value {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(filebox_mcp::serve_transport(
        mailroom(dir, "qa"),
        filebox_mcp::ChannelMode::WhenDeclared,
        server_end,
    ));
    let client = host.serve(client_end).await.expect("the session starts");
    let Value::Object(args) =
        json!({"project_directory": "/src/app", "question": "SQLite or Postgres?"})
    else {
        unreachable!()
    };
    let result = client
        .call_tool(CallToolRequestParams::new("ask_question").with_arguments(args))
        .await
        .expect("ask_question");
    client.cancel().await.unwrap();
    serde_json::to_value(result).unwrap()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_in_the_hosts_form_is_the_humans_reply_in_the_files() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host {
        answer: Some("Postgres".into()),
        ..Host::default()
    };
    let result = ask(host, &dir).await;
    assert_eq!(result["structuredContent"]["status"], "answered");
    assert_eq!(result["structuredContent"]["answer"]["text"], "Postgres");
    assert_eq!(result["structuredContent"]["answer"]["from"], "me");
    // The human's copy is answered (done/), the page no longer lists it.
    let me = mailroom(&dir, "me");
    assert!(me.open_questions().unwrap().is_empty());
    let answered = me.my_mailbox().unwrap().list(Folder::Done).unwrap();
    assert_eq!(answered.messages.len(), 1);
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_answer_on_the_page_first_wins_and_the_hosts_form_is_withdrawn() {
    let dir = tempfile::tempdir().unwrap();
    let host = Host::default();
    let shown = Arc::clone(&host.shown);
    let withdrawn = Arc::clone(&host.withdrawn);
    let page = {
        let me = mailroom(&dir, "me");
        tokio::spawn(async move {
            shown.notified().await;
            let id = me.open_questions().unwrap()[0].header.id().to_owned();
            verbs::call(
                &VerbContext::new(&me),
                "reply_message",
                json!({"id": id, "content": "SQLite"}),
            )
            .unwrap();
        })
    };
    let result = ask(host, &dir).await;
    page.await.unwrap();
    assert_eq!(result["structuredContent"]["answer"]["text"], "SQLite");
    assert!(
        withdrawn.load(Ordering::SeqCst),
        "the host's form was withdrawn"
    );
}
