//! `filebox wait` (block until mail arrives) and `filebox watch` (stream arrivals as JSON
//! lines).

use std::io::Write;

use filebox_api::verbs::WaitForMessages;
use filebox_api::{MessageSummary, Verb, VerbContext, WaitArgs};

use super::acting::mailroom;
use crate::cli::Global;
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: WaitArgs) -> anyhow::Result<Outcome> {
    let mailroom = mailroom(global)?;
    // The cursor moves only once the result is written and flushed: a wait killed before
    // that has skipped nothing, and the next wait reports the same mail (at least once).
    let timeout = args.timeout;
    let (outcome, claim) = WaitForMessages::claim(&VerbContext::new(&mailroom), args)?;
    if global.json {
        output::json(&outcome)?;
    }
    if outcome.value.messages.is_empty() {
        claim.commit()?;
        output::warnings(&outcome.warnings);
        // Only a timeout ends a CLI wait with nothing (nothing here cancels it); stdout then
        // has nothing (with --json, the empty result).
        let seconds = timeout.unwrap_or_default();
        eprintln!("filebox: no new mail within {seconds} s");
        return Ok(Outcome::TimedOut);
    }
    if !global.json {
        output::text_line(&WaitForMessages::render(&outcome.value))?;
    }
    claim.commit()?;
    // Mail arrived: success, whatever else was seen (a script's `if filebox wait` holds).
    output::warnings(&outcome.warnings);
    Ok(Outcome::Success)
}

pub(crate) fn watch(global: &Global) -> anyhow::Result<Outcome> {
    // Not `wait`'s cursor: what the watch prints stays new to the agent's next `wait` (and to
    // `wait_for_messages`).
    let mailroom = mailroom(global)?;
    let mut watch = mailroom.my_mailbox()?.watch_inbox()?;
    // From here on nothing that arrives is missed: say so (scripts and tests wait for it).
    eprintln!("filebox: watching the inbox of {}", mailroom.me());
    let mut out = std::io::stdout().lock();
    loop {
        let arrived = watch.next(None, &|| false)?;
        for problem in &arrived.unreadable {
            output::warn(format!(
                "skipped {}: {}",
                problem.path.display(),
                problem.reason
            ));
        }
        for envelope in &arrived.messages {
            // An arrival is a new file (a new inode), which no read mark names: unread.
            serde_json::to_writer(&mut out, &MessageSummary::new(envelope, true))?;
            writeln!(out)?;
        }
        out.flush()?;
    }
}
