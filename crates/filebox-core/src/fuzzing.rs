//! Entry points for the fuzz targets (`fuzz/`, feature `fuzzing`): the crate-private steps a
//! target must reach without a file system, each exactly the code the commands run.

use crate::agent::AgentId;
use crate::folder::Folder;
use crate::index::Record;
use crate::mail::thread::{self, Thread, ThreadCopy};
use crate::message::Message;

/// Build the thread `thread_id` from copies of messages held by agents in folders, as
/// `Mailroom::thread` does once the index has found the copies: each copy's row is derived
/// from the message as the index derives it.
pub fn build_thread(thread_id: &str, copies: Vec<(AgentId, Folder, String, Message)>) -> Thread {
    let copies: Vec<ThreadCopy> = copies
        .into_iter()
        .map(|(agent, folder, name, message)| ThreadCopy {
            row: Record::new(folder, &name, agent.as_str(), &message).row,
            agent,
            message,
        })
        .collect();
    thread::build(thread_id, &copies)
}
