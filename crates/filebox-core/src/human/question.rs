//! The human channel: an agent's question or work report is a message of its own
//! type (`ASK`, `RPT`) to a human's mailbox, and the human's answer is the reply, which moves
//! the file into the asker's inbox. So a question survives any restart, every page that shows
//! the human's inbox sees it, a late answer still arrives, and the history is searchable.
//!
//! The protocol is here, whole: ask, wait on the change feed of my inbox for the answer (no
//! polling, no hub needed), withdraw the question when the asker gives up, take the answer
//! (it moves to my `done/`, so it is not new mail again). Looking at a question opens the
//! mailboxes to read only.

use std::time::{Duration, Instant};

use crate::agent::AgentId;
use crate::choice::AgentKind;
use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::mail::reply::SourceType;
use crate::mail::send::{SendReceipt, SendRequest};
use crate::mail::transition::Transition;
use crate::mailbox::attachment::{self, AttachmentRef};
use crate::mailbox::{Envelope, Mailbox, MessageRef};
use crate::mailroom::Mailroom;
use crate::message::{
    Header, Message, MessageType, PERMISSION, ProcessingEntry, QUESTION, WORK_REPORT, field,
    is_question,
};

/// How long a question waits for its answer when the caller does not say, in seconds.
pub const DEFAULT_TIMEOUT_SECS: u64 = 600;
/// The agent entry field that names an agent's human.
const HUMAN_FIELD: &str = "human";
/// The type of an answer given in the asker's host (the page's replies are discussions too).
const ANSWER: &str = "DIS";
/// The processing action a withdrawal records.
pub const WITHDRAWN: &str = "Withdrawn";
/// The processing details of a question withdrawn because its asker's call was cancelled.
const CANCELLED: &str = "the asking agent stopped waiting (its call was cancelled)";
/// The processing details of a question withdrawn because its asker cancelled the task that
/// waited for it (MCP's `tasks/cancel`).
const TASK_CANCELLED: &str = "the asking agent cancelled its task";
/// The processing details of an answer taken by the call that waited for it.
const TAKEN: &str = "answer returned to the asking tool call";

/// What an agent asks a human for.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum QuestionKind {
    /// A question that needs an answer.
    Question,
    /// A report of finished work that asks for confirmation or more instructions.
    WorkReport,
    /// A host's tool-use approval, answered allow or deny (`crate::human::permission`).
    Permission,
}

