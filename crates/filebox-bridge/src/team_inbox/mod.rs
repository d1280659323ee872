//! Claude Code's team inboxes: `{claude}/teams/{team}/inboxes/{agent}.json`, one JSON array per
//! agent, guarded by proper-lockfile's `mkdir` lock. Names, an entry, the file format, Claude
//! Code's entry schema, how marking read is done, structured messages, the lock, inbox
//! operations and their errors, the roster and how a file of the team's folder is read each
//! have a module.

mod inbox;
mod inbox_error;
mod lock;
mod marking;
mod message;
pub mod names;
pub mod schema;
mod structured;
mod team;
mod team_file;
mod teammate_message;

pub use inbox::Inbox;
pub use inbox_error::{InboxError, MAX_TEAM_FILE_BYTES, Refused};
pub use lock::{InboxLock, LockError};
pub use marking::{MarkStyle, SETTING as MARK_READ_SETTING};
pub use message::{Entry, InboxFile, InboxParseError};
pub use structured::{Kind, Structured};
pub use team::{Team, TeamError, TeamFile, TeamMember, Teams};
pub use teammate_message::{
    ENTRY_TYPE, ENTRY_VERSION, Identity, TeammateMessage, iso_millis, timestamp_now,
};
