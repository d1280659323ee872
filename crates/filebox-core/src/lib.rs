//! FileBox core: mailboxes of Markdown message files on disk, the only source of truth.
//!
//! Adapters (CLI, MCP, hub) call [`Mailroom`]; nothing here knows about async runtimes,
//! HTTP, MCP or JSON wire types.

mod agent;
mod annotate;
pub mod attachment;
mod beneath;
mod checked_dirs;
mod choice;
pub mod client_info;
pub mod config;
pub mod confined;
pub mod copy;
mod cursor;
mod durable_names;
mod error;
mod feed;
mod file_system;
mod folder;
mod foreign;
mod fork;
#[cfg(feature = "fuzzing")]
pub mod fuzzing;
pub mod group_commit;
mod held_here;
pub mod idempotency;
pub mod index;
mod journal;
mod live_config;
mod mailbox;
mod mailroom;
mod mark;
pub mod message;
pub mod model_text;
mod parallel;
pub mod permission;
mod prompt_lease;
pub mod question;
mod read_marks;
pub mod receipt;
mod reply;
mod search;
mod send;
mod status;
mod store;
#[cfg(test)]
mod test_mailroom;
mod thread;
pub mod time;
mod transition;
pub mod travelled;
mod watch;

pub use agent::AgentId;
pub use attachment::{Attachment, AttachmentRef};
pub use choice::{AgentKind, Choice};
pub use config::{AgentEntry, Config, ConfigFile};
pub use cursor::Claim;
pub use error::{Error, Result};
pub use feed::{Change, ChangeKind, Feed, Wake};
pub use folder::Folder;
pub use foreign::{ForeignDelivery, ForeignMessage};
pub use fork::{ForkReason, ForkReceipt, ForkRequest};
pub use idempotency::IdempotencyKey;
pub use live_config::LiveConfig;
pub use mailbox::{Envelope, Listing, Mailbox, MessageRef, Problem};
pub use mailroom::{Approvals, Mailroom, Reach, Unusable};
pub use message::{ConversationEntry, Message, MessageType, ProcessingEntry};
pub use question::{
    Answer, AnswerWait, Asked, AskedBy, OpenQuestion, QuestionKind, QuestionRequest, QuestionState,
};
pub use receipt::Receipt;
pub use reply::{REPLIER_COPY_FOLDERS, SYSTEM_MAILBOX, replier_copy_folder};
pub use send::{Priority, SendReceipt, SendRequest, SourceType, derive_title};
pub use status::{RecipientStatus, Status, StatusReport, copy_status};
pub use store::{Recovery, Unsynced};
pub use thread::{ENTRY_SEPARATOR, Thread, ThreadNode};
pub use transition::{Transition, TransitionReceipt};
pub use travelled::Travelled;
pub use watch::{Arrivals, InboxWatch};