impl QuestionKind {
    pub fn message_type(self) -> MessageType {
        let name = match self {
            QuestionKind::Question => QUESTION,
            QuestionKind::WorkReport => WORK_REPORT,
            QuestionKind::Permission => PERMISSION,
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
    /// What the asking program says about who asks, shown beside the question.
    pub asked_by: AskedBy,
}

/// What an asking program may say about who asks (Agent Assistant's newer request fields):
/// each becomes a header field of the question when given.
#[derive(Debug, Clone, Default, PartialEq, Eq)]
pub struct AskedBy {
    /// The agent's own name for itself (`AgentName`).
    pub agent_name: Option<String>,
    /// The model it runs on (`ReasoningModelName`).
    pub reasoning_model: Option<String>,
    /// When the program sent the question by its own clock (`Timestamp`), ISO 8601 UTC.
    pub sent_at: Option<String>,
}

impl AskedBy {
    /// The header fields it adds, the blank ones left out.
    fn fields(&self) -> impl Iterator<Item = (&'static str, &str)> {
        [
            (field::AGENT_NAME, &self.agent_name),
            (field::REASONING_MODEL, &self.reasoning_model),
            (field::SENT_AT, &self.sent_at),
        ]
        .into_iter()
        .filter_map(|(name, value)| {
            let value = value.as_deref()?.trim();
            (!value.is_empty()).then_some((name, value))
        })
    }
}

/// How the asker waits for the answer, and what ends the wait besides it.
#[derive(Clone, Copy)]
pub struct AnswerWait<'a> {
    /// How long to wait (`None`: [`DEFAULT_TIMEOUT_SECS`]), bounded by the config's
    /// `max_question_timeout_secs`. The question stays open when it passes.
    pub timeout: Option<Duration>,
    /// The asker gave up (its call was cancelled): the question is withdrawn.
    pub cancelled: &'a dyn Fn() -> bool,
    /// The surface is stopping (a hub shutting down): the wait ends and the question stays
    /// open, for its answer to reach my inbox.
    pub stopping: &'a dyn Fn() -> bool,
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

/// A question I asked, as the asking call gets it back.
#[derive(Debug, Clone)]
pub struct Asked {
    /// Its Message ID.
    pub id: String,
    /// `ASK` or `RPT`.
    pub kind: String,
    pub state: QuestionState,
    /// How long the call waited for the answer.
    pub waited: Duration,
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

/// A question or work report waiting in a human's mailbox (inbox or hold) for its answer.
#[derive(Debug, Clone)]
pub struct OpenQuestion {
    pub header: Header,
    /// The question or the summary, in Markdown.
    pub body: String,
}

impl OpenQuestion {
    /// Who asks: the Original Sender, else the Sender.
    pub fn asker(&self) -> &str {
        self.header
            .get(field::ORIGINAL_SENDER)
            .or(self.header.get(field::SENDER))
            .unwrap_or_default()
    }

    /// When it was asked (its Timestamp).
    pub fn asked_at(&self) -> &str {
        self.header.get(field::TIMESTAMP).unwrap_or_default()
    }

    /// The project the asking agent works in.
    pub fn project_directory(&self) -> Option<&str> {
        self.header.get(field::PROJECT_DIRECTORY)
    }

    /// The asking program.
    pub fn client(&self) -> Option<&str> {
        self.header.get(field::CLIENT)
    }

    /// The quick answers offered.
    pub fn options(&self) -> Vec<String> {
        options(&self.header)
    }

    /// What the asking program said about who asks.
    pub fn asked_by(&self) -> AskedBy {
        let get = |name| self.header.get(name).map(str::to_owned);
        AskedBy {
            agent_name: get(field::AGENT_NAME),
            reasoning_model: get(field::REASONING_MODEL),
            sent_at: get(field::SENT_AT),
        }
    }
}

/// The quick answers of a question (its `Options` header, a JSON list of strings).
fn options(header: &Header) -> Vec<String> {
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

    /// Ask my human, then watch my inbox until the answer arrives (it is taken: moved to my
    /// `done/`), the timeout passes or the surface stops (the question stays open), or the
    /// call is cancelled (the question is withdrawn, unless the answer came first).
    /// A permission prompt is not asked here: only [`Mailroom::relay_permission`] asks one,
    /// holding its lease.
    pub fn ask_and_wait(&self, request: &QuestionRequest, wait: &AnswerWait<'_>) -> Result<Asked> {
        if request.kind == QuestionKind::Permission {
            return Err(Error::invalid(
                "question kind",
                PERMISSION,
                "a permission prompt is asked only by the permission relay (a live `filebox \
                 mcp` channel session): ask a question (ASK) instead",
            ));
        }
        let start = Instant::now();
        let reference = MessageRef::Id(self.ask(request)?.id);
        self.wait_for_answer(&reference, start, wait)
    }

    /// Watch my inbox for the answer to question `reference` I asked at `start`, as
    /// [`Mailroom::ask_and_wait`] does once it asked (a surface that also asks elsewhere, the
    /// MCP host's own form, waits here meanwhile).
    pub fn wait_for_answer(
        &self,
        reference: &MessageRef,
        start: Instant,
        wait: &AnswerWait<'_>,
    ) -> Result<Asked> {
        let deadline = start + self.answer_timeout(wait.timeout);
        // Watch before the first look, so an answer cannot slip in unseen.
        let mut watch = self.my_mailbox()?.watch_inbox()?;
        let reference = reference.clone();
        loop {
            let state = self.question_state(&reference)?;
            if !matches!(state, QuestionState::Open) || Instant::now() >= deadline {
                return self.asked(&reference, state, start.elapsed());
            }
            if (wait.cancelled)() {
                self.withdraw(&reference, CANCELLED)?;
                // Withdrawn, or answered just before: say which.
                let state = self.question_state(&reference)?;
                return self.asked(&reference, state, start.elapsed());
            }
            if (wait.stopping)() {
                return self.asked(&reference, state, start.elapsed());
            }
            let left = deadline.saturating_duration_since(Instant::now());
            watch.next(Some(left), &|| (wait.cancelled)() || (wait.stopping)())?;
        }
    }

    /// A question I asked, looked at once (a call that timed out looks again this way): its
    /// answer, taken if it just arrived, else whether it is open or withdrawn.
    pub fn look_for_answer(&self, reference: &MessageRef) -> Result<Asked> {
        let state = self.question_state(reference)?;
        self.asked(reference, state, Duration::ZERO)
    }

    /// The questions and work reports waiting in my inbox and hold for my answer, oldest
    /// first. A permission prompt is one only while its relay waits: one nobody waits for is
    /// withdrawn here (`crate::human::permission`), and one whose lease cannot be looked at is left
    /// out.
    pub fn open_questions(&self) -> Result<Vec<OpenQuestion>> {
        let mailbox = self.mailbox_to_read(self.me())?;
        let mut open = Vec::new();
        for folder in [Folder::Inbox, Folder::Hold] {
            for envelope in mailbox.list(folder)?.messages {
                if !is_question(&envelope.header.kind) {
                    continue;
                }
                let prompt = envelope.header.kind == PERMISSION;
                if prompt && !self.prompt_waited_for(&mailbox, &envelope).unwrap_or(false) {
                    continue;
                }
                // A file answered or withdrawn since the listing is simply not open any more.
                let Ok(message) = mailbox.read(&envelope) else {
                    continue;
                };
                open.push(OpenQuestion {
                    header: envelope.header,
                    body: message.body,
                });
            }
        }
        open.sort_by(|a, b| a.asked_at().cmp(b.asked_at()));
        Ok(open)
    }

    /// My human's answer to question `reference` I asked, given in my own host (an MCP
    /// client's form) rather than on their page: written as their reply, as the page writes it,
    /// so the first answer wins wherever it was given; refused as already handled when another
    /// came first. The host speaks for the human here: only the asker's own questions can be
    /// answered this way.
    /// Not a permission prompt: its asker is the agent whose tool run it approves.
    pub fn answer_in_host(&self, reference: &MessageRef, text: &str) -> Result<SendReceipt> {
        let asked = sent_question(&self.mailbox_to_read(self.me())?, reference)?;
        if asked.header.kind == PERMISSION {
            return Err(Error::invalid(
                "question",
                reference.text(),
                "a permission prompt is answered by the human, not in the asking agent's host",
            ));
        }
        let human = Mailroom::new(self.config().clone(), Some(&receiver(&asked)?))?
            .within(self.reach().clone());
        human.send(&SendRequest {
            reply_to: Some(MessageRef::Id(asked.header.id().to_owned())),
            ..SendRequest::new(self.me().to_string(), MessageType::new(ANSWER)?, text)
        })
    }

    /// Withdraw a question I asked whose task was cancelled (a task asks, then looks with
    /// [`Mailroom::look_for_answer`] at each poll): the human's copy moves to `cancel/`. Its
    /// state after: withdrawn, or answered when the answer came first.
    pub fn withdraw_question(&self, reference: &MessageRef) -> Result<Asked> {
        self.withdraw(reference, TASK_CANCELLED)?;
        self.look_for_answer(reference)
    }

    /// The timeout a caller asked for, bounded by the config.
    pub fn answer_timeout(&self, requested: Option<Duration>) -> Duration {
        let max = Duration::from_secs(self.config().max_question_timeout_secs());
        requested
            .unwrap_or(Duration::from_secs(DEFAULT_TIMEOUT_SECS))
            .min(max)
    }

    /// Send a question (or work report) to my human. Replies come back to me.
    fn ask(&self, request: &QuestionRequest) -> Result<SendReceipt> {
        self.ask_as(request, || uuid::Uuid::new_v4().to_string())
    }

    /// [`Mailroom::ask`] with the Message ID drawn from `new_id` (the permission relay's is the
    /// one it leased first).
    pub(crate) fn ask_as(
        &self,
        request: &QuestionRequest,
        new_id: impl FnMut() -> String,
    ) -> Result<SendReceipt> {
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
        extra.extend(request.asked_by.fields());
        self.send_new_from(&send, &extra, new_id)
    }

    /// Where a question I asked stands. Reads only: no mailbox is created or recovered.
    fn question_state(&self, reference: &MessageRef) -> Result<QuestionState> {
        let mine = self.mailbox_to_read(self.me())?;
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
        let asked = sent_question(&mine, reference)?;
        let theirs = self.mailbox_to_read(&receiver(&asked)?)?;
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
    /// `cancel/` with a `Withdrawn` line in its Processing History saying why (`details`), so
    /// the page closes its card. `false` if it was no longer open (answered meanwhile: the
    /// answer is in my inbox).
    pub fn withdraw(&self, reference: &MessageRef, details: &str) -> Result<bool> {
        let asked = sent_question(&self.mailbox_to_read(self.me())?, reference)?;
        let theirs = self.mailbox(&receiver(&asked)?)?;
        let id = MessageRef::Id(asked.header.id().to_owned());
        self.withdraw_from(&theirs, &id, details, |_| Ok(()))
    }

    /// Move the open copy of question `id` in `theirs` (inbox or hold) to `cancel/` with a
    /// `Withdrawn` line, once `check` accepts it. `false` when there is none (answered).
    pub(crate) fn withdraw_from(
        &self,
        theirs: &Mailbox,
        id: &MessageRef,
        details: &str,
        check: impl Fn(&Envelope) -> Result<()>,
    ) -> Result<bool> {
        // A move that finds the copy gone lost a race: to an answer (then it is not open any
        // more), or to a rewrite in place (a delivery receipt recorded on a spool copy, a read
        // mark), after which the copy is found again and withdrawn.
        loop {
            let found = match theirs.find_settled(id, &[Folder::Inbox, Folder::Hold]) {
                Ok(found) => found,
                Err(Error::NotFound { .. }) => return Ok(false),
                Err(e) => return Err(e),
            };
            check(&found)?;
            if self.record_move(theirs, &found, Folder::Cancel, WITHDRAWN, details)? {
                return Ok(true);
            }
        }
    }

    /// Withdraw, for me its asker on another machine, question `id` waiting in the inbox or
    /// hold of `human` here (the asker's hub said it was withdrawn there): the copy moves to
    /// `cancel/` with a `Withdrawn` line, as on one machine, so it leaves the page and a late
    /// answer is refused. `false` if it was no longer open (answered: the answer is on its way).
    pub fn withdraw_travelled(&self, human: &AgentId, id: &str, details: &str) -> Result<bool> {
        let theirs = self.mailbox(human)?;
        self.withdraw_from(&theirs, &MessageRef::parse(id)?, details, |found| {
            let asker = found
                .header
                .get(field::ORIGINAL_SENDER)
                .or_else(|| found.header.get(field::SENDER));
            if is_question(&found.header.kind) && asker == Some(self.me().as_str()) {
                Ok(())
            } else {
                Err(Error::invalid(
                    "withdrawal",
                    id,
                    "only the agent that asked a question can withdraw it",
                ))
            }
        })
    }

    /// A question's state as the asking call gets it. An answer that just arrived in my inbox
    /// is taken: moved to `done/` (another call may have taken it first).
    fn asked(
        &self,
        reference: &MessageRef,
        state: QuestionState,
        waited: Duration,
    ) -> Result<Asked> {
        let header = match &state {
            QuestionState::Answered(answer) => {
                if answer.envelope.folder == Folder::Inbox {
                    let action = Transition::Resolve.action();
                    self.record_move(
                        &self.my_mailbox()?,
                        &answer.envelope,
                        Folder::Done,
                        action,
                        TAKEN,
                    )?;
                }
                answer.envelope.header.clone()
            }
            QuestionState::Open | QuestionState::Withdrawn(_) => {
                sent_question(&self.mailbox_to_read(self.me())?, reference)?.header
            }
        };
        Ok(Asked {
            id: header.id().to_owned(),
            kind: header.kind,
            state,
            waited,
        })
    }
}

/// My outbox copy of a question I asked.
fn sent_question(mine: &Mailbox, reference: &MessageRef) -> Result<Envelope> {
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
    use crate::mailbox::attachment::Attachment;
    use crate::mailroom::config::{AgentEntry, Config, ConfigFile};

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
            asked_by: AskedBy::default(),
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
    fn looking_at_a_question_reads_only_and_a_second_look_finds_the_answer_taken() {
        let dir = tempfile::tempdir().unwrap();
        let bot = mailroom(dir.path(), "bot");
        let human = mailroom(dir.path(), "me");
        let asked = bot.ask(&question(&[])).unwrap();
        let id = MessageRef::Id(asked.id.clone());
        // A staging file nobody holds: opening the human's mailbox to write would remove it.
        let stale = dir.path().join("me/tmp/stale.part");
        std::fs::write(&stale, "staged").unwrap();
        let looked = bot.look_for_answer(&id).unwrap();
        assert!(matches!(looked.state, QuestionState::Open));
        assert_eq!(
            (looked.id.as_str(), looked.kind.as_str()),
            (asked.id.as_str(), QUESTION)
        );
        assert!(stale.exists(), "a look recovered the human's tmp/");

        human
            .send(&SendRequest {
                reply_to: Some(id.clone()),
                ..SendRequest::new("bot", MessageType::new("DIS").unwrap(), "Yes")
            })
            .unwrap();
        assert_eq!(
            human.open_questions().unwrap().len(),
            0,
            "an answered question is not open"
        );
        let QuestionState::Answered(answer) = bot.look_for_answer(&id).unwrap().state else {
            panic!("not answered");
        };
        assert_eq!(answer.envelope.folder, Folder::Inbox);
        // Taken by the first look: the second finds it in done/, not as new mail.
        let QuestionState::Answered(again) = bot.look_for_answer(&id).unwrap().state else {
            panic!("not answered");
        };
        assert_eq!(again.envelope.folder, Folder::Done);
        assert_eq!(again.text, "Yes");
    }

    #[test]
    fn a_cancelled_wait_withdraws_and_a_stopping_one_leaves_the_question_open() {
        let dir = tempfile::tempdir().unwrap();
        let bot = mailroom(dir.path(), "bot");
        let human = mailroom(dir.path(), "me");
        let wait = |cancelled: &'static dyn Fn() -> bool, stopping: &'static dyn Fn() -> bool| {
            AnswerWait {
                timeout: Some(Duration::from_secs(600)),
                cancelled,
                stopping,
            }
        };
        let stopped = bot
            .ask_and_wait(&question(&[]), &wait(&|| false, &|| true))
            .unwrap();
        assert!(matches!(stopped.state, QuestionState::Open));
        let cancelled = bot
            .ask_and_wait(&question(&[]), &wait(&|| true, &|| false))
            .unwrap();
        let QuestionState::Withdrawn(entry) = cancelled.state else {
            panic!("not withdrawn");
        };
        assert_eq!(entry.details, CANCELLED);
        let open = human.open_questions().unwrap();
        assert_eq!(open.len(), 1);
        assert_eq!(open[0].header.id(), stopped.id);
        assert_eq!(open[0].asker(), "bot");
        assert_eq!(open[0].project_directory(), Some("/src/app"));
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
