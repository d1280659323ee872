//! The human channel: an agent's questions and work reports to its person, and a host's
//! tool-use approvals relayed as permission prompts, each held open by a lease.

pub mod permission;
pub(crate) mod prompt_lease;
pub mod question;
