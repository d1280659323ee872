//! The human channel (seed 001): an agent's question or work report is a message of its own
//! type (`ASK`, `RPT`) to a human's mailbox, and the human's answer is the reply, which moves
//! the file into the asker's inbox. So a question survives any restart, every page that shows
//! the human's inbox sees it, a late answer still arrives, and the history is searchable.

use crate::agent::AgentId;
use crate::attachment::{self, AttachmentRef};
use crate::choice::AgentKind;
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mailbox::{Envelope, Mailbox, MessageRef};
use crate::mailroom::Mailroom;
use crate::message::{Header, Message, MessageType, ProcessingEntry, field};
use crate::send::{SendReceipt, SendRequest, SourceType};

/// The message type of a question (`ask_question`).
pub const QUESTION: &str = "ASK";
/// The message type of a work report (`task_finish` / `work_report`).
pub const WORK_REPORT: &str = "RPT";
/// The agent entry field that names an agent's human.
const HUMAN_FIELD: &str = "human";
/// The processing action a withdrawal records.
pub const WITHDRAWN: &str = "Withdrawn";

/// Whether messages of this type are questions to a human (answered once).
pub fn is_question(kind: &str) -> bool {
    kind == QUESTION || kind == WORK_REPORT
}

/// What an agent asks a human for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuestionKind {
    /// A question that needs an answer.
    Question,
    /// A report of finished work that asks for confirmation or more instructions.
    WorkReport,
}

impl QuestionKind {
    pub fn message_type(self) -> MessageType {
        let name = match self {
            QuestionKind::Question => QUESTION,
            QuestionKind::WorkReport => WORK_REPORT,
        };
        MessageType::new(name).expect("the human-channel types are valid message types")
    }
}

/// A question to send.
#[derive(Debug, Clone)]
pub struct QuestionRequest {
    pub kind: QuestionKind,
    /// The project the agent works in, shown to the human.
    pub project_directory: String,
    /// The question or the summary, in Markdown.
    pub text: String,
    /// Quick answers a page offers as buttons.
    pub options: Vec<String>,
    /// The asking program (the MCP client's name from `initialize`).
    pub client: Option<String>,
}

/// Where a question stands, seen from the agent that asked it.
#[derive(Debug, Clone)]
pub enum QuestionState {
    /// Waiting in the human's mailbox.
    Open,
    /// Answered: the reply is in my mailbox.
    Answered(Answer),
    /// The asker stopped waiting; the human's copy is in `cancel/` with this entry.
    Withdrawn(ProcessingEntry),
}

/// A human's answer, as it reached my mailbox.
#[derive(Debug, Clone)]
pub struct Answer {
    /// My copy of the answered question.
    pub envelope: Envelope,
    pub from: String,
    pub timestamp: String,
    /// The answer's text without its attachment links.
    pub text: String,
    /// Stored in my mailbox's `attachments/<message-id>/`.
    pub attachments: Vec<AttachmentRef>,
}

/// The quick answers of a question (its `Options` header, a JSON list of strings).
pub fn options(header: &Header) -> Vec<String> {
    header
        .get(field::OPTIONS)
        .and_then(|json| serde_json::from_str(json).ok())
        .unwrap_or_default()
}

impl Mailroom {
    /// The human mailbox `agent` asks: the one its entry's `"human"` field names, else the
    /// first entry (by id) of `"kind": "human"`.
    pub fn human_for(&self, agent: &AgentId) -> Result<AgentId> {
        let config = self.config();
        let named = config.agent(agent)?.extra.get(HUMAN_FIELD);
        if let Some(value) = named {
            let id = value
                .as_str()
                .ok_or_else(|| Error::Config {
                    path: config.path.clone(),
                    reason: format!("the \"human\" field of agent {agent} must be an agent id"),
                })
                .and_then(AgentId::new)?;
            config.agent(&id)?;
            return Ok(id);
        }
        config
            .file
            .agents
            .iter()
            .find(|(_, entry)| entry.kind == Some(AgentKind::Human))
            .map(|(id, _)| id.clone())
            .ok_or_else(|| Error::Config {
                path: config.path.clone(),
                reason: "no human mailbox: give an agent entry \"kind\": \"human\" (or this \
                         agent a \"human\" field naming one)"
                    .into(),
            })
    }

    /// Send a question (or work report) to my human. Replies come back to me.
    pub fn ask(&self, request: &QuestionRequest) -> Result<SendReceipt> {
        if request.text.trim().is_empty() {
            return Err(Error::invalid(
                "question",
                "",
                "say what you want to know or what you did",
            ));
        }
        let human = self.human_for(self.me())?;
        if &human == self.me() {
            return Err(Error::invalid(
                "asker",
                human.as_str(),
                "a human mailbox cannot ask itself",
            ));
        }
        let options: Vec<&str> = request
            .options
            .iter()
            .map(|o| o.trim())
            .filter(|o| !o.is_empty())
            .collect();
        let options_json = serde_json::to_string(&options).unwrap_or_default();
        let send = SendRequest {
            source_type: Some(SourceType::Agent),
            ..SendRequest::new(
                human.to_string(),
                request.kind.message_type(),
                request.text.clone(),
            )
        };
        let mut extra = vec![(field::PROJECT_DIRECTORY, request.project_directory.trim())];
        if let Some(client) = request.client.as_deref().filter(|c| !c.trim().is_empty()) {
            extra.push((field::CLIENT, client));
        }
        if !options.is_empty() {
            extra.push((field::OPTIONS, &options_json));
        }
        self.send_new_with(&send, &extra)
    }

