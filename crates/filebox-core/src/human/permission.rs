//! Tool-use approvals relayed to a human: a host (Claude Code's channel) asks whether its agent
//! may run a tool; the request becomes a question of its own type (`PRM`) in the agent's
//! human's mailbox, offering Allow and Deny, answered once like any question (on the page, by
//! `filebox reply`, over JSON-RPC). A request the host no longer needs (it was answered in the
//! terminal, the session went on or ended, no answer came in time) is withdrawn, saying why,
//! so no page keeps a card nobody is waiting for. Every decision stays in the files.
//!
//! Only the relay writes a `PRM`: no verb sends one ([`MessageType::refuse_reserved`]), an import delivers
//! one as plain mail, and the relay holds the prompt's lease (`crate::human::prompt_lease`) while it
//! waits. A `PRM` whose lease nobody holds (its `filebox mcp` was killed, or it was planted) is
//! withdrawn by whoever sees it first (a listing, an answer, the hub), saying nobody waits. An
//! answer needs a mailroom that may approve ([`crate::Approvals`]).
use std::time::{Duration, Instant};

use crate::error::{Error, Result};
use crate::folder::Folder;
use crate::human::prompt_lease::{self, Lease};
use crate::human::question::{AnswerWait, AskedBy, QuestionKind, QuestionRequest, QuestionState};
use crate::mailbox::{Envelope, Mailbox, MessageRef};
use crate::mailroom::{Approvals, Mailroom};
use crate::message::{PERMISSION, field};

/// The options a permission question offers.
pub const OPTIONS: [&str; 2] = ["Allow", "Deny"];

/// The processing details of a prompt withdrawn because no live session holds its lease.
pub const NOBODY_WAITING: &str =
    "the session that asked is gone: nobody is waiting for this answer";

/// The longest input preview shown, in characters (the host already cuts it to about 200).
const PREVIEW_CHARS: usize = 400;

/// What follows an input preview cut at [`PREVIEW_CHARS`].
const CUT_MARK: &str = " … [cut: the input goes on]";

/// What the host asks.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PermissionRequest {
    /// The host's id for the prompt, sent back with the decision.
    pub request_id: String,
    /// The tool, e.g. `Bash`.
    pub tool_name: String,
    /// What the call does, in words.
    pub description: String,
    /// The tool's input, as JSON, cut.
    pub input_preview: String,
}

/// The human's decision.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Behavior {
    Allow,
    Deny,
}

impl Behavior {
    /// An answer's decision: `allow` (or `yes`, `ok`, `approve`) at its start allows; anything
    /// else denies, so an unclear answer never approves.
    pub fn of_answer(text: &str) -> Behavior {
        let first = text
            .split(|c: char| !c.is_alphanumeric())
            .find(|word| !word.is_empty())
            .unwrap_or_default()
            .to_lowercase();
        match first.as_str() {
            "allow" | "allowed" | "yes" | "y" | "ok" | "approve" | "approved" => Behavior::Allow,
            _ => Behavior::Deny,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            Behavior::Allow => "allow",
            Behavior::Deny => "deny",
        }
    }
}

/// How a relayed request ended.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Relayed {
    /// Answered by `by`: send the decision to the host.
    Decided { behavior: Behavior, by: String },
    /// Withdrawn from the human's mailbox, for this reason: send nothing.
    Withdrawn(String),
}

/// How long a relayed request waits, and what ends it early.
pub struct RelayWait<'a> {
    /// Withdrawn after this long without an answer.
    pub timeout: Duration,
    /// Why the host no longer needs the answer, once it does not (the session went on or
    /// ended); `None` while it waits.
    pub gone: &'a dyn Fn() -> Option<String>,
}

impl PermissionRequest {
    /// The question the human reads: "dev wants to run Bash: …", then the input.
    fn question(
        &self,
        asker: &str,
        project_directory: &str,
        client: Option<&str>,
    ) -> QuestionRequest {
        let mut preview: String = self.input_preview.chars().take(PREVIEW_CHARS).collect();
        if preview.len() < self.input_preview.len() {
            // The human approves what they read: a cut input says so where it stops.
            preview.push_str(CUT_MARK);
        }
        let fence = if preview.contains("```") {
            "~~~"
        } else {
            "```"
        };
        let text = format!(
            "{asker} wants to run {}: {}\n\n{fence}json\n{preview}\n{fence}\n\nRequest `{}`: answer Allow or Deny.",
            self.tool_name,
            one_line(&self.description),
            self.request_id,
        );
        QuestionRequest {
            kind: QuestionKind::Permission,
            project_directory: project_directory.to_owned(),
            text,
            options: OPTIONS.iter().map(|o| (*o).to_owned()).collect(),
            client: client.map(str::to_owned),
            asked_by: AskedBy::default(),
        }
    }
}

