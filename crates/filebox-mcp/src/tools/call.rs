//! One verb call as the client made it ([`Call`]), run on a blocking thread to its tool
//! result; and a question's answer looked at once. Shared by the blocking tools, the host's
//! form and the tasks, which all run calls.

use std::sync::Arc;
use std::time::{Duration, Instant};

use filebox_api::{CallError, Reply, VerbInfo, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, ContentBlock};
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

use super::answer;
use super::outcome::{self, Shape};

/// One verb call with its JSON arguments, as the client made it.
#[derive(Clone)]
pub(crate) struct Call {
    pub(crate) mailroom: Arc<Mailroom>,
    pub(crate) verb: &'static VerbInfo,
    pub(crate) args: serde_json::Value,
    pub(super) client: Option<String>,
    pub(super) cancel: CancellationToken,
}

impl Call {
    /// A call the server makes itself (a task's poll): no client, never cancelled.
    pub(crate) fn internal(
        mailroom: Arc<Mailroom>,
        verb: &'static VerbInfo,
        args: serde_json::Value,
    ) -> Call {
        Call {
            mailroom,
            verb,
            args,
            client: None,
            cancel: CancellationToken::new(),
        }
    }

    /// The same call waiting `secs` at most.
    pub(crate) fn with_timeout(mut self, secs: u64) -> Call {
        if let Some(args) = self.args.as_object_mut() {
            args.insert("timeout".into(), secs.into());
        }
        self
    }

    /// Run it to its tool result, without progress.
    pub(crate) async fn run(self) -> Result<CallToolResult, ErrorData> {
        outcome::respond(Shape::of(self.verb), self.spawn().await)
    }

    /// Wait for the answer to question `id` this call asked at `asked`, as the call itself
    /// would have (its timeout, its cancellation).
    pub(super) fn wait_for_answer(self, id: String, asked: Instant) -> JoinHandle<Replied> {
        let Call {
            mailroom,
            args,
            cancel,
            ..
        } = self;
        let timeout = args.get("timeout").and_then(serde_json::Value::as_u64);
        tokio::task::spawn_blocking(move || {
            let cancelled = || cancel.is_cancelled();
            let cx = filebox_api::VerbContext::with_cancel(&mailroom, &cancelled);
            with_attachments(&mailroom, verbs::wait_for_answer(&cx, &id, asked, timeout))
        })
    }

    pub(super) fn spawn(self) -> JoinHandle<Replied> {
        let Call {
            mailroom,
            verb,
            args,
            client,
            cancel,
        } = self;
        tokio::task::spawn_blocking(move || {
            let cancelled = || cancel.is_cancelled();
            let cx = filebox_api::VerbContext::with_cancel(&mailroom, &cancelled)
                .with_client(client.as_deref());
            with_attachments(&mailroom, verb.call(&cx, args))
        })
    }
}

/// A question's answer or state, looked at once, as the tool result its asking call gives
/// (`filebox_api::verbs::look_for_answer`).
pub(crate) async fn look_for_answer(
    mailroom: Arc<Mailroom>,
    id: String,
    waited: Duration,
) -> Result<CallToolResult, ErrorData> {
    let looked = tokio::task::spawn_blocking(move || {
        let cx = filebox_api::VerbContext::new(&mailroom);
        with_attachments(&mailroom, verbs::look_for_answer(&cx, &id, waited))
    });
    // Every verb that asks a question answers with its structure (the task reads its status).
    outcome::respond(Shape::Structured, looked.await)
}

/// A verb's reply, with the content blocks of the files of the answer it carries.
pub(super) type Replied = (Result<Reply, CallError>, Vec<ContentBlock>);

/// A verb's reply with the content blocks of the answer's files it carries.
fn with_attachments(mailroom: &Mailroom, reply: Result<Reply, CallError>) -> Replied {
    let attached = match &reply {
        Ok(reply) => answer::attachments(mailroom, &reply.value),
        Err(_) => Vec::new(),
    };
    (reply, attached)
}

/// The id of the question a call just asked, while it is open (its result otherwise).
pub(crate) fn open_question(result: &CallToolResult) -> Option<String> {
    let value = result.structured_content.as_ref()?;
    (value["status"] == "open").then(|| value["id"].as_str().map(str::to_owned))?
}
