//! FileBox core: mailboxes of Markdown message files on disk, the only source of truth.
//!
//! Adapters (CLI, MCP, hub) call [`Mailroom`]; nothing here knows about async runtimes,
//! HTTP, MCP or JSON wire types.
//!
//! The code is in wings, each a folder with one job (its `mod.rs` says it). A file uses its
//! own wing and the wings below it, never one above (`scripts/check-layers` reads this line):
//!
//! Layers, lowest first: fs < message < store < mailbox < mailroom < index < feed < mail < human
//!
//! - `fs`: paths resolved beneath a folder, what a device promises, durable names, shared
//!   fsyncs, files other programs keep.
//! - `message`: the file format (header, structure, parsing, rendering, names, limits) and text
//!   put in front of a model.
//! - `store`: the only writer: staging, publishing, safe reads, moves and rewrites, recovery,
//!   locks, the change journal.
//! - `mailbox`: one mailbox's folders and listings, a message's copies and which speaks,
//!   attachments, what a copy's folder says of its status.
//! - `mailroom`: the config, its live copy, the current agent and its reach, client info.
//! - `index`: the search index, search, finding a message by reference and its copies.
//! - `feed`: the change feed, marks, the wait cursor, waiting, read receipts, read marks.
//! - `mail`: send and reply, idempotency, transitions, annotations, forks, foreign and
//!   travelled mail, threads, the status report.
//! - `human`: questions and work reports to a person, permission prompts and their leases.
//!
//! The leaf files beside them (`error`, `agent`, `choice`, `folder`, `time`) sit below every
//! wing; `fuzzing` (the fuzz targets' entry points) above them all.

mod agent;
mod choice;
mod error;
mod feed;
mod folder;
mod fs;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
mod human;
pub mod index;
mod mail;
mod mailbox;
mod mailroom;
pub mod message;
mod store;
pub mod time;

// The modules other crates name by path, where they live now.
pub use feed::receipt;
pub use fs::{confined, group_commit};
pub use human::{permission, question};
pub use mail::{idempotency, travelled};
pub use mailbox::{attachment, copy};
pub use mailroom::{client_info, config};
pub use message::model_text;

pub use agent::AgentId;
pub use choice::{AgentKind, Choice};
pub use error::{Error, Result};
pub use feed::cursor::{Arrivals, Claim};
pub use feed::receipt::Receipt;
pub use feed::watch::InboxWatch;
pub use feed::{Change, ChangeKind, Feed, Wake};
pub use folder::Folder;
pub use human::question::{
    Answer, AnswerWait, Asked, AskedBy, OpenQuestion, QuestionKind, QuestionRequest, QuestionState,
};
pub use mail::foreign::{ForeignDelivery, ForeignMessage};
pub use mail::fork::{ForkReason, ForkReceipt, ForkRequest};
pub use mail::idempotency::IdempotencyKey;
pub use mail::reply::{REPLIER_COPY_FOLDERS, SYSTEM_MAILBOX, SourceType, replier_copy_folder};
pub use mail::send::{Priority, SendReceipt, SendRequest, derive_title};
pub use mail::status::{RecipientStatus, StatusReport, copy_status};
pub use mail::thread::{ENTRY_SEPARATOR, Thread, ThreadNode};
pub use mail::transition::{Transition, TransitionReceipt};
pub use mail::travelled::Travelled;
pub use mailbox::attachment::{Attachment, AttachmentRef};
pub use mailbox::{Envelope, Listing, Mailbox, MessageRef, Problem, Status};
pub use mailroom::config::{A2aRemote, AgentEntry, Config, ConfigFile};
pub use mailroom::live_config::LiveConfig;
pub use mailroom::{Approvals, Mailroom, Reach, Unusable};
pub use message::{ConversationEntry, Message, MessageType, ProcessingEntry};
pub use store::{Recovery, Unsynced};
