//! `task_finish` (`filebox report`): report finished work to my human and wait for the reply
//! (no objection when the wait ends).

use filebox_core::{QuestionKind, QuestionRequest, Result};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use super::get_answer::{question, question_for};
use crate::command_line::{absolute_directory, text_or_stdin};
use crate::outcome::Outcome;
use crate::shared::question::ask_and_wait;
use crate::surface::Surface;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::QuestionResult;

/// Report finished work to my human (an RPT message) and wait for the reply.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct ReportArgs {
    /// Absolute path of your project.
    #[arg(
        long = "project",
        value_name = "DIR",
        default_value = ".",
        value_parser = absolute_directory,
        help = "The project directory shown with the report"
    )]
    pub project_directory: String,
    /// Markdown: result, changes, what is left.
    #[arg(
        help = "What was done, in Markdown, or `-` to read standard input",
        value_parser = text_or_stdin,
        allow_hyphen_values = true
    )]
    pub summary: String,
    /// Seconds (default 600).
    #[serde(default)]
    #[arg(long, value_name = "SECONDS")]
    pub timeout: Option<u64>,
}

/// Report finished work and wait for the human's reply.
#[derive(Debug)]
pub struct TaskFinish;

impl Verb for TaskFinish {
    const NAME: &'static str = "task_finish";
    const CLI: &'static str = "report";
    const TITLE: &'static str = "Report finished work";
    const DESCRIPTION: &'static str = "Report a finished task to your human and wait for approval, corrections or the next task; timeout: no objection.";
    const EFFECT: Effect = Effect::Updating;
    const WAITS: bool = true;
    type Args = ReportArgs;
    type Output = QuestionResult;

    fn run(cx: &VerbContext<'_>, args: ReportArgs) -> Result<Outcome<QuestionResult>> {
        let request = QuestionRequest {
            kind: QuestionKind::WorkReport,
            project_directory: args.project_directory,
            text: args.summary,
            options: Vec::new(),
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
