//! `filebox hook claude-code|codex|gemini|copilot`: a host's hook, reading the hook's JSON on
//! stdin, each host's events and output in its own names. SessionStart and each prompt
//! (UserPromptSubmit; Gemini's BeforeAgent) put my unread mail in front of the model as
//! context; the turn's end (Stop; Gemini's AfterAgent) waits for new mail (Claude Code, in the
//! background: exit 2 wakes the idle session) or looks once (the others: mail that came during
//! the turn continues it). Mail is claimed under the wait cursor's lock, so two hooks (or a
//! hook and `wait_for_messages`) never both report a message. A hook only offers the mail
//! (`filebox_core::receipt`): unread until the session's next Stop confirms it was read, never
//! offered twice in one session, offered again by the next session when this one died first.

use std::io::{Read, Write};
use std::time::{Duration, Instant};

use anyhow::Context;
use filebox_api::advice::Surface;
use filebox_api::{Digest, Notice};
use filebox_core::{Claim, Envelope, Folder, Mailbox, Mailroom, Problem, receipt};
use serde::Deserialize;
use serde_json::json;

use super::acting::mailroom;
use crate::cli::{Global, HookArgs, HookHost};
use crate::output::Outcome;

/// The digest a hook hands the model stays within this many characters (Claude Code turns
/// hook output over 10,000 characters into a short preview).
const DIGEST_CHARS: usize = 6000;

/// How a hook's receipt says the mail was read.
const HOW: &str = "hook";

/// What a hook is told on stdin (the fields FileBox uses; hosts send more).
#[derive(Debug, Deserialize)]
struct HookInput {
    hook_event_name: String,
    /// Stop: the session is already going on because of a Stop hook.
    #[serde(default)]
    stop_hook_active: bool,
    /// The host's session (every host sends one; without it, all hooks count as one session).
    #[serde(default)]
    session_id: Option<String>,
}

impl HookInput {
    /// How this session's offers are named: `hook in session <id>`.
    fn offer(&self) -> String {
        match &self.session_id {
            Some(session) => format!("{HOW} in session {session}"),
            None => HOW.to_owned(),
        }
    }
}

pub(crate) fn run(global: &Global, args: &HookArgs) -> anyhow::Result<Outcome> {
    let mut stdin = String::new();
    std::io::stdin()
        .read_to_string(&mut stdin)
        .context("cannot read the hook's JSON on standard input")?;
    let input: HookInput = serde_json::from_str(&stdin)
        .context("standard input is not a hook's JSON (with `hook_event_name`)")?;
    let mailroom = mailroom(global)?;
    let mailbox = mailroom.my_mailbox()?;
    let event = input.hook_event_name.as_str();
    let offer = input.offer();
    let me = mailroom.me().as_str();
    match moment(args.host, event) {
        Some(Moment::Start | Moment::Prompt) => {
            let (unread, claim) = mailbox.claim_unread()?;
            report(&mailroom, &mailbox, unread, claim, &offer, |digest| {
                let context = context(args.host, event, &digest.text);
                write_line(&mut std::io::stdout(), &context.to_string())
            })?;
            Ok(Outcome::Success)
        }
        // A model turn of this session ended: what its hooks offered was in its context.
        Some(Moment::Stop) => {
            mailbox.confirm_offers(me, &offer, HOW)?;
            stop_moment(args, &input, &mailroom, &mailbox, &offer)
        }
        // Events FileBox has nothing to add to.
        None => Ok(Outcome::Success),
    }
}

/// The turn's end, once this session's offers are confirmed.
fn stop_moment(
    args: &HookArgs,
    input: &HookInput,
    mailroom: &Mailroom,
    mailbox: &Mailbox,
    offer: &str,
) -> anyhow::Result<Outcome> {
    match args.host {
        // Codex, Gemini CLI and Copilot run their Stop hook inside the turn: one that a Stop
        // hook already continued ends. Claude Code's waiting hook waits on every Stop, the one
        // after a wake included (`stop_hook_active` then): it exits 2 only on new mail, so it
        // cannot loop by itself.
        _ if input.stop_hook_active && args.host != HookHost::ClaudeCode => Ok(Outcome::Success),
        HookHost::ClaudeCode => {
            let deadline = Instant::now().checked_add(Duration::from_secs(args.timeout));
            let woke = stop(mailroom, mailbox, deadline, offer, |digest| {
                write_line(&mut std::io::stderr(), digest)
            })?;
            Ok(if woke {
                Outcome::Wake
            } else {
                Outcome::Success
            })
        }
        // No background hook to wake an idle session with: mail that came during the turn
        // continues it.
        HookHost::Codex | HookHost::Gemini | HookHost::Copilot => {
            stop(mailroom, mailbox, Some(Instant::now()), offer, |digest| {
                let decision = json!({ "decision": "block", "reason": digest });
                write_line(&mut std::io::stdout(), &decision.to_string())
            })?;
            Ok(Outcome::Success)
        }
    }
}

/// Where in a session a hook event falls.
#[derive(Debug, Clone, Copy)]
enum Moment {
    /// The session starts.
    Start,
    /// A prompt is about to reach the model.
    Prompt,
    /// The turn ends.
    Stop,
}

