//! The FileBox side of the origin's human client: who logs in (a human, by a token the access
//! policy lets act as that human), the human's open questions as the origin's requests, an
//! answer given as the question's reply, and what became of a question that left the list.
//! Blocking: each call runs verbs as the human on the config as it is now, so a token removed
//! since the login refuses the next call.

use filebox_api::access::{Caller, Denied};
use filebox_api::verbs::{MessageStatus, OpenQuestions, ReplyMessage};
use filebox_api::{
    AttachmentArg, OpenQuestion, OpenQuestionsArgs, ReplyArgs, StatusArgs, Verb, VerbContext,
};
use filebox_core::{AgentId, AgentKind, Config, Folder, Mailroom};

use super::proto::{PendingMessage, cmd};
use crate::connect::proto::{
    AnswerResponse, AskQuestionRequest, McpAskQuestionRequest, McpResultContent,
    McpTaskFinishRequest, TaskFinishRequest,
};
use crate::hub::Hub;

/// The client name an answer given over `/ws` records.
const CLIENT: &str = "agentassist-ws";

/// A logged-in client: the human it acts as and the token it logged in with.
#[derive(Clone)]
pub(super) struct Login {
    hub: Hub,
    pub(super) human: AgentId,
    pub(super) token: String,
}

/// What became of a question that is no longer open.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(super) enum Gone {
    /// The asker stopped waiting.
    Withdrawn,
    /// Answered (here, on the page, by the CLI, in another client).
    Answered,
}

/// An open question as the origin's clients show it.
#[derive(Debug, Clone)]
pub(super) struct Shown {
    pub(super) id: String,
    pub(super) pending: PendingMessage,
}

impl Shown {
    pub(super) fn is_report(&self) -> bool {
        self.pending.message_type == cmd::WORK_REPORT
    }
}

impl Login {
    /// Log in with `token`: its agent, which must be a human; without a token, the config's
    /// first human, if a caller without one may act as it (a loopback hub, a human without a
    /// token), as the page does.
    pub(super) fn new(hub: &Hub, token: &str) -> Result<Login, String> {
        let config = hub.config().map_err(|e| e.to_string())?;
        let caller = caller(hub, &config, token).map_err(|denied| denied.to_string())?;
        let human = match caller.agent() {
            Some(agent) => agent.clone(),
            None => config
                .file
                .agents
                .iter()
                .find(|(_, entry)| entry.kind == Some(AgentKind::Human))
                .map(|(id, _)| id.clone())
                .ok_or("the config has no human mailbox (an agent entry \"kind\": \"human\")")?,
        };
        let is_human = config
            .agent(&human)
            .is_ok_and(|entry| entry.kind == Some(AgentKind::Human));
        if !is_human {
            return Err(format!(
                "this token is {human}'s, an agent's: log in with a human's token \
                 (`filebox agents token HUMAN`)"
            ));
        }
        let login = Login {
            hub: hub.clone(),
            human,
            token: token.to_owned(),
        };
        login.mailroom()?;
        Ok(login)
    }

    /// The human's mailroom, the access policy asked again on the config as it is now.
    fn mailroom(&self) -> Result<Mailroom, String> {
        let config = self.hub.config().map_err(|e| e.to_string())?;
        caller(&self.hub, &config, &self.token)
            .and_then(|caller| caller.act_as(&config, &self.human))
            .map_err(|denied| denied.to_string())
    }

    /// The human's open questions and work reports, oldest first, as the origin's requests.
    pub(super) fn open(&self) -> Result<Vec<Shown>, String> {
        let mailroom = self.mailroom()?;
        let open = OpenQuestions::run(&VerbContext::new(&mailroom), OpenQuestionsArgs {})
            .map_err(|e| e.to_string())?
            .value;
        let timeout =
            i32::try_from(mailroom.config().max_question_timeout_secs()).unwrap_or(i32::MAX);
        Ok(open
            .questions
            .into_iter()
            .map(|question| shown(question, &self.token, timeout))
            .collect())
    }

    /// What became of question `id`, which left the open list.
    pub(super) fn gone(&self, id: &str) -> Result<Gone, String> {
        let mailroom = self.mailroom()?;
        let status = MessageStatus::run(
            &VerbContext::new(&mailroom),
            StatusArgs { id: id.to_owned() },
        )
        .map_err(|e| e.to_string())?
        .value;
        Ok(match status.folder {
            Folder::Cancel => Gone::Withdrawn,
            _ => Gone::Answered,
        })
    }

    /// Answer question `id` with `response`'s contents: its text blocks are the reply, its
    /// images, audio and resources the reply's attachments. A question already answered or
    /// withdrawn refuses (the core's first-answer-wins rule).
    pub(super) fn answer(&self, id: &str, response: AnswerResponse) -> Result<(), String> {
        let mailroom = self.mailroom()?;
        let (content, attachments) = reply_of(response.contents);
        let args = ReplyArgs {
            id: id.to_owned(),
            content,
            kind: None,
            attachments: (!attachments.is_empty()).then_some(attachments),
            idempotency_key: None,
        };
        let cx = VerbContext::new(&mailroom).with_client(Some(CLIENT));
        ReplyMessage::run(&cx, args)
            .map(drop)
            .map_err(|e| e.to_string())
    }
}

