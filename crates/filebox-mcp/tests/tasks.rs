//! Long waits as tasks (`io.modelcontextprotocol/tasks`), driven by rmcp's client, a
//! third-party implementation of the extension: a client that declares it gets a task at once
//! for a question or a wait, polls `tasks/get` and cancels with `tasks/cancel`; a question's
//! task outlives its server, because its state is the question's file.

use filebox_api::{VerbContext, verbs};
use filebox_core::{Folder, Mailroom};
use rmcp::ServiceExt;
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CancelTaskParams, ClientCapabilities, ClientConfig,
    GetTaskParams, Implementation, TaskPayload, TaskStatus,
};
use rmcp::service::{RoleClient, RunningService};
use serde_json::{Value, json};

/// A config with the agent `qa`, its human `me`, and `dev`, acting as `who`.
fn mailroom(dir: &tempfile::TempDir, who: &str) -> Mailroom {
    let agents = [("qa", "agent"), ("me", "human"), ("dev", "agent")];
    filebox_testkit::mailroom(dir.path(), &agents, who)
}

type Client = RunningService<RoleClient, ClientConfig>;

/// A client that declares the tasks extension, connected to a new server acting as `qa`.
async fn connect(dir: &tempfile::TempDir) -> Client {
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(filebox_mcp::serve_transport(
        mailroom(dir, "qa"),
        filebox_mcp::ChannelMode::WhenDeclared,
        server_end,
    ));
    let capabilities = ClientCapabilities::builder().enable_tasks().build();
    ClientConfig::new(capabilities, Implementation::new("tasks-test", "1"))
        .serve(client_end)
        .await
        .expect("the MCP session starts")
}

/// Call `tool`; the task it became (its id), or `None` with the result it gave at once.
async fn start(client: &Client, tool: &str, args: Value) -> Result<String, Value> {
    let Value::Object(args) = args else {
        panic!("arguments are an object")
    };
    let response = client
        .call_tool_once(CallToolRequestParams::new(tool.to_owned()).with_arguments(args))
        .await
        .unwrap_or_else(|e| panic!("{tool}: {e}"));
    match response {
        CallToolResponse::Task(created) => {
            assert_eq!(created.task.status, TaskStatus::Working);
            assert!(created.task.poll_interval_ms.is_some());
            Ok(created.task.task_id)
        }
        CallToolResponse::Complete(result) => Err(serde_json::to_value(result).unwrap()),
        other => panic!("{tool}: unexpected {other:?}"),
    }
}

async fn poll(client: &Client, task: &str) -> TaskPayload {
    client
        .get_task(GetTaskParams::new(task))
        .await
        .unwrap_or_else(|e| panic!("tasks/get {task}: {e}"))
        .task
        .payload
}

fn completed(payload: TaskPayload) -> Value {
    match payload {
        TaskPayload::Completed { result } => Value::Object(result),
        other => panic!("expected a completed task, got {other:?}"),
    }
}

/// The human answers the open question `id` (as the page does, by a reply).
fn human_answers(dir: &tempfile::TempDir, id: &str, text: &str) {
    let me = mailroom(dir, "me");
    verbs::call(
        &VerbContext::new(&me),
        "reply_message",
        json!({"id": id, "content": text}),
    )
    .unwrap();
}

