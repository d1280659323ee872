//! `work_report` (`filebox work-report`): `task_finish` under the name Agent Assistant moved
//! to, with the same arguments, call and result.

use filebox_core::Result;

use super::task_finish::{ReportArgs, TaskFinish};
use crate::outcome::Outcome;
use crate::verb::{Effect, Verb, VerbContext};
use crate::views::QuestionResult;

/// `task_finish` under the name Agent Assistant moved to ("finish" made models stop): the
/// same call and result, offered to models too (its description points to `task_finish`'s).
#[derive(Debug)]
pub struct WorkReport;

impl Verb for WorkReport {
    const NAME: &'static str = "work_report";
    const CLI: &'static str = "work-report";
    const TITLE: &'static str = "Report work";
    const DESCRIPTION: &'static str = "Same as task_finish.";
    const EFFECT: Effect = Effect::Updating;
    const WAITS: bool = true;
    type Args = ReportArgs;
    type Output = QuestionResult;

    fn run(cx: &VerbContext<'_>, args: ReportArgs) -> Result<Outcome<QuestionResult>> {
        TaskFinish::run(cx, args)
    }

    fn render(result: &QuestionResult) -> String {
        TaskFinish::render(result)
    }

    fn brief(result: &QuestionResult) -> String {
        TaskFinish::brief(result)
    }
}