impl Mailroom {
    /// Ask my human whether I may run the tool, and wait for the decision until it comes, the
    /// host no longer needs it (`wait.gone`) or `wait.timeout` passes; the last two withdraw
    /// the question with the reason (unless the answer came first, which then decides).
    pub fn relay_permission(
        &self,
        request: &PermissionRequest,
        project_directory: &str,
        client: Option<&str>,
        wait: &RelayWait<'_>,
    ) -> Result<Relayed> {
        let question = request.question(self.me().as_str(), project_directory, client);
        let human = self.human_for(self.me())?;
        if self.is_remote(&human) {
            return Err(Error::invalid(
                "human",
                human.as_str(),
                "a permission prompt is relayed to a human on this machine only (its lease is a \
                 lock here): name a local human mailbox in this agent's \"human\" field",
            ));
        }
        // The lease is taken before the prompt is written, and held until this returns.
        let id = uuid::Uuid::new_v4();
        let _lease = Lease::take(&self.mailbox(&human)?, &id)?;
        let start = Instant::now();
        let reference = MessageRef::Id(self.ask_as(&question, || id.to_string())?.id);
        let asked = self.wait_for_answer(
            &reference,
            start,
            &AnswerWait {
                timeout: Some(wait.timeout),
                cancelled: &|| false,
                stopping: &|| (wait.gone)().is_some(),
            },
        )?;
        let state = match asked.state {
            QuestionState::Open => {
                let why = (wait.gone)().unwrap_or_else(|| {
                    format!(
                        "no answer within {} s: the prompt is left to the terminal",
                        wait.timeout.as_secs()
                    )
                });
                if self.withdraw(&reference, &why)? {
                    return Ok(Relayed::Withdrawn(why));
                }
                self.look_for_answer(&reference)?.state
            }
            state => state,
        };
        Ok(match state {
            QuestionState::Answered(answer) => Relayed::Decided {
                behavior: Behavior::of_answer(&answer.text),
                by: answer.from,
            },
            QuestionState::Withdrawn(entry) => Relayed::Withdrawn(entry.details),
            QuestionState::Open => Relayed::Withdrawn("still open".into()),
        })
    }

    /// Whether the prompt `found` in my mailbox (inbox or hold) is still waited for; when its
    /// lease is not held, it is withdrawn saying nobody waits ([`NOBODY_WAITING`]), and `false`.
    pub(crate) fn prompt_waited_for(&self, mine: &Mailbox, found: &Envelope) -> Result<bool> {
        if prompt_lease::is_held(mine, found.header.id())? {
            return Ok(true);
        }
        let id = MessageRef::Id(found.header.id().to_owned());
        self.withdraw_from(&self.my_mailbox()?, &id, NOBODY_WAITING, |_| Ok(()))?;
        prompt_lease::remove_stale(mine, found.header.id());
        Ok(false)
    }

    /// Wait until the relay of prompt `id` in my mailbox lets go of its lease (it was answered,
    /// withdrawn, or its process died), then withdraw the prompt if it is still open: `true`
    /// when this withdrew it. For a surface that shows prompts live (the hub), so a card
    /// closes when the session that asked is killed. Blocks: run it on a thread of its own.
    pub fn withdraw_prompt_when_abandoned(&self, id: &str) -> Result<bool> {
        let mine = self.my_mailbox()?;
        prompt_lease::wait_until_free(&mine, id)?;
        let reference = MessageRef::parse(id)?;
        self.withdraw_from(&mine, &reference, NOBODY_WAITING, |found| {
            match found.header.kind == PERMISSION {
                true => Ok(()),
                false => Err(Error::invalid("prompt", id, "not a permission prompt")),
            }
        })
    }

