//! The `process_inbox` prompt: the rule for handling incoming mail (classify each message as a
//! bug or a small, large or unreasonable ER, then act on it), so a host can start inbox work
//! with one command.

use rmcp::ErrorData;
use rmcp::model::{
    GetPromptResult, ListPromptsResult, Prompt, PromptArgument, PromptMessage, Role,
};

pub(crate) const NAME: &str = "process_inbox";

/// Classify, then act.
const RULE: &str = "\
Process the mail in your FileBox inbox.

1. Call list_messages (folder inbox) and take the messages oldest first.
2. For each one, call read_message and classify it as exactly one of:
   - **Bug**: something that should work does not.
   - **Small ER**: an enhancement request you can do now, within the current design.
   - **Large ER**: an enhancement request that needs a design first (new concepts, several \
components, or a change others depend on).
   - **Unreasonable ER**: a request that should not be done (out of scope, contradicts the \
design, unsafe, or unclear beyond repair).
3. Act on the class:
   - Bug or small ER: fix it now (change, test, verify), then call resolve_message with what \
you changed and how you verified it.
   - Large ER: write a design document (problem, proposal, alternatives, open questions), reply \
to the sender with send_message and reply_to set to the message's id, pointing to the design.
   - Unreasonable ER: call reject_message with the reasons, so the sender can do better.
   - If you cannot act yet (waiting on someone or something), call hold_message and say what \
it waits for.
4. When you need to ask the sender something, reply with send_message and reply_to.
5. When the inbox is empty, say so; wait_for_messages waits for new mail.";

pub(crate) fn list() -> ListPromptsResult {
    ListPromptsResult::with_all_items(vec![Prompt::new(
        NAME,
        Some("Work through your FileBox inbox: classify each message (bug, small ER, large ER, unreasonable ER) and fix, design or reject it."),
        Some(vec![PromptArgument::new("id").with_description(
            "Only this message (id, short id or file name) instead of the whole inbox.",
        )]),
    )
    .with_title("Process my inbox")])
}

pub(crate) fn get(
    name: &str,
    arguments: Option<&serde_json::Map<String, serde_json::Value>>,
) -> Result<GetPromptResult, ErrorData> {
    if name != NAME {
        return Err(ErrorData::invalid_params(
            format!("no prompt {name:?}: prompts/list names the prompts"),
            None,
        ));
    }
    let only = arguments
        .and_then(|args| args.get("id"))
        .and_then(|id| id.as_str())
        .filter(|id| !id.trim().is_empty());
    let text = match only {
        Some(id) => format!("{RULE}\n\nThis time handle only message {id}."),
        None => RULE.to_owned(),
    };
    Ok(
        GetPromptResult::new(vec![PromptMessage::new_text(Role::User, text)])
            .with_description("Classify incoming mail, then fix, design or reject."),
    )
}
