//! `message_status`: where a message stands (named as `filebox_api::StatusArgs` names it).

use std::sync::Arc;

use filebox_api::{StatusArgs, StatusResult, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};

use super::{Effect, outcome};
use crate::blocking;

pub(super) const NAME: &str = "message_status";

pub(super) fn definition() -> Tool {
    super::definition::<StatusArgs, StatusResult>(
        NAME,
        "Message status",
        "Tell where a message of your mailbox stands: pending, delivered, processing, replied, \
         failed or obsolete. For a message you sent (outbox), how far its recipients got, with \
         each recipient's copy; else your copy's status. Also its folder, thread, priority, \
         source type and Reply To.",
        Effect::ReadOnly,
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: StatusArgs,
) -> Result<CallToolResult, ErrorData> {
    let result = blocking::run(Arc::clone(mailroom), move |m| verbs::status(&m, &args)).await;
    outcome::respond(result, render)
}

fn render(status: &StatusResult) -> String {
    let mut text = format!(
        "{} {} \"{}\" is {} (your copy: {} in {}, {}; thread {}).",
        status.kind,
        status.id,
        status.title,
        status.status,
        status.copy_status,
        status.folder,
        status.file,
        status.thread
    );
    for recipient in &status.recipients {
        let folder = recipient.folder.as_deref().unwrap_or("no copy");
        text.push_str(&format!(
            "\n- {}: {} ({folder})",
            recipient.agent, recipient.status
        ));
    }
    text
}