/// The caller a token (none: a caller without one, as the hub sees it) is.
fn caller(hub: &Hub, config: &Config, token: &str) -> Result<Caller, Denied> {
    match token {
        "" => hub.caller(config, None),
        token => Caller::from_token(config, token),
    }
}

/// An open question as the request its agent made: `ID` is the FileBox message id (a reply
/// names it), `UserToken` the client's own (the origin's clients keep the requests of their
/// token), the timeout the longest an asker may wait here.
fn shown(question: OpenQuestion, token: &str, timeout: i32) -> Shown {
    let created_at = filebox_core::time::parse_iso(&question.asked_at).map_or(0, |t| t.as_second());
    let sent_at = question
        .sent_at
        .as_deref()
        .and_then(filebox_core::time::parse_iso)
        .map_or(0, |t| t.as_second());
    let text = |value: Option<String>| value.unwrap_or_default();
    let project_directory = text(question.project_directory);
    let agent_name = question.agent_name.unwrap_or(question.from);
    let reasoning_model_name = text(question.reasoning_model);
    let mcp_client_name = text(question.client);
    let mut pending = PendingMessage {
        created_at,
        timeout,
        ..PendingMessage::default()
    };
    if question.kind == filebox_core::message::WORK_REPORT {
        pending.message_type = cmd::WORK_REPORT.to_owned();
        pending.work_report_request = Some(TaskFinishRequest {
            id: question.id.clone(),
            user_token: token.to_owned(),
            request: Some(McpTaskFinishRequest {
                project_directory,
                summary: question.body,
                timeout,
                agent_name,
                reasoning_model_name,
                mcp_client_name,
            }),
            timestamp: sent_at,
        });
    } else {
        pending.message_type = cmd::ASK_QUESTION.to_owned();
        pending.ask_question_request = Some(AskQuestionRequest {
            id: question.id.clone(),
            user_token: token.to_owned(),
            request: Some(McpAskQuestionRequest {
                project_directory,
                question: question.body,
                timeout,
                agent_name,
                reasoning_model_name,
                mcp_client_name,
            }),
            timestamp: sent_at,
        });
    }
    Shown {
        id: question.id,
        pending,
    }
}

/// The reply's text (the text blocks, a blank line between) and its attachments (the other
/// blocks, named by kind, number and MIME type).
fn reply_of(contents: Vec<McpResultContent>) -> (String, Vec<AttachmentArg>) {
    let mut texts = Vec::new();
    let mut attachments = Vec::new();
    for (n, block) in contents.into_iter().enumerate() {
        let name = |kind: &str, mime: &str| {
            let extension = mime
                .rsplit('/')
                .next()
                .filter(|e| !e.is_empty())
                .unwrap_or("bin");
            format!("{kind}-{}.{extension}", n + 1)
        };
        if let Some(text) = block.text {
            texts.push(text.text);
        } else if let Some(media) = block.image.or(block.audio) {
            let kind = if media.kind.is_empty() {
                "file"
            } else {
                &media.kind
            };
            attachments.push(AttachmentArg {
                name: name(kind, &media.mime_type),
                mime_type: Some(media.mime_type).filter(|m| !m.is_empty()),
                data: media.data,
            });
        } else if let Some(resource) = block.embedded_resource {
            let named = resource
                .uri
                .rsplit('/')
                .next()
                .filter(|n| !n.is_empty())
                .map(str::to_owned);
            let name = named.unwrap_or_else(|| name("file", &resource.mime_type));
            let mime = Some(resource.mime_type).filter(|m| !m.is_empty());
            attachments.push(AttachmentArg::from_bytes(&name, mime, &resource.data));
        }
    }
    (texts.join("\n\n"), attachments)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::connect::proto::{MediaContent, TextContent};

    #[test]
    fn an_answer_is_its_text_blocks_and_its_media_become_attachments() {
        let text = |t: &str| McpResultContent {
            kind: 1,
            text: Some(TextContent {
                kind: "text".into(),
                text: t.into(),
            }),
            ..McpResultContent::default()
        };
        let image = McpResultContent {
            kind: 2,
            image: Some(MediaContent {
                kind: "image".into(),
                data: "iVBORw0KGgo=".into(),
                mime_type: "image/png".into(),
            }),
            ..McpResultContent::default()
        };
        let (content, attachments) = reply_of(vec![text("Yes."), image, text("Ship it.")]);
        assert_eq!(content, "Yes.\n\nShip it.");
        assert_eq!(attachments.len(), 1);
        assert_eq!(attachments[0].name, "image-2.png");
        assert_eq!(attachments[0].mime_type.as_deref(), Some("image/png"));
    }
}
