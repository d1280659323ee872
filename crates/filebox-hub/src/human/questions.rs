//! `questions.open {agent}`: the questions and work reports waiting in a human's inbox, with
//! who asks, the project directory and the quick answers (the `open_questions` verb).

use filebox_api::verbs::OpenQuestions;
use filebox_api::{OpenQuestionsArgs, Verb, VerbContext};
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::rpc::{Ctx, RpcError};

/// Params of `questions.open`.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
#[serde(rename_all = "camelCase", deny_unknown_fields)]
pub(crate) struct OpenParams {
    /// The human mailbox.
    pub(crate) agent: String,
}

pub(crate) fn open_questions(
    ctx: &Ctx,
    p: OpenParams,
) -> Result<filebox_api::OpenQuestions, RpcError> {
    let mailroom = ctx.act_as(&p.agent, "agent")?;
    Ok(OpenQuestions::run(&VerbContext::new(&mailroom), OpenQuestionsArgs {})?.value)
}
