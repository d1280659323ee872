//! `read_message`: one message of my mailbox, whole.

use std::sync::Arc;

use filebox_api::{ReadArgs, ReadResult, verbs};
use filebox_core::Mailroom;
use rmcp::ErrorData;
use rmcp::model::{CallToolResult, Tool};

use super::{Effect, outcome};
use crate::blocking;

pub(super) const NAME: &str = "read_message";

pub(super) fn definition() -> Tool {
    super::definition::<ReadArgs, ReadResult>(
        NAME,
        "Read a message",
        "Read one message of your mailbox: its header, the original content, the conversation \
         and processing histories, and the whole Markdown file. Looks in every folder (inbox \
         first) unless a folder is given.",
        Effect::ReadOnly,
    )
}

pub(super) async fn call(
    mailroom: &Arc<Mailroom>,
    args: ReadArgs,
) -> Result<CallToolResult, ErrorData> {
    let result = blocking::run(Arc::clone(mailroom), move |m| verbs::read(&m, &args)).await;
    outcome::respond(result, |read| read.markdown.clone())
}
