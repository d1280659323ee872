//! What one pass of the bridge did ([`PassReport`], each message [`Carried`]) and why it could
//! not do its job ([`BridgeError`]).

use serde::{Deserialize, Serialize};

use crate::team_inbox::{InboxError, Refused, TeamError};

/// Why the bridge could not do its job.
#[derive(Debug, thiserror::Error)]
pub enum BridgeError {
    #[error(transparent)]
    Core(#[from] filebox_core::Error),
    #[error(transparent)]
    Team(#[from] TeamError),
    #[error(transparent)]
    Inbox(#[from] InboxError),
}

impl BridgeError {
    /// The team file refused, when that is what stopped the work.
    pub(super) fn refused(&self) -> Option<&Refused> {
        match self {
            BridgeError::Inbox(InboxError::Refused(refused))
            | BridgeError::Team(TeamError::Inbox(InboxError::Refused(refused))) => Some(refused),
            _ => None,
        }
    }
}

/// One message carried across.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Carried {
    /// `in`: team inbox → FileBox; `out`: FileBox → team inbox; `refused`: FileBox mail for
    /// a member of a team that has ended, rejected back to its sender.
    pub direction: String,
    pub from: String,
    pub to: String,
    pub title: String,
    /// The FileBox Message ID.
    pub id: String,
}

/// What one pass did.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct PassReport {
    pub carried: Vec<Carried>,
    /// Members added to the FileBox config as `member@team`.
    pub members_added: Vec<String>,
    /// Messages that could not be carried this time (they are tried again next pass).
    pub problems: Vec<String>,
    /// Team files refused (a link, a FIFO, a device, one over the size bound): left as they
    /// are and looked at again next pass, while the rest of the team is bridged. Or the team
    /// itself, named like a federated hub: nothing of it is bridged while that is so.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub refused: Vec<String>,
    /// The team ended (its folder is gone) or came back since the pass before.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub notices: Vec<String>,
    /// The team is gone: nothing was carried, mail for its members was refused.
    #[serde(default, skip_serializing_if = "std::ops::Not::not")]
    pub team_ended: bool,
}

impl PassReport {
    /// Work on `what` that failed: a refused team file goes to `refused`, anything else to
    /// `problems`.
    pub(super) fn failed(&mut self, what: &str, error: BridgeError) {
        match error.refused() {
            Some(refused) => self.refused.push(refused.to_string()),
            None => self.problems.push(format!("{what}: {error}")),
        }
    }
}
