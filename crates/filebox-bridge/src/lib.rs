//! Bridges between FileBox and formats other agent tools write: Claude Code's team inboxes
//! ([`team_inbox`]) and the `<teammate-message>` blocks it feeds a model
//! ([`teammate_xml`]), and `.msg.md` transcripts ([`msg_md`]). Each format has its own module with its own parser and renderer; nothing
//! here writes FileBox mailbox files except through `filebox-core`.

pub mod msg_md;
pub mod render;
pub mod team_bridge;
pub mod team_inbox;
pub mod teammate_xml;
pub mod teams;
