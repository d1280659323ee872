//! What the human channel's verbs share: `ask_question` and `task_finish` (also `work_report`)
//! send a question to the agent's human and block until the answer reaches the agent's own
//! inbox, `get_answer` looks once; each maps the core's protocol (ask, wait, withdraw, take the
//! answer: `filebox_core::question`) onto a [`QuestionResult`]. Here too are the steps a
//! surface that waits in steps (an MCP task) or asks in the host's own form takes.

use std::time::Duration;

use filebox_core::{
    Answer, AnswerWait, Asked, Mailroom, MessageRef, QuestionRequest, QuestionState, Result,
};

use crate::outcome::Outcome;
use crate::verb::VerbContext;
use crate::views::{AnswerView, AttachmentView, QuestionResult, QuestionStatus};

/// How long a question waits for its answer when the caller does not say, in seconds.
pub use filebox_core::question::DEFAULT_TIMEOUT_SECS;

/// How a client that shows an answer by kind of content (MCP's text, image, audio, embedded
/// resource) presents an attached file, by its MIME type.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum MediaKind {
    Image,
    Audio,
    /// Anything else: a file embedded as a resource (bytes with their MIME type).
    Resource,
}

impl MediaKind {
    pub fn of(mime: &str) -> MediaKind {
        if mime.starts_with("image/") {
            MediaKind::Image
        } else if mime.starts_with("audio/") {
            MediaKind::Audio
        } else {
            MediaKind::Resource
        }
    }
}

/// The bytes of an attachment of a message in my mailbox.
pub fn attachment(mailroom: &Mailroom, id: &str, name: &str) -> Result<Vec<u8>> {
    mailroom
        .mailbox_to_read(mailroom.me())?
        .read_attachment(id, name)
}

/// How long a question asked with `timeout_secs` waits for its answer: the default when not
/// given, bounded by the config's `max_question_timeout_secs`. A surface that waits in steps
/// (an MCP task) ends the wait there, as the blocking call does.
pub fn answer_timeout(mailroom: &Mailroom, timeout_secs: Option<u64>) -> Duration {
    mailroom.answer_timeout(timeout_secs.map(Duration::from_secs))
}

/// My human's answer to question `id`, given in my own host (MCP elicitation): their reply
/// in the files, as the page would write it; refused as already handled when another answer
/// came first.
pub fn answer_in_host(mailroom: &Mailroom, id: &str, text: &str) -> Result<()> {
    mailroom.answer_in_host(&MessageRef::parse(id)?, text)?;
    Ok(())
}

/// Withdraw a question I asked that is still open (the task waiting for it was cancelled):
/// where it stands after, withdrawn, or answered when the answer came first.
pub fn withdraw_question(mailroom: &Mailroom, id: &str) -> Result<QuestionStatus> {
    let asked = mailroom.withdraw_question(&MessageRef::parse(id)?)?;
    Ok(result(mailroom, asked)?.status)
}

/// Ask, wait as the context says, and give the result.
pub(crate) fn ask_and_wait(
    cx: &VerbContext<'_>,
    request: &QuestionRequest,
    timeout_secs: Option<u64>,
) -> Result<Outcome<QuestionResult>> {
    let wait = AnswerWait {
        timeout: timeout_secs.map(Duration::from_secs),
        cancelled: cx.cancelled,
        stopping: cx.stopping,
    };
    let asked = cx.mailroom.ask_and_wait(request, &wait)?;
    result(cx.mailroom, asked).map(Outcome::clean)
}

/// The view of where question `asked` stands, its answer's attachments named where they are.
pub(crate) fn result(mailroom: &Mailroom, asked: Asked) -> Result<QuestionResult> {
    let (status, answer) = match asked.state {
        QuestionState::Open => (QuestionStatus::Open, None),
        QuestionState::Withdrawn(_) => (QuestionStatus::Withdrawn, None),
        QuestionState::Answered(answer) => (
            QuestionStatus::Answered,
            Some(answer_view(mailroom, answer)?),
        ),
    };
    Ok(QuestionResult {
        id: asked.id,
        kind: asked.kind,
        status,
        waited_secs: asked.waited.as_secs(),
        answer,
    })
}