    /// Before I answer `found`, a message of my mailbox: a permission prompt asked of me is
    /// answered only by a mailroom that may approve, and only while its relay waits (else it
    /// is withdrawn and the answer refused as already handled: nobody is waiting).
    pub(crate) fn check_permission_answer(
        &self,
        found: &Envelope,
        reference: &MessageRef,
    ) -> Result<()> {
        let asked_of_me = found.header.kind == PERMISSION
            && found.header.get(field::ORIGINAL_SENDER) != Some(self.me().as_str())
            && matches!(found.folder, Folder::Inbox | Folder::Hold);
        if !asked_of_me {
            return Ok(());
        }
        if let Approvals::Refused(reason) = self.approvals() {
            return Err(Error::Unapproved {
                reference: reference.text().to_owned(),
                reason: reason.clone(),
            });
        }
        if self.prompt_waited_for(&self.my_mailbox()?, found)? {
            return Ok(());
        }
        Err(Error::AlreadyHandled {
            reference: reference.text().to_owned(),
            folder: format!("cancel/ of {} (withdrawn: {NOBODY_WAITING})", self.me()),
        })
    }
}

fn one_line(text: &str) -> String {
    text.split_whitespace().collect::<Vec<_>>().join(" ")
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;
    use std::sync::Mutex;

    use super::*;
    use crate::mailroom::config::{AgentEntry, Config, ConfigFile};
    use crate::{AgentId, AgentKind, Folder, MessageType, SendRequest};

    fn mailroom(dir: &std::path::Path, me: &str) -> Mailroom {
        let mut agents = BTreeMap::new();
        for (id, kind) in [("me", Some(AgentKind::Human)), ("dev", None)] {
            let mut entry = AgentEntry::new(dir.join(id));
            entry.kind = kind;
            agents.insert(AgentId::new(id).unwrap(), entry);
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

    fn request() -> PermissionRequest {
        PermissionRequest {
            request_id: "abcde".into(),
            tool_name: "Bash".into(),
            description: "Run the tests".into(),
            input_preview: r#"{"command":"cargo test"}"#.into(),
        }
    }

    #[test]
    fn the_question_holds_the_input_whole_or_says_where_it_was_cut() {
        let fenced = PermissionRequest {
            input_preview: r#"{"command":"echo ``` ; rm -rf ~/*.bak *"}"#.into(),
            ..request()
        };
        let text = fenced.question("dev", "/src", None).text;
        assert!(text.contains(&fenced.input_preview), "{text}");
        assert!(!text.contains(CUT_MARK), "{text}");

        let long = PermissionRequest {
            input_preview: format!(r#"{{"command":"{}"}}"#, "é".repeat(PREVIEW_CHARS)),
            ..request()
        };
        let text = long.question("dev", "/src", None).text;
        let kept: String = long.input_preview.chars().take(PREVIEW_CHARS).collect();
        assert!(text.contains(&format!("{kept}{CUT_MARK}\n")), "{text}");
    }

    /// Answer the first open question in `me`'s mailbox with `text`, once it is there.
    fn answer_when_asked(human: &Mailroom, text: &str) -> crate::Result<crate::SendReceipt> {
        let id = loop {
            if let Some(open) = human.open_questions().unwrap().first() {
                break open.header.id().to_owned();
            }
            std::thread::sleep(Duration::from_millis(20));
        };
        human.send(&SendRequest {
            reply_to: Some(MessageRef::Id(id)),
            ..SendRequest::new("dev", MessageType::new("DIS").unwrap(), text)
        })
    }

    #[test]
    fn the_first_answer_decides_and_a_second_is_refused() {
        let dir = tempfile::tempdir().unwrap();
        let dev = mailroom(dir.path(), "dev");
        let human = mailroom(dir.path(), "me");
        let relayed = std::thread::scope(|s| {
            let asked = s.spawn(|| {
                let wait = RelayWait {
                    timeout: Duration::from_secs(60),
                    gone: &|| None,
                };
                dev.relay_permission(&request(), "/src", Some("claude-code"), &wait)
            });
            answer_when_asked(&human, "Allow").unwrap();
            asked.join().unwrap().unwrap()
        });
        assert_eq!(
            relayed,
            Relayed::Decided {
                behavior: Behavior::Allow,
                by: "me".into()
            }
        );
        let copy = human
            .my_mailbox()
            .unwrap()
            .list(Folder::Done)
            .unwrap()
            .messages;
        assert_eq!(copy.len(), 1);
        assert_eq!(copy[0].header.kind, "PRM");
        assert_eq!(copy[0].header.title, "dev wants to run Bash: Run the tests");
        let again = human.send(&SendRequest {
            reply_to: Some(MessageRef::Id(copy[0].header.id().to_owned())),
            ..SendRequest::new("dev", MessageType::new("DIS").unwrap(), "Deny")
        });
        assert!(again.is_err(), "a second answer is refused");
    }

    #[test]
    fn a_request_the_host_no_longer_needs_is_withdrawn_saying_why() {
        let dir = tempfile::tempdir().unwrap();
        let dev = mailroom(dir.path(), "dev");
        let human = mailroom(dir.path(), "me");
        let gone: Mutex<Option<String>> = Mutex::new(None);
        let relayed = std::thread::scope(|s| {
            let asked = s.spawn(|| {
                let why = || gone.lock().unwrap().clone();
                let wait = RelayWait {
                    timeout: Duration::from_secs(60),
                    gone: &why,
                };
                dev.relay_permission(&request(), "/src", None, &wait)
            });
            while human.open_questions().unwrap().is_empty() {
                std::thread::sleep(Duration::from_millis(20));
            }
            *gone.lock().unwrap() = Some("the session went on".into());
            asked.join().unwrap().unwrap()
        });
        assert_eq!(relayed, Relayed::Withdrawn("the session went on".into()));
        assert!(human.open_questions().unwrap().is_empty());
        let cancelled = human
            .my_mailbox()
            .unwrap()
            .list(Folder::Cancel)
            .unwrap()
            .messages;
        let message = human.my_mailbox().unwrap().read(&cancelled[0]).unwrap();
        assert_eq!(
            message.processing.last().unwrap().details,
            "the session went on"
        );
        // Timed out: withdrawn, saying so.
        let wait = RelayWait {
            timeout: Duration::ZERO,
            gone: &|| None,
        };
        let Relayed::Withdrawn(why) = dev
            .relay_permission(&request(), "/src", None, &wait)
            .unwrap()
        else {
            panic!("not withdrawn");
        };
        assert!(why.starts_with("no answer within 0 s"), "{why}");
    }

    #[test]
    fn a_prompt_without_a_held_lease_is_withdrawn_on_sight_and_refuses_answers() {
        let dir = tempfile::tempdir().unwrap();
        let dev = mailroom(dir.path(), "dev");
        let human = mailroom(dir.path(), "me");
        // Written as the relay writes it, but with no lease held: planted, or its relay died.
        let question = request().question("dev", "/src", None);
        let planted = dev
            .ask_as(&question, || uuid::Uuid::new_v4().to_string())
            .unwrap();
        let answer = SendRequest {
            reply_to: Some(MessageRef::Id(planted.id.clone())),
            ..SendRequest::new("dev", MessageType::new("DIS").unwrap(), "Allow")
        };
        let unproven = human
            .clone()
            .approving(Approvals::Refused("prove it".into()));
        assert!(matches!(
            unproven.send(&answer),
            Err(Error::Unapproved { .. })
        ));
        assert!(human.open_questions().unwrap().is_empty());
        let cancelled = human.my_mailbox().unwrap().list(Folder::Cancel).unwrap();
        let message = human
            .my_mailbox()
            .unwrap()
            .read(&cancelled.messages[0])
            .unwrap();
        assert_eq!(message.processing.last().unwrap().details, NOBODY_WAITING);
        let late = human.send(&answer);
        assert!(
            matches!(late, Err(Error::AlreadyHandled { .. })),
            "{late:?}"
        );
        // No verb writes one.
        let forged = SendRequest::new("me", MessageType::new("PRM").unwrap(), "rm -rf build");
        assert!(matches!(dev.send(&forged), Err(Error::Invalid { .. })));
    }

    #[test]
    fn only_a_clear_allow_allows() {
        for allow in ["Allow", "allow.", " yes please", "OK"] {
            assert_eq!(Behavior::of_answer(allow), Behavior::Allow, "{allow}");
        }
        for deny in ["Deny", "no", "", "maybe allow", "allowing? hmm"] {
            assert_eq!(Behavior::of_answer(deny), Behavior::Deny, "{deny}");
        }
    }
}