/// The question a task waits for, as the human's page lists it.
fn the_open_question(dir: &tempfile::TempDir) -> String {
    let open = mailroom(dir, "me").open_questions().unwrap();
    assert_eq!(open.len(), 1, "one question is open");
    open[0].header.id().to_owned()
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_is_a_task_that_the_answer_completes_even_across_a_restart() {
    let dir = tempfile::tempdir().unwrap();
    let client = connect(&dir).await;
    let task = start(
        &client,
        "ask_question",
        json!({"project_directory": "/src/app", "question": "SQLite or Postgres?"}),
    )
    .await
    .expect("a task");
    assert!(matches!(poll(&client, &task).await, TaskPayload::Working));
    let question = the_open_question(&dir);

    // The connection and its server go away; the answer comes; another server reports it.
    client.cancel().await.unwrap();
    human_answers(&dir, &question, "SQLite");
    let again = connect(&dir).await;
    let result = completed(poll(&again, &task).await);
    assert_eq!(result["structuredContent"]["status"], "answered");
    assert_eq!(result["structuredContent"]["answer"]["text"], "SQLite");
    assert_eq!(result["content"][0]["text"], "SQLite");
    // Taken, as the blocking call takes it; a second poll reports the same.
    let qa = mailroom(&dir, "qa").my_mailbox().unwrap();
    assert!(qa.list(Folder::Inbox).unwrap().messages.is_empty());
    assert_eq!(completed(poll(&again, &task).await), result);
    again.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn cancelling_a_question_task_withdraws_the_question() {
    let dir = tempfile::tempdir().unwrap();
    let client = connect(&dir).await;
    let task = start(
        &client,
        "task_finish",
        json!({"project_directory": "/src/app", "summary": "Done."}),
    )
    .await
    .expect("a task");
    client
        .cancel_task(CancelTaskParams::new(task.clone()))
        .await
        .unwrap();
    assert!(matches!(poll(&client, &task).await, TaskPayload::Cancelled));
    let me = mailroom(&dir, "me");
    assert!(me.open_questions().unwrap().is_empty());
    let withdrawn = me.my_mailbox().unwrap().list(Folder::Cancel).unwrap();
    assert_eq!(withdrawn.messages.len(), 1);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_question_task_ends_at_its_timeout_with_the_blocking_calls_result() {
    let dir = tempfile::tempdir().unwrap();
    let client = connect(&dir).await;
    let task = start(
        &client,
        "ask_question",
        json!({"project_directory": "/src/app", "question": "Ship it?", "timeout": 0}),
    )
    .await
    .expect("a task");
    let result = completed(poll(&client, &task).await);
    assert_eq!(result["structuredContent"]["status"], "open");
    let text = result["content"][0]["text"].as_str().unwrap();
    assert!(text.contains("get_answer"), "{text}");
    // Still open for the human: the wait ended, not the question.
    assert_eq!(mailroom(&dir, "me").open_questions().unwrap().len(), 1);
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_wait_is_a_task_until_mail_arrives_and_mail_already_there_comes_at_once() {
    let dir = tempfile::tempdir().unwrap();
    let client = connect(&dir).await;
    let task = start(&client, "wait_for_messages", json!({"timeout": 600}))
        .await
        .expect("nothing new yet: a task");
    assert!(matches!(poll(&client, &task).await, TaskPayload::Working));

    let dev = mailroom(&dir, "dev");
    let sent = verbs::call(
        &VerbContext::new(&dev),
        "send_message",
        json!({"to": "qa", "type": "ER", "content": "Fixed"}),
    )
    .unwrap();
    let result = completed(poll(&client, &task).await);
    assert_eq!(
        result["structuredContent"]["messages"][0]["id"],
        sent.value["id"]
    );
    // The result is kept: the next poll gives it again, though the mail is no longer new.
    assert_eq!(completed(poll(&client, &task).await), result);

    verbs::call(
        &VerbContext::new(&dev),
        "send_message",
        json!({"to": "qa", "type": "ER", "content": "Also fixed"}),
    )
    .unwrap();
    let at_once = start(&client, "wait_for_messages", json!({"timeout": 600}))
        .await
        .expect_err("new mail is the result at once");
    assert_eq!(
        at_once["structuredContent"]["messages"][0]["title"],
        "Also fixed"
    );

    let cancelled = start(&client, "wait_for_messages", json!({}))
        .await
        .expect("a task");
    client
        .cancel_task(CancelTaskParams::new(cancelled.clone()))
        .await
        .unwrap();
    assert!(matches!(
        poll(&client, &cancelled).await,
        TaskPayload::Cancelled
    ));
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn a_client_without_the_extension_gets_the_blocking_call_and_no_task_methods() {
    let dir = tempfile::tempdir().unwrap();
    let (server_end, client_end) = tokio::io::duplex(64 * 1024);
    tokio::spawn(filebox_mcp::serve_transport(
        mailroom(&dir, "qa"),
        filebox_mcp::ChannelMode::WhenDeclared,
        server_end,
    ));
    let client = ().serve(client_end).await.unwrap();
    let Value::Object(args) = json!({"timeout": 0}) else {
        unreachable!()
    };
    let response = client
        .call_tool_once(CallToolRequestParams::new("wait_for_messages").with_arguments(args))
        .await
        .unwrap();
    assert!(matches!(response, CallToolResponse::Complete(_)));
    let refused = client.get_task(GetTaskParams::new("wait:1:-:-:x")).await;
    assert!(refused.is_err(), "tasks/get needs the extension declared");
    client.cancel().await.unwrap();
}

#[tokio::test(flavor = "multi_thread", worker_threads = 2)]
async fn an_unknown_task_id_is_refused_clearly() {
    let dir = tempfile::tempdir().unwrap();
    let client = connect(&dir).await;
    let error = client
        .get_task(GetTaskParams::new("task-1"))
        .await
        .unwrap_err();
    assert!(error.to_string().contains("unknown task"), "{error}");
    client.cancel().await.unwrap();
}