    /// Where a question I asked stands. Reads only.
    pub fn question_state(&self, reference: &MessageRef) -> Result<QuestionState> {
        let mine = self.my_mailbox()?;
        // The answered copy is in my inbox (new), hold, or done (already taken).
        match mine.find_settled(reference, &[Folder::Inbox, Folder::Hold, Folder::Done]) {
            Ok(envelope) => {
                let message = mine.read(&envelope)?;
                if let Some(answer) = answer_in(envelope, &message, self.me()) {
                    return Ok(QuestionState::Answered(answer));
                }
            }
            Err(Error::NotFound { .. }) => {}
            Err(e) => return Err(e),
        }
        let asked = self.asked(&mine, reference)?;
        let theirs = self.mailbox(&receiver(&asked)?)?;
        let id = MessageRef::Id(asked.header.id().to_owned());
        match theirs.find(&id, &[Folder::Cancel]) {
            Ok(withdrawn) => {
                let message = theirs.read(&withdrawn)?;
                let entry = message
                    .processing
                    .into_iter()
                    .rev()
                    .find(|e| e.action == WITHDRAWN);
                Ok(entry.map_or(QuestionState::Open, QuestionState::Withdrawn))
            }
            Err(Error::NotFound { .. }) => Ok(QuestionState::Open),
            Err(e) => Err(e),
        }
    }

    /// Withdraw a question I asked that is still open: the human's copy moves to their
    /// `cancel/` with a `Withdrawn` line in its Processing History. `false` if it was no longer
    /// open (answered meanwhile: the answer is in my inbox).
    pub fn withdraw(&self, reference: &MessageRef, details: &str) -> Result<bool> {
        let mine = self.my_mailbox()?;
        let asked = self.asked(&mine, reference)?;
        let theirs = self.mailbox(&receiver(&asked)?)?;
        let id = MessageRef::Id(asked.header.id().to_owned());
        let found = match theirs.find_settled(&id, &[Folder::Inbox, Folder::Hold]) {
            Ok(found) => found,
            Err(Error::NotFound { .. }) => return Ok(false),
            Err(e) => return Err(e),
        };
        self.record_move(&theirs, &found, Folder::Cancel, WITHDRAWN, details)
    }

    /// My outbox copy of a question I asked.
    fn asked(&self, mine: &Mailbox, reference: &MessageRef) -> Result<Envelope> {
        let asked = mine.find_settled(reference, &[Folder::Outbox])?;
        if !is_question(&asked.header.kind) {
            return Err(Error::invalid(
                "question",
                reference.text(),
                "that message is not a question (ASK) or work report (RPT)",
            ));
        }
        Ok(asked)
    }
}

/// The human a question went to.
fn receiver(asked: &Envelope) -> Result<AgentId> {
    let name = asked
        .header
        .list(field::RECEIVER)
        .into_iter()
        .next()
        .unwrap_or_default();
    AgentId::new(&name)
}

