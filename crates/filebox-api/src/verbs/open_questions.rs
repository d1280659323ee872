//! `open_questions` (`filebox questions`): the questions and work reports waiting in my inbox
//! (and hold) for an answer: what a human's page shows.

use filebox_core::Result;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

use crate::outcome::Outcome;
use crate::verb::{Effect, Verb, VerbContext};

/// The questions and work reports waiting in my inbox for an answer (for a human).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct OpenQuestionsArgs {}
/// An open question in a human's inbox, for a page.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OpenQuestion {
    pub id: String,
    /// `ASK` (a question) or `RPT` (a work report).
    #[serde(rename = "type")]
    pub kind: String,
    /// The asking agent.
    pub from: String,
    pub title: String,
    /// The question or summary, in Markdown.
    pub body: String,
    pub project_directory: Option<String>,
    /// The asking program (MCP client name).
    pub client: Option<String>,
    /// The asking agent's own name, its model, and when its program sent the question (by
    /// its clock), when the program said.
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub agent_name: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub reasoning_model: Option<String>,
    #[serde(default, skip_serializing_if = "Option::is_none")]
    pub sent_at: Option<String>,
    pub options: Vec<String>,
    /// When it was asked (ISO 8601 UTC).
    pub asked_at: String,
}

/// The open questions of my inbox (and hold), oldest first.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct OpenQuestionsResult {
    pub questions: Vec<OpenQuestion>,
}

/// The questions and work reports waiting for me (a human).
#[derive(Debug)]
pub struct OpenQuestions;

impl Verb for OpenQuestions {
    const NAME: &'static str = "open_questions";
    const CLI: &'static str = "questions";
    const TITLE: &'static str = "Open questions";
    const DESCRIPTION: &'static str = "The questions and work reports in my inbox (and hold) \
        that wait for an answer, oldest first, with who asks, the project directory and the \
        quick answers offered.";
    const EFFECT: Effect = Effect::ReadOnly;
    const FOR_MODELS: bool = false;
    type Args = OpenQuestionsArgs;
    type Output = OpenQuestionsResult;

    fn run(cx: &VerbContext<'_>, _args: OpenQuestionsArgs) -> Result<Outcome<OpenQuestionsResult>> {
        let questions = cx.mailroom.open_questions()?;
        Ok(Outcome::clean(OpenQuestionsResult {
            questions: questions.into_iter().map(open_question).collect(),
        }))
    }

    /// The questions waiting for a human, one block each.
    fn render(open: &OpenQuestionsResult) -> String {
        if open.questions.is_empty() {
            return "No open questions.".to_owned();
        }
        open.questions
            .iter()
            .map(|q| {
                let mut block = format!(
                    "{} {} from {} in {} ({})\n{}",
                    q.asked_at,
                    q.kind,
                    q.from,
                    q.project_directory.as_deref().unwrap_or("?"),
                    q.id,
                    q.body.trim_end()
                );
                if !q.options.is_empty() {
                    block.push_str(&format!("\noptions: {}", q.options.join(" | ")));
                }
                block
            })
            .collect::<Vec<_>>()
            .join("\n\n")
    }
}

fn open_question(question: filebox_core::OpenQuestion) -> OpenQuestion {
    let asked_by = question.asked_by();
    OpenQuestion {
        from: question.asker().to_owned(),
        project_directory: question.project_directory().map(str::to_owned),
        client: question.client().map(str::to_owned),
        agent_name: asked_by.agent_name,
        reasoning_model: asked_by.reasoning_model,
        sent_at: asked_by.sent_at,
        options: question.options(),
        asked_at: question.asked_at().to_owned(),
        id: question.header.id().to_owned(),
        kind: question.header.kind,
        title: question.header.title,
        body: question.body,
    }
}
