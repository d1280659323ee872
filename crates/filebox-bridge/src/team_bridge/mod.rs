//! The live bridge between one Claude Code team and FileBox (`filebox teams bridge`, and the
//! hub's `bridges` config): messages in the FileBox agent's team inbox become FileBox mail
//! from `member@team` (marked read only once safely delivered), and FileBox mail to
//! `member@team` is appended to that member's team inbox (then resolved). Both directions are
//! idempotent: a pass interrupted anywhere and run again duplicates nothing.
//!
//! A team can end while bridged: a session team's folder goes when its Claude Code session
//! exits (an older version's `TeamDelete` removes any team's). The bridge says so once, and
//! while the team is gone it refuses mail for its members back to the senders (rejected, with
//! the reason); it writes nothing into the team's place, and carries on if a team of that name
//! comes back (a resumed session).
//!
//! A bridge given no team follows the one Claude Code would pick ([`Teams::unnamed_team`]),
//! looked at before every pass: when that choice changes (the session's team appears, or ends
//! and the choice falls back to `default`), the bridge says so and bridges the new team, after a
//! last pass over the old one if it ended, so mail waiting for its members is refused, not left.

mod derived_id;
mod inbound;
mod outbound;
mod report;
mod roster;

use std::path::{Path, PathBuf};
use std::time::Duration;

use filebox_core::{AgentId, Config, Mailroom};

use crate::team_inbox::{Team, TeamError, Teams};

pub use inbound::TEAM_HEADER;
pub use report::{BridgeError, Carried, PassReport};
pub use roster::member_agent;

/// How often the bridge looks for new messages (Claude Code's own poller: every second).
pub const POLL_INTERVAL: Duration = Duration::from_secs(1);

/// A bridge between `team` and the FileBox `agent`, configured by the config at `config_path`.
#[derive(Debug)]
pub struct Bridge {
    config_path: PathBuf,
    teams: Teams,
    team: Team,
    /// No team was named: follow the one Claude Code would pick, pass by pass.
    follows_unnamed: bool,
    agent: AgentId,
    /// Whether the team was there at the last pass (to say once that it ended or came back).
    alive: bool,
}

impl Bridge {
    /// Check the team (`None`: the one Claude Code would pick) exists, or is a session team
    /// that ended (its first pass says so and refuses the mail waiting for it), and the agent
    /// is configured.
    pub fn new(
        config: &Config,
        claude_dir: &Path,
        team: Option<&str>,
        agent: &AgentId,
    ) -> Result<Bridge, BridgeError> {
        config.agent(agent)?;
        let teams = Teams::new(claude_dir);
        let follows_unnamed = team.is_none_or(|name| name.trim().is_empty());
        let name = teams.named_or_unnamed(team);
        let team = match teams.existing_team(&name) {
            Ok(team) => team,
            Err(TeamError::Ended { .. }) => teams.team(&name),
            Err(e) => return Err(e.into()),
        };
        Ok(Bridge {
            config_path: config.path.clone(),
            follows_unnamed,
            teams,
            team,
            agent: agent.clone(),
            alive: true,
        })
    }

    pub fn team(&self) -> &Team {
        &self.team
    }

    /// One pass: follow Claude Code's choice of team if none was named, add new team members
    /// to the config, carry the team inbox's unread messages in, carry mail for members out.
    pub fn pass(&mut self) -> Result<PassReport, BridgeError> {
        let mut report = PassReport::default();
        if self.follows_unnamed {
            self.follow(&mut report)?;
        }
        self.carry(&mut report)?;
        Ok(report)
    }

    /// Switch to the team Claude Code would pick now, if it changed. An old team that ended
    /// gets its last pass first, which refuses the mail waiting for its members.
    fn follow(&mut self, report: &mut PassReport) -> Result<(), BridgeError> {
        let chosen = self.teams.unnamed_team();
        if chosen == self.team.name {
            return Ok(());
        }
        if !self.team.exists() {
            self.carry(report)?;
        }
        report.notices.push(format!(
            "no team named: following {chosen} (was {}), as Claude Code picks it now",
            self.team.name
        ));
        self.team = self.teams.team(&chosen);
        self.alive = true;
        Ok(())
    }

    /// The pass over the team bridged now; none over a team named like a hub the config
    /// knows, which is refused.
    fn carry(&mut self, report: &mut PassReport) -> Result<(), BridgeError> {
        let config = Config::load(&self.config_path)?;
        if let Some(refusal) = roster::refusal(&config, &self.team) {
            report.refused.push(refusal);
            return Ok(());
        }
        let alive = self.team.exists();
        if std::mem::replace(&mut self.alive, alive) != alive {
            report.notices.push(match alive {
                true => format!("team {} is back; bridging again", self.team.name),
                false => format!(
                    "team {} has ended (its folder {} is gone{}); mail for its members is \
                     refused back to the senders until a team of that name returns",
                    self.team.name,
                    self.team.inbox_dir.display(),
                    if self.team.is_session() {
                        ": its Claude Code session exited"
                    } else {
                        ""
                    }
                ),
            });
        }
        if !alive {
            let mailroom = Mailroom::new(config, Some(&self.agent))?;
            outbound::refuse(&mailroom, &self.team, report);
            report.team_ended = true;
            return Ok(());
        }
        let (config, members) = roster::ensure(config, &self.team, &self.agent)?;
        report.members_added.extend(members.added);
        let mailroom = Mailroom::new(config, Some(&self.agent))?;
        inbound::pull(&mailroom, &self.team, report)?;
        outbound::push(&mailroom, &self.team, &members.bridged, report);
        Ok(())
    }

    /// Pass after pass until `cancelled()`, `interval` apart; each report goes to `on_pass`.
    /// A failed pass is reported and the next one tried (the team's files may be mid-edit).
    pub fn run(
        &mut self,
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
