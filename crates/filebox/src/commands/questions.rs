//! `filebox ask`, `report`, `answer` and `questions`: the human channel from a shell.

use std::path::Path;

use filebox_api::verbs::{AskQuestion, GetAnswer, OpenQuestions, TaskFinish};

use super::send::read_content;
use super::{cwd, run_verb};
use crate::cli::{AnswerArgs, AskArgs, Global, ReportArgs};
use crate::output::Outcome;

pub(crate) fn ask(global: &Global, args: &AskArgs) -> anyhow::Result<Outcome> {
    run_verb::<AskQuestion>(
        global,
        filebox_api::AskArgs {
            project_directory: project(args.project.as_deref())?,
            question: read_content(Some(&args.question), None)?,
            timeout: args.timeout,
            options: Some(args.options.clone()).filter(|o| !o.is_empty()),
        },
    )
}

pub(crate) fn report(global: &Global, args: &ReportArgs) -> anyhow::Result<Outcome> {
    run_verb::<TaskFinish>(
        global,
        filebox_api::ReportArgs {
            project_directory: project(args.project.as_deref())?,
            summary: read_content(Some(&args.summary), None)?,
            timeout: args.timeout,
        },
    )
}

pub(crate) fn answer(global: &Global, args: &AnswerArgs) -> anyhow::Result<Outcome> {
    run_verb::<GetAnswer>(
        global,
        filebox_api::GetAnswerArgs {
            id: args.id.clone(),
        },
    )
}

pub(crate) fn open(global: &Global) -> anyhow::Result<Outcome> {
    run_verb::<OpenQuestions>(global, filebox_api::OpenQuestionsArgs {})
}

/// The project directory: the one given, else the current one.
fn project(given: Option<&Path>) -> anyhow::Result<String> {
    let dir = match given {
        Some(dir) => filebox_core::config::absolute(dir, &cwd()?),
        None => cwd()?,
    };
    Ok(dir.display().to_string())
}