/// The latest reply in a question's conversation from someone other than me.
fn answer_in(envelope: Envelope, message: &Message, me: &AgentId) -> Option<Answer> {
    let entry = message
        .conversation
        .iter()
        .rev()
        .find(|e| e.from != me.as_str())?;
    let (text, attachments) = attachment::split_links(&entry.body, envelope.header.id());
    Some(Answer {
        from: entry.from.clone(),
        timestamp: entry.timestamp.clone(),
        text,
        attachments,
        envelope,
    })
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use super::*;
    use crate::attachment::Attachment;
    use crate::config::{AgentEntry, Config, ConfigFile};

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
        let config = Config {
            path: dir.join("config.json"),
            file: ConfigFile {
                agents,
                ..ConfigFile::default()
            },
        };
        Mailroom::new(config, Some(&AgentId::new(me).unwrap())).unwrap()
    }

    fn question(options: &[&str]) -> QuestionRequest {
        QuestionRequest {
            kind: QuestionKind::Question,
            project_directory: "/src/app".into(),
            text: "Ship it?".into(),
            options: options.iter().map(|o| o.to_string()).collect(),
            client: Some("claude-code".into()),
        }
    }

    #[test]
    fn a_question_is_answered_once_with_attachments_and_the_answer_reaches_the_asker() {
        let dir = tempfile::tempdir().unwrap();
        let bot = mailroom(dir.path(), "bot");
        let human = mailroom(dir.path(), "me");
        let asked = bot.ask(&question(&["Yes", "No, wait"])).unwrap();
        let id = MessageRef::Id(asked.id.clone());
        assert!(matches!(
            bot.question_state(&id).unwrap(),
            QuestionState::Open
        ));

        let inbox = human.my_mailbox().unwrap().list(Folder::Inbox).unwrap();
        let header = &inbox.messages[0].header;
        assert_eq!(header.kind, QUESTION);
        assert_eq!(header.get(field::PROJECT_DIRECTORY), Some("/src/app"));
        assert_eq!(header.get(field::CLIENT), Some("claude-code"));
        assert_eq!(options(header), ["Yes", "No, wait"]);

        let reply = |text: &str| SendRequest {
            reply_to: Some(id.clone()),
            attachments: vec![Attachment {
                name: "shot.png".into(),
                mime: None,
                bytes: b"png bytes".to_vec(),
            }],
            ..SendRequest::new("bot", MessageType::new("DIS").unwrap(), text)
        };
        human.send(&reply("Yes, ship it")).unwrap();
        // The second answer is refused and changes nothing.
        let second = human.send(&reply("No!"));
        assert!(
            matches!(second, Err(Error::AlreadyHandled { .. })),
            "{second:?}"
        );

        let QuestionState::Answered(answer) = bot.question_state(&id).unwrap() else {
            panic!("not answered");
        };
        assert_eq!(answer.from, "me");
        assert_eq!(answer.text, "Yes, ship it");
        assert_eq!(answer.attachments.len(), 1);
        assert_eq!(answer.envelope.folder, Folder::Inbox);
        let bytes = bot
            .my_mailbox()
            .unwrap()
            .read_attachment(&asked.id, &answer.attachments[0].name)
            .unwrap();
        assert_eq!(bytes, b"png bytes");
        // Answered questions cannot be withdrawn.
        assert!(!bot.withdraw(&id, "stopped").unwrap());
    }

    #[test]
    fn the_one_who_answers_files_the_question_in_done_and_other_replies_in_outbox() {
        let dir = tempfile::tempdir().unwrap();
        let bot = mailroom(dir.path(), "bot");
        let human = mailroom(dir.path(), "me");
        let count = |mailroom: &Mailroom, folder| {
            let listing = mailroom.my_mailbox().unwrap().list(folder).unwrap();
            listing.messages.len()
        };
        let reply = |to: &str, id: &str, text: &str| SendRequest {
            reply_to: Some(MessageRef::Id(id.to_owned())),
            ..SendRequest::new(to, MessageType::new("DIS").unwrap(), text)
        };
        let asked = bot.ask(&question(&[])).unwrap();
        human.send(&reply("bot", &asked.id, "Yes")).unwrap();
        assert_eq!(count(&human, Folder::Done), 1);
        assert_eq!(count(&human, Folder::Outbox), 0);
        // The asker following up on its own question keeps its copy in its outbox, as any reply.
        bot.send(&reply("me", &asked.id, "Thanks, shipping"))
            .unwrap();
        assert_eq!(count(&bot, Folder::Outbox), 1);
        assert_eq!(count(&bot, Folder::Done), 0);
        // An ordinary message the human answers stays in their outbox.
        let plain = bot
            .send(&SendRequest::new(
                "me",
                MessageType::new("DIS").unwrap(),
                "Lunch?",
            ))
            .unwrap();
        human.send(&reply("bot", &plain.id, "At one")).unwrap();
        assert_eq!(count(&human, Folder::Outbox), 1);
    }

    #[test]
    fn a_withdrawn_question_says_so_and_cannot_be_answered() {
        let dir = tempfile::tempdir().unwrap();
        let bot = mailroom(dir.path(), "bot");
        let human = mailroom(dir.path(), "me");
        let asked = bot.ask(&question(&[])).unwrap();
        let id = MessageRef::Id(asked.id.clone());
        assert!(bot.withdraw(&id, "the call was cancelled").unwrap());
        let QuestionState::Withdrawn(entry) = bot.question_state(&id).unwrap() else {
            panic!("not withdrawn");
        };
        assert_eq!(entry.by, "bot");
        assert_eq!(entry.details, "the call was cancelled");
        let late = human.send(&SendRequest {
            reply_to: Some(id),
            ..SendRequest::new("bot", MessageType::new("DIS").unwrap(), "ok")
        });
        assert!(
            matches!(late, Err(Error::AlreadyHandled { .. })),
            "{late:?}"
        );
    }

    #[test]
    fn the_human_is_the_named_one_else_the_first_of_kind_human() {
        let dir = tempfile::tempdir().unwrap();
        let bot = mailroom(dir.path(), "bot");
        assert_eq!(bot.human_for(bot.me()).unwrap().as_str(), "me");
        let mut config = bot.config().clone();
        let entry = config
            .file
            .agents
            .get_mut(&AgentId::new("bot").unwrap())
            .unwrap();
        entry.extra.insert("human".into(), "nobody".into());
        let named = Mailroom::new(config, Some(&AgentId::new("bot").unwrap())).unwrap();
        assert!(matches!(
            named.human_for(named.me()),
            Err(Error::UnknownAgent(_))
        ));
    }
}
