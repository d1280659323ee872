//! `ask_question` (`filebox ask`): ask my human a question and wait for the answer, which
//! reaches my own inbox.

use std::time::{Duration, Instant};

use filebox_core::{AnswerWait, MessageRef, QuestionKind, QuestionRequest, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::get_answer::{question, question_for};
use crate::command_line::{absolute_directory, text_or_stdin};
use crate::outcome::Outcome;
use crate::shared::question::{ask_and_wait, result};
use crate::surface::Surface;
use crate::verb::{CallError, Effect, Reply, Verb, VerbContext, model_reply};
use crate::views::QuestionResult;

/// Ask my human a question (an ASK message to the config's human mailbox) and wait for the
/// answer, printed when it comes. When --timeout passes the question stays open: `filebox
/// answer ID` looks again.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct AskArgs {
    /// Absolute path of your project.
    #[arg(
        long = "project",
        value_name = "DIR",
        default_value = ".",
        value_parser = absolute_directory,
        help = "The project directory shown with the question"
    )]
    pub project_directory: String,
    /// Markdown: what you need to know and why.
    #[arg(
        help = "The question, in Markdown, or `-` to read standard input",
        value_parser = text_or_stdin,
        allow_hyphen_values = true
    )]
    pub question: String,
    /// Seconds (default 600).
    #[serde(default)]
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
    /// One-click answers.
    #[serde(default)]
    #[arg(
        long = "option",
        value_name = "TEXT",
        help = "A quick answer to offer (repeatable)"
    )]
    pub options: Option<Vec<String>>,
}

/// Ask the human and wait for the answer.
#[derive(Debug)]
pub struct AskQuestion;

impl Verb for AskQuestion {
    const NAME: &'static str = "ask_question";
    const CLI: &'static str = "ask";
    const TITLE: &'static str = "Ask the human";
    const DESCRIPTION: &'static str = "Ask your human instead of guessing and wait for the answer (text, images, audio, files); timed out: get_answer.";
    const EFFECT: Effect = Effect::Updating;
    const WAITS: bool = true;
    type Args = AskArgs;
    type Output = QuestionResult;

    fn run(cx: &VerbContext<'_>, args: AskArgs) -> Result<Outcome<QuestionResult>> {
        let request = QuestionRequest {
            kind: QuestionKind::Question,
            project_directory: args.project_directory,
            text: args.question,
            options: args.options.unwrap_or_default(),
            client: cx.client.map(str::to_owned),
            asked_by: cx.asked_by.cloned().unwrap_or_default(),
        };
        ask_and_wait(cx, &request, args.timeout)
    }

    fn render(result: &QuestionResult) -> String {
        question_for(result, Surface::CommandLine)
    }

    fn brief(result: &QuestionResult) -> String {
        question(result)
    }
}

/// Wait for the answer to question `id` I asked at `asked`, as the asking call does once it
/// asked (a surface that also asks in the host's own form waits here meanwhile): the reply
/// `ask_question` gives.
pub fn wait_for_answer(
    cx: &VerbContext<'_>,
    id: &str,
    asked: Instant,
    timeout_secs: Option<u64>,
) -> Result<Reply, CallError> {
    let wait = AnswerWait {
        timeout: timeout_secs.map(Duration::from_secs),
        cancelled: cx.cancelled,
        stopping: cx.stopping,
    };
    let waited = cx
        .mailroom
        .wait_for_answer(&MessageRef::parse(id)?, asked, &wait)?;
    model_reply::<AskQuestion>(Outcome::clean(result(cx.mailroom, waited)?))
}
