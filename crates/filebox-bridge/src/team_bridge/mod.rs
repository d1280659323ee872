//! The live bridge between one Claude Code team and FileBox (`filebox teams bridge`, and the
//! hub's `bridges` config): messages in the FileBox agent's team inbox become FileBox mail
//! from `member@team` (marked read only once safely delivered), and FileBox mail to
//! `member@team` is appended to that member's team inbox (then resolved). Both directions are
//! idempotent: a pass interrupted anywhere and run again duplicates nothing.

mod inbound;
mod outbound;
mod roster;

use std::path::{Path, PathBuf};
use std::time::Duration;

use filebox_core::{AgentId, Config, Mailroom};
use serde::{Deserialize, Serialize};

use crate::team_inbox::{InboxError, Team, TeamError, Teams};

pub use inbound::TEAM_HEADER;
pub use roster::member_agent;

/// How often the bridge looks for new messages (Claude Code's own poller: every second).
pub const POLL_INTERVAL: Duration = Duration::from_secs(1);

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

/// One message carried across.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct Carried {
    /// `in`: team inbox → FileBox; `out`: FileBox → team inbox.
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
}

/// A bridge between `team` and the FileBox `agent`, configured by the config at `config_path`.
#[derive(Debug)]
pub struct Bridge {
    config_path: PathBuf,
    team: Team,
    agent: AgentId,
}

impl Bridge {
    /// Check the team exists and the agent is configured.
    pub fn new(
        config: &Config,
        claude_dir: &Path,
        team: &str,
        agent: &AgentId,
    ) -> Result<Bridge, BridgeError> {
        config.agent(agent)?;
        Ok(Bridge {
            config_path: config.path.clone(),
            team: Teams::new(claude_dir).existing_team(team)?,
            agent: agent.clone(),
        })
    }

    pub fn team(&self) -> &Team {
        &self.team
    }

    /// One pass: add new team members to the config, carry the team inbox's unread messages
    /// in, carry mail for members out.
    pub fn pass(&self) -> Result<PassReport, BridgeError> {
        let mut report = PassReport::default();
        let (config, members) = roster::ensure(&self.config_path, &self.team, &self.agent)?;
        report.members_added = members.added;
        let mailroom = Mailroom::new(config, Some(&self.agent))?;
        inbound::pull(&mailroom, &self.team, &mut report)?;
        outbound::push(&mailroom, &self.team, &members.bridged, &mut report);
        Ok(report)
    }

    /// Pass after pass until `cancelled()`, `interval` apart; each report goes to `on_pass`.
    /// A failed pass is reported and the next one tried (the team's files may be mid-edit).
    pub fn run(
        &self,
        interval: Duration,
        cancelled: &dyn Fn() -> bool,
        on_pass: &mut dyn FnMut(Result<PassReport, BridgeError>),
    ) {
        while !cancelled() {
            on_pass(self.pass());
            std::thread::sleep(interval);
        }
    }
}