/// The moment `event` (in `host`'s own names) stands for; `None`: FileBox adds nothing then.
fn moment(host: HookHost, event: &str) -> Option<Moment> {
    match (host, event) {
        (_, "SessionStart") => Some(Moment::Start),
        (HookHost::Gemini, "BeforeAgent") => Some(Moment::Prompt),
        (HookHost::Gemini, "AfterAgent") => Some(Moment::Stop),
        (HookHost::ClaudeCode | HookHost::Codex | HookHost::Copilot, "UserPromptSubmit") => {
            Some(Moment::Prompt)
        }
        (HookHost::ClaudeCode | HookHost::Codex | HookHost::Copilot, "Stop") => Some(Moment::Stop),
        _ => None,
    }
}

/// The hook output that hands `digest` to the model as context, as `host` reads it.
fn context(host: HookHost, event: &str, digest: &str) -> serde_json::Value {
    match host {
        // Copilot CLI (1.0.102) reads `additionalContext` at the top, and ignores the one in
        // `hookSpecificOutput`, on the PascalCase events setup configures.
        HookHost::Copilot => json!({ "additionalContext": digest }),
        HookHost::ClaudeCode | HookHost::Codex | HookHost::Gemini => json!({
            "hookSpecificOutput": { "hookEventName": event, "additionalContext": digest }
        }),
    }
}

/// The Stop hook: new mail reported through `write` once some arrives that can be read, or
/// `deadline` passes (`None`: never); whether any was reported. Only mail to act on continues
/// the session: a file that cannot be read is left, unread, for the next context hook to name.
fn stop(
    mailroom: &Mailroom,
    mailbox: &Mailbox,
    deadline: Option<Instant>,
    offer: &str,
    write: impl Fn(&str) -> std::io::Result<()>,
) -> anyhow::Result<bool> {
    while let Some((unread, claim)) = wait_for_unread(mailbox, deadline)? {
        let shown = report(
            mailroom,
            mailbox,
            unread,
            claim,
            offer,
            |digest| match digest.shown.is_empty() {
                true => Ok(()),
                false => write(&digest.text),
            },
        )?;
        if shown {
            return Ok(true);
        }
    }
    Ok(false)
}

/// New unread mail, claimed: waits on the change feed until some arrives or `deadline`
/// passes (`None`: never). Mail I already read (with `read_message`, say) is not news: it is
/// recorded as returned and the wait goes on.
fn wait_for_unread(
    mailbox: &Mailbox,
    deadline: Option<Instant>,
) -> anyhow::Result<Option<(Vec<Envelope>, Claim)>> {
    loop {
        let timeout = deadline.map(|deadline| deadline.saturating_duration_since(Instant::now()));
        let (arrivals, claim) = mailbox.claim_mail(timeout, &|| false)?;
        if arrivals.messages.is_empty() {
            claim.commit()?;
            return Ok(None);
        }
        let unread = mailbox.unread(Folder::Inbox, arrivals.messages)?;
        if !unread.is_empty() {
            return Ok(Some((unread, claim)));
        }
        claim.commit()?;
    }
}

/// Hand the digest of `unread` (less what this session was offered already) to `write`, record
/// the offer of what it showed (`offer`: `hook in session <id>`), then commit the claim (a
/// hook killed before that has reported nothing for good: the next one reports it again). A
/// message that cannot be read is named in the digest and skipped, never hides the others, and
/// stays unread. Returns whether any message was shown (a Stop hook wakes the session only
/// then).
fn report(
    mailroom: &Mailroom,
    mailbox: &Mailbox,
    unread: Vec<Envelope>,
    mut claim: Claim,
    offer: &str,
    write: impl FnOnce(&Digest) -> std::io::Result<()>,
) -> anyhow::Result<bool> {
    let me = mailroom.me().as_str();
    let mut notices = Vec::new();
    let mut unreadable = Vec::new();
    for envelope in &unread {
        match mailbox.read(envelope) {
            Ok(message) if receipt::offered(&message, me, offer) => {}
            Ok(message) => notices.push(Notice::new(
                mailroom.config(),
                envelope,
                &message,
                Surface::Tools,
            )),
            Err(error) => unreadable.push(Problem {
                path: envelope.path.clone(),
                ..Problem::from(error)
            }),
        }
    }
    if notices.is_empty() && unreadable.is_empty() {
        claim.commit()?;
        return Ok(false);
    }
    let digest = Digest::new(&notices, &unreadable, DIGEST_CHARS, Surface::Tools);
    write(&digest).context("cannot hand the mail to the host")?;
    let shown: Vec<Envelope> = unread
        .into_iter()
        .filter(|envelope| digest.shown.iter().any(|id| id == envelope.header.id()))
        .collect();
    // An offer (`Offered by ME: hook in session ID`); the copy stays unread until the
    // session's Stop confirms it, and the messages left out of the digest are offered next.
    claim.mark_offered(&shown, me, offer)?;
    claim.commit()?;
    Ok(!shown.is_empty())
}

fn write_line(out: &mut impl Write, text: &str) -> std::io::Result<()> {
    writeln!(out, "{text}")?;
    out.flush()
}
