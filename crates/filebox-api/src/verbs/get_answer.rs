//! `get_answer` (`filebox answer`): the answer to a question I asked, or whether it is still
//! open, at once; and the text of a question's outcome, which every verb of the human channel
//! gives.

use std::time::Duration;

use filebox_core::{MessageRef, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::wait_for_messages::WaitForMessages;
use crate::model_text;
use crate::outcome::Outcome;
use crate::render::{file_name, name};
use crate::shared::question::result;
use crate::surface::Surface;
use crate::verb::{CallError, Effect, Reply, Verb, VerbContext, model_reply};
use crate::views::{QuestionResult, QuestionStatus};

/// The answer to a question I asked, or whether it is still open, at once.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct GetAnswerArgs {
    /// The id it returned.
    pub id: String,
}

/// A question's answer, or its status, at once.
#[derive(Debug)]
pub struct GetAnswer;

impl Verb for GetAnswer {
    const NAME: &'static str = "get_answer";
    const CLI: &'static str = "answer";
    const TITLE: &'static str = "Get an answer";
    const DESCRIPTION: &'static str =
        "A timed-out ask_question or task_finish: its answer, else open or withdrawn.";
    const EFFECT: Effect = Effect::Updating;
    type Args = GetAnswerArgs;
    type Output = QuestionResult;

    fn run(cx: &VerbContext<'_>, args: GetAnswerArgs) -> Result<Outcome<QuestionResult>> {
        let asked = cx.mailroom.look_for_answer(&MessageRef::parse(&args.id)?)?;
        result(cx.mailroom, asked).map(Outcome::clean)
    }

    fn render(result: &QuestionResult) -> String {
        question_for(result, Surface::CommandLine)
    }

    fn brief(result: &QuestionResult) -> String {
        question(result)
    }
}

/// A question I asked, looked at once by a surface that waits in steps (an MCP task at each
/// poll): the reply `ask_question` or `task_finish` gives, its answer taken if it just arrived,
/// or, still open after `waited`, the one the blocking call gives at its timeout.
pub fn look_for_answer(
    cx: &VerbContext<'_>,
    id: &str,
    waited: Duration,
) -> Result<Reply, CallError> {
    let asked = cx.mailroom.look_for_answer(&MessageRef::parse(id)?)?;
    let mut looked = result(cx.mailroom, asked)?;
    looked.waited_secs = waited.as_secs();
    model_reply::<GetAnswer>(Outcome::clean(looked))
}

/// A question's outcome, for an agent asking through tools (MCP, the hub's Connect answers).
pub fn question(result: &QuestionResult) -> String {
    question_for(result, Surface::Tools)
}

/// A question's outcome, for the asking agent: the answer, or what to do next, naming the
/// verbs as `surface` calls them (`get_answer {"id": ..}`, or `filebox answer ID`).
pub(crate) fn question_for(result: &QuestionResult, surface: Surface) -> String {
    let id = &result.id;
    let report = result.kind == filebox_core::message::WORK_REPORT;
    let get_answer = surface.verb::<GetAnswer>(Some(id));
    let wait = surface.verb::<WaitForMessages>(None);
    let call = surface.call();
    match (&result.status, &result.answer) {
        (QuestionStatus::Answered, Some(answer)) => {
            let mut text = model_text::whole(&answer.text);
            for attached in &answer.attachments {
                text.push_str(&format!(
                    "\n[attached: {} ({}) at {}]",
                    file_name(&attached.name),
                    name(&attached.mime_type),
                    attached.path
                ));
            }
            if text.trim().is_empty() {
                text = "(an empty answer)".to_owned();
            }
            text
        }
        (QuestionStatus::Withdrawn, _) => format!(
            "Question {id} was withdrawn: you stopped waiting, so the human no longer sees it as \
             open."
        ),
        _ if report => format!(
            "No objection within {} s to work report {id}: carry on. A later reply arrives in \
             your inbox; {get_answer} returns it.",
            result.waited_secs
        ),
        _ if result.waited_secs > 0 => format!(
            "No answer yet: question {id} is still open after {} s. Carry on with what does not \
             depend on it; the answer will arrive in your inbox. {call} {get_answer} (returns \
             at once) or {wait} to get it.",
            result.waited_secs
        ),
        _ => format!(
            "Question {id} is still open. {call} {get_answer} again later, or {wait}: the \
             answer arrives in your inbox."
        ),
    }
}
