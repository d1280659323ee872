//! The mailroom: the config (its file, the live copy a long-running process keeps), the
//! current agent and its reach, and what each agent's client last said of itself.

pub mod client_info;
pub mod config;
mod entry;
pub(crate) mod live_config;
#[cfg(test)]
pub(crate) mod test_mailroom;

pub use entry::{Approvals, Mailroom, Reach, Unusable};
