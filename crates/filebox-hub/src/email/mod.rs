//! The email API (`email.*` methods): wire types (`wire`), `AgentEmail` from a mailbox copy
//! (`view`), and the method handlers (`handlers`).

pub(crate) mod handlers;
pub(crate) mod view;
pub(crate) mod wire;