fn answer_view(mailroom: &Mailroom, answer: Answer) -> Result<AnswerView> {
    let folder = mailroom
        .mailbox_root(mailroom.me())?
        .join(filebox_core::attachment::FOLDER)
        .join(answer.envelope.header.id());
    Ok(AnswerView {
        from: answer.from,
        at: answer.timestamp,
        text: answer.text,
        attachments: answer
            .attachments
            .into_iter()
            .map(|a| AttachmentView {
                path: folder.join(&a.name).display().to_string(),
                name: a.name,
                mime_type: a.mime,
            })
            .collect(),
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use filebox_core::{AgentEntry, AgentId, AgentKind, Config, ConfigFile, Folder, SendRequest};

    use super::*;
    use crate::verb::Verb;
    use crate::verbs::{
        AskArgs, AskQuestion, GetAnswer, GetAnswerArgs, OpenQuestions, OpenQuestionsArgs,
        OpenQuestionsResult, ReportArgs, TaskFinish, look_for_answer,
    };

    fn mailroom(dir: &std::path::Path, me: &str) -> Mailroom {
        let mut agents = BTreeMap::new();
        for (id, kind) in [("me", Some(AgentKind::Human)), ("bot", None)] {
            agents.insert(
                AgentId::new(id).unwrap(),
                AgentEntry {
                    mailbox_path: dir.join(id),
                    kind,
                    extra: BTreeMap::new(),
                },
            );
        }
        let file = ConfigFile {
            agents,
            ..ConfigFile::default()
        };
        let config = Config {
            path: dir.join("config.json"),
            file,
        };
        Mailroom::new(config, Some(&AgentId::new(me).unwrap())).unwrap()
    }

    /// What the human's page lists.
    fn open_questions(human: &Mailroom) -> OpenQuestionsResult {
        OpenQuestions::run(&VerbContext::new(human), OpenQuestionsArgs {})
            .unwrap()
            .value
    }

    fn args(timeout: u64) -> AskArgs {
        AskArgs {
            project_directory: "/src/app".into(),
            question: "Which database?".into(),
            timeout: Some(timeout),
            options: Some(vec!["SQLite".into(), "Postgres".into()]),
        }
    }

    #[test]
    fn ask_blocks_until_the_human_answers_and_takes_the_answer() {
        let dir = tempfile::tempdir().unwrap();
        let bot = mailroom(dir.path(), "bot");
        let human = mailroom(dir.path(), "me");
        let inbox = human.my_mailbox().unwrap();
        let mut watch = inbox.watch_inbox().unwrap();
        let answerer = std::thread::spawn(move || {
            let arrived = watch
                .next(Some(Duration::from_secs(30)), &|| false)
                .unwrap();
            let id = arrived.messages[0].header.id().to_owned();
            let listed = open_questions(&human);
            assert_eq!(listed.questions.len(), 1);
            assert_eq!(listed.questions[0].options, ["SQLite", "Postgres"]);
            assert_eq!(
                listed.questions[0].project_directory.as_deref(),
                Some("/src/app")
            );
            human
                .send(&SendRequest {
                    reply_to: Some(MessageRef::Id(id)),
                    ..SendRequest::new(
                        "bot",
                        filebox_core::MessageType::new("DIS").unwrap(),
                        "SQLite",
                    )
                })
                .unwrap();
            human
        });
        let cx = VerbContext::new(&bot).with_client(Some("test-client"));
        let result = AskQuestion::run(&cx, args(60)).unwrap().value;
        let human = answerer.join().unwrap();
        assert_eq!(result.status, QuestionStatus::Answered);
        assert_eq!(result.answer.unwrap().text, "SQLite");
        // Taken: in my done/, not new mail; no longer open for the human.
        let mine = bot.my_mailbox().unwrap();
        assert!(mine.list(Folder::Inbox).unwrap().messages.is_empty());
        assert_eq!(mine.list(Folder::Done).unwrap().messages.len(), 1);
        assert!(open_questions(&human).questions.is_empty());
        let again = GetAnswer::run(&cx, GetAnswerArgs { id: result.id })
            .unwrap()
            .value;
        assert_eq!(again.status, QuestionStatus::Answered);
    }

    #[test]
    fn an_answer_in_the_host_is_the_humans_reply_and_the_first_answer_wins() {
        let dir = tempfile::tempdir().unwrap();
        let bot = mailroom(dir.path(), "bot");
        let human = mailroom(dir.path(), "me");
        let cx = VerbContext::new(&bot);
        let asked = AskQuestion::run(&cx, args(0)).unwrap().value;
        answer_in_host(&bot, &asked.id, "Postgres").unwrap();
        let reply = look_for_answer(&cx, &asked.id, Duration::from_secs(3)).unwrap();
        assert_eq!(reply.value["status"], "answered");
        assert_eq!(reply.value["answer"]["from"], "me");
        assert_eq!(reply.text, "Postgres");
        assert!(open_questions(&human).questions.is_empty());
        // A second answer (the page's, or the host's again) is refused: answered once.
        let again = answer_in_host(&bot, &asked.id, "SQLite").unwrap_err();
        assert!(
            matches!(again, filebox_core::Error::AlreadyHandled { .. }),
            "{again}"
        );
        // Only the asker's own questions: the human's mailroom has none to answer this way.
        assert!(answer_in_host(&human, &asked.id, "x").is_err());
    }

    #[test]
    fn a_timeout_leaves_the_question_open_and_a_cancellation_withdraws_it() {
        let dir = tempfile::tempdir().unwrap();
        let bot = mailroom(dir.path(), "bot");
        let human = mailroom(dir.path(), "me");
        let cx = VerbContext::new(&bot);
        let open = AskQuestion::run(&cx, args(0)).unwrap().value;
        assert_eq!(open.status, QuestionStatus::Open);
        assert_eq!(open.kind, "ASK");
        let looked = GetAnswer::run(&cx, GetAnswerArgs { id: open.id })
            .unwrap()
            .value;
        assert_eq!(looked.status, QuestionStatus::Open);

        let report = ReportArgs {
            project_directory: "/src/app".into(),
            summary: "Done.".into(),
            timeout: None,
        };
        let cancelled = VerbContext::with_cancel(&bot, &|| true);
        let withdrawn = TaskFinish::run(&cancelled, report).unwrap().value;
        assert_eq!(withdrawn.status, QuestionStatus::Withdrawn);
        assert_eq!(withdrawn.kind, "RPT");
        // Only the open one is left for the human.
        assert_eq!(open_questions(&human).questions.len(), 1);
    }

    #[test]
    fn a_stopping_surface_ends_the_wait_and_leaves_the_question_open() {
        let dir = tempfile::tempdir().unwrap();
        let bot = mailroom(dir.path(), "bot");
        let human = mailroom(dir.path(), "me");
        let cx = VerbContext::new(&bot).with_stopping(&|| true);
        let result = AskQuestion::run(&cx, args(600)).unwrap().value;
        assert_eq!(result.status, QuestionStatus::Open);
        let open = open_questions(&human).questions;
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].id, result.id);
    }
}
