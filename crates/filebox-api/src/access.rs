//! Who may do what: the one access policy every surface asks (JSON-RPC, SSE, `/mcp` and stdio
//! MCP, Connect, the page and its attachments, the Unix socket). A surface turns its
//! credentials into a [`Caller`], asks it for a mailroom to act in ([`Caller::act_as`]) or
//! whether a mailbox is within its reach, and turns a [`Denied`] into its own wire form; no
//! surface checks a token or a mailbox's visibility by itself.
//!
//! The rule: a bearer token names its agent (only the token's SHA-256 is in the config) and
//! then acts as, and looks into, that agent's mailbox only; a caller without a token acts as,
//! and looks into, the mailboxes that have no token, except the hub's own (`system`, and the
//! stand-ins of agents elsewhere: `name@hub`, `member@team`), and on a hub open to the network
//! nothing at all; the owner of the files (a command run by the user, the hub's own runners,
//! webhooks, bridges and federation) reaches everything, and alone uses the verbs that work on
//! the host's own files outside the mailboxes (Claude Code's team inboxes). What a caller looks
//! into bounds the core's [`Reach`]: threads, search, forks and agent counts keep to it. A
//! process at the other end of the hub's Unix socket that asks to be known as itself
//! (`Authorization: Peer`, the command line handing a send to the hub) is the owner when the
//! kernel says it runs as the hub's own user: it could write the files itself.
//!
//! Answering a relayed permission prompt approves or denies a tool run, which is more than
//! acting for a mailbox: a caller without a token may act for a tokenless human, but answers
//! a prompt only when the request carried the hub page's own session ([`Caller::Page`]);
//! the human's token and `Authorization: Peer` do too ([`Caller::approvals`], kept by the core
//! through the mailroom, `filebox_core::Approvals`).

use filebox_core::{AgentEntry, AgentId, Approvals, Config, Mailroom, Reach, SYSTEM_MAILBOX};
use sha2::{Digest, Sha256};

/// The agent entry field that holds the SHA-256 (hex) of its token.
pub const TOKEN_FIELD: &str = "token_sha256";

/// The `Authorization` scheme of a caller known by its process, not a token: on the hub's Unix
/// socket the kernel says which user the process at the other end runs as ([`SocketPeer`]).
pub const PEER_SCHEME: &str = "Peer";

/// Who is at the other end of a Unix socket, as the kernel says (`SO_PEERCRED`), beside the
/// user the serving process runs as.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct SocketPeer {
    /// The user the calling process runs as.
    pub uid: u32,
    /// The user the hub runs as: the owner of the files it serves.
    pub server_uid: u32,
}

/// Who is calling.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum Caller {
    /// The owner of the files: acts for anyone, looks into every mailbox.
    Owner,
    /// No token: acts for, and looks into, the agents that have no token (not the hub's own).
    Anonymous,
    /// No token, from the hub's own page (its session cookie came with the request): as
    /// [`Caller::Anonymous`], and it may also answer a permission prompt.
    Page,
    /// No token on a hub open to the network: acts for no one.
    Stranger,
    /// A valid token: acts for, and looks into, its agent only.
    Agent(AgentId),
}

/// Why a caller may not do what it asked.
#[derive(Debug, thiserror::Error)]
pub enum Denied {
    /// An `Authorization` header that is not `Bearer <token>`.
    #[error("Authorization must be `Bearer <token>`")]
    MalformedAuthorization,
    /// A token no agent of the config has.
    #[error("unknown token (see `filebox agents token`)")]
    UnknownToken,
    /// No token, for an agent that has one.
    #[error("{0} has a token: send `Authorization: Bearer <token>`")]
    TokenRequired(AgentId),
    /// A token used for another agent.
    #[error("this token acts as {mine}, not as {wanted}")]
    OtherAgent { mine: AgentId, wanted: AgentId },
    /// The hub's own mailbox (`system`, a stand-in of an agent elsewhere), for a caller without
    /// its token.
    #[error("{0} is the hub's own mailbox: only its token or the hub itself acts for it")]
    HubOwn(AgentId),
    /// `Authorization: Peer` where no kernel says who is calling (not the hub's Unix socket).
    #[error("`Authorization: {PEER_SCHEME}` is only for the hub's Unix socket")]
    NoPeer,
    /// `Authorization: Peer` from a process of another user than the hub's.
    #[error(
        "the calling process runs as user {uid}, not as the hub's user ({server_uid}): \
         send a token instead"
    )]
    OtherUser { uid: u32, server_uid: u32 },
    /// A verb that works on the host's own files, for a caller that is not their owner.
    #[error(
        "{0} works on this machine's own files: only the command line and `filebox mcp` run it"
    )]
    HostFiles(&'static str),
    /// The agent named is not valid or not in the config.
    #[error(transparent)]
    Agent(#[from] filebox_core::Error),
}

impl Denied {
    /// Whether the caller did not prove who it is (HTTP 401), rather than proving it is
    /// someone else (403).
    pub fn is_unauthenticated(&self) -> bool {
        matches!(
            self,
            Denied::MalformedAuthorization
                | Denied::UnknownToken
                | Denied::TokenRequired(_)
                | Denied::HubOwn(_)
                | Denied::NoPeer
                | Denied::OtherUser { .. }
        )
    }
}

impl Caller {
    /// The caller of a request with this `Authorization` header value, if any, that came
    /// from `peer` when it came over a Unix socket.
    pub fn from_authorization(
        config: &Config,
        header: Option<&str>,
        peer: Option<SocketPeer>,
    ) -> Result<Caller, Denied> {
        let Some(value) = header else {
            return Ok(Caller::Anonymous);
        };
        if value.trim().eq_ignore_ascii_case(PEER_SCHEME) {
            return Caller::from_peer(peer);
        }
        // The scheme's name is case-insensitive (RFC 9110 §11.1).
        let token = value
            .split_once(' ')
            .filter(|(scheme, _)| scheme.eq_ignore_ascii_case("bearer"))
            .map(|(_, token)| token.trim())
            .filter(|token| !token.is_empty())
            .ok_or(Denied::MalformedAuthorization)?;
        Caller::from_token(config, token)
    }

    /// The caller that asked to be known by its process: the owner of the files when it runs
    /// as the hub's own user, who could write them without the hub.
    fn from_peer(peer: Option<SocketPeer>) -> Result<Caller, Denied> {
        match peer {
            None => Err(Denied::NoPeer),
            Some(SocketPeer { uid, server_uid }) if uid == server_uid => Ok(Caller::Owner),
            Some(SocketPeer { uid, server_uid }) => Err(Denied::OtherUser { uid, server_uid }),
        }
    }

    /// The caller of a token (as `filebox agents token` printed it).
    pub fn from_token(config: &Config, token: &str) -> Result<Caller, Denied> {
        let hash = sha256_hex(token);
        config
            .file
            .agents
            .iter()
            .find(|(_, entry)| token_sha256(entry).is_some_and(|h| constant_time_eq(h, &hash)))
            .map(|(id, _)| Caller::Agent(id.clone()))
            .ok_or(Denied::UnknownToken)
    }

    /// The caller a server that serves one agent speaks for (stdio MCP, the hub's `/mcp`
    /// once its token check passed): that agent when it has a token, else a caller without one.
    pub fn serving(config: &Config, agent: &AgentId) -> Caller {
        match config.file.agents.get(agent).and_then(token_sha256) {
            Some(_) => Caller::Agent(agent.clone()),
            None => Caller::Anonymous,
        }
    }

    /// The mailroom of a server that serves one agent: acting as it, reaching what it may.
    pub fn serve(config: &Config, agent: &AgentId) -> Result<Mailroom, Denied> {
        Caller::serving(config, agent).act_as(config, agent)
    }

    /// This caller as a hub that listens beyond this machine sees it: without a token, a
    /// stranger (the start refused tokenless agents, but agents added since have none either).
    pub fn on_network(self, exposed: bool) -> Caller {
        match self {
            Caller::Anonymous | Caller::Page if exposed => Caller::Stranger,
            caller => caller,
        }
    }

    /// This caller when its request carried the hub page's own session (`presented`): a
    /// caller without a token is the page.
    pub fn with_page_session(self, presented: bool) -> Caller {
        match self {
            Caller::Anonymous if presented => Caller::Page,
            caller => caller,
        }
    }

    /// Whether this caller, acting as `agent`, may answer a permission prompt: the owner of
    /// the files (a command, `Authorization: Peer`), a token's agent (its own prompts only:
    /// [`Caller::check`] keeps it to its mailbox) and the page; not a bare request without a
    /// token, which any local process can send.
    pub fn approvals(&self, agent: &AgentId) -> Approvals {
        match self {
            Caller::Owner | Caller::Agent(_) | Caller::Page => Approvals::Allowed,
            Caller::Anonymous | Caller::Stranger => Approvals::Refused(format!(
                "a request without a token may not: answer it on the hub's page, send {agent}'s \
                 token (`Authorization: Bearer`, from `filebox agents token {agent}`), or call \
                 over the hub's Unix socket with `Authorization: {PEER_SCHEME}`"
            )),
        }
    }

    /// The agent of a token, if any.
    pub fn agent(&self) -> Option<&AgentId> {
        match self {
            Caller::Agent(id) => Some(id),
            Caller::Owner | Caller::Anonymous | Caller::Page | Caller::Stranger => None,
        }
    }

    /// Whether this caller may run `verb`: one that works on the host's own files (outside the
    /// mailboxes) only for the owner of the files.
    pub fn may_run(&self, verb: &crate::VerbInfo) -> Result<(), Denied> {
        match self {
            Caller::Owner => Ok(()),
            _ if verb.uses_host_files() => Err(Denied::HostFiles(verb.name)),
            _ => Ok(()),
        }
    }

    /// Whether this caller may act as `agent` and look into its mailbox.
    pub fn check(&self, config: &Config, agent: &AgentId) -> Result<(), Denied> {
        let entry = config.agent(agent)?;
        match self {
            Caller::Owner => Ok(()),
            Caller::Agent(mine) if mine != agent => Err(Denied::OtherAgent {
                mine: mine.clone(),
                wanted: agent.clone(),
            }),
            Caller::Agent(_) => Ok(()),
            Caller::Anonymous | Caller::Page | Caller::Stranger
                if token_sha256(entry).is_some() =>
            {
                Err(Denied::TokenRequired(agent.clone()))
            }
            Caller::Anonymous | Caller::Page if is_hub_own(agent, entry) => {
                Err(Denied::HubOwn(agent.clone()))
            }
            Caller::Anonymous | Caller::Page => Ok(()),
            Caller::Stranger => Err(Denied::TokenRequired(agent.clone())),
        }
    }

    /// The mailroom of `agent`, bounded to this caller's reach, if it may act as `agent`.
    pub fn act_as(&self, config: &Config, agent: &AgentId) -> Result<Mailroom, Denied> {
        self.check(config, agent)?;
        Ok(Mailroom::new(config.clone(), Some(agent))?
            .within(self.reach(config))
            .approving(self.approvals(agent)))
    }

    /// Whether this caller reading `agent`'s mail is `agent` reading it, so a read receipt
    /// may name it: the agent's own token, the owner of the files (a command the user runs),
    /// or, without a token, a person's mailbox (the page is that person's); not the page
    /// browsing an agent's mailbox.
    pub fn reads_as(&self, config: &Config, agent: &AgentId) -> bool {
        match self {
            Caller::Owner => true,
            Caller::Agent(me) => me == agent,
            Caller::Anonymous | Caller::Page => config
                .agent(agent)
                .is_ok_and(|entry| entry.kind == Some(filebox_core::AgentKind::Human)),
            Caller::Stranger => false,
        }
    }

    /// The mailboxes this caller looks into.
    pub fn reach(&self, config: &Config) -> Reach {
        match self {
            Caller::Owner => Reach::Everywhere,
            Caller::Anonymous | Caller::Page | Caller::Stranger | Caller::Agent(_) => {
                Reach::Only(self.visible(config).collect())
            }
        }
    }

    /// The agents of the config whose mailboxes this caller looks into.
    pub fn visible<'c>(&'c self, config: &'c Config) -> impl Iterator<Item = AgentId> + 'c {
        config
            .file
            .agents
            .keys()
            .filter(|agent| self.check(config, agent).is_ok())
            .cloned()
    }
}

/// Whether a mailbox is the hub's own rather than a person's or a local agent's: the `system`
/// mailbox replies to system messages go to, and the stand-ins of agents elsewhere (a remote
/// hub's `name@hub`, a Claude Code team's `member@team`, a remote A2A agent), which are this
/// machine's outgoing queues to them.
fn is_hub_own(agent: &AgentId, entry: &AgentEntry) -> bool {
    agent.as_str() == SYSTEM_MAILBOX || agent.as_str().contains('@') || entry.is_stand_in()
}

/// The SHA-256 (hex) of an agent's bearer token, when it has one.
pub fn token_sha256(entry: &AgentEntry) -> Option<&str> {
    entry
        .extra
        .get(TOKEN_FIELD)
        .and_then(serde_json::Value::as_str)
        .filter(|hash| !hash.is_empty())
}

/// A new random token: 32 bytes from the OS, hex.
pub fn new_token() -> Result<String, getrandom::Error> {
    let mut bytes = [0u8; 32];
    getrandom::fill(&mut bytes)?;
    Ok(hex(&bytes))
}

/// The SHA-256 of a token, hex, as the config keeps it.
pub fn sha256_hex(token: &str) -> String {
    hex(&Sha256::digest(token.as_bytes()))
}

fn hex(bytes: &[u8]) -> String {
    bytes.iter().map(|b| format!("{b:02x}")).collect()
}

/// Compare without an early exit, so timing tells nothing about how much of a secret (a
/// token's hash, the page's session) matched.
pub fn constant_time_eq(a: &str, b: &str) -> bool {
    a.len() == b.len()
        && a.bytes()
            .zip(b.bytes())
            .fold(0u8, |acc, (x, y)| acc | (x ^ y))
            == 0
}

#[cfg(test)]
mod tests {
    use super::*;

    /// `ops` and `system` without a token, `dev` with `dev-token`.
    fn config() -> (tempfile::TempDir, Config) {
        let dir = tempfile::tempdir().unwrap();
        let config = Config::update(&dir.path().join("config.json"), |file| {
            for agent in ["ops", "system", "dev", "bob@elsewhere"] {
                file.set_mailbox(&AgentId::new(agent)?, dir.path().join(agent));
            }
            let dev = file.agents.get_mut(&AgentId::new("dev")?).unwrap();
            dev.extra
                .insert(TOKEN_FIELD.into(), sha256_hex("dev-token").into());
            Ok(())
        })
        .unwrap();
        (dir, config)
    }

    fn id(name: &str) -> AgentId {
        AgentId::new(name).unwrap()
    }

    #[test]
    fn who_acts_for_whom() {
        let (_dir, config) = config();
        let dev = Caller::from_authorization(&config, Some("bearer dev-token"), None).unwrap();
        assert_eq!(
            dev,
            Caller::Agent(id("dev")),
            "the scheme is case-insensitive"
        );
        assert!(matches!(
            Caller::from_authorization(&config, Some("Basic dev-token"), None),
            Err(Denied::MalformedAuthorization)
        ));
        assert!(dev.check(&config, &id("ops")).is_err());
        let anonymous = Caller::Anonymous;
        assert!(anonymous.check(&config, &id("ops")).is_ok());
        assert!(matches!(
            anonymous.check(&config, &id("dev")),
            Err(Denied::TokenRequired(_))
        ));
        for own in ["system", "bob@elsewhere"] {
            assert!(matches!(
                anonymous.check(&config, &id(own)),
                Err(Denied::HubOwn(_))
            ));
            assert!(Caller::Owner.check(&config, &id(own)).is_ok());
        }
        let visible: Vec<AgentId> = anonymous.visible(&config).collect();
        assert_eq!(visible, [id("ops")]);
        let stranger = Caller::Anonymous.on_network(true);
        assert_eq!(stranger.visible(&config).count(), 0);
        assert_eq!(Caller::Anonymous.on_network(false), Caller::Anonymous);
        assert_eq!(dev.clone().on_network(true), dev);
    }

    #[test]
    fn a_process_of_the_hubs_user_is_the_owner_and_no_one_else() {
        let (_dir, config) = config();
        let peer = |uid| {
            Some(SocketPeer {
                uid,
                server_uid: 1000,
            })
        };
        let owner = Caller::from_authorization(&config, Some("peer"), peer(1000)).unwrap();
        assert_eq!(owner, Caller::Owner);
        assert!(
            owner.check(&config, &id("dev")).is_ok(),
            "a token's agent too"
        );
        let other = Caller::from_authorization(&config, Some("Peer"), peer(1001));
        assert!(
            matches!(
                other,
                Err(Denied::OtherUser {
                    uid: 1001,
                    server_uid: 1000
                })
            ),
            "{other:?}"
        );
        let tcp = Caller::from_authorization(&config, Some("Peer"), None);
        assert!(matches!(tcp, Err(Denied::NoPeer)), "{tcp:?}");
        assert_eq!(
            Caller::from_authorization(&config, None, peer(1000)).unwrap(),
            Caller::Anonymous,
            "a socket caller that does not ask is known as before"
        );
    }

    #[test]
    fn only_a_proven_caller_answers_a_permission_prompt() {
        let (_dir, config) = config();
        let peer = Some(SocketPeer {
            uid: 1000,
            server_uid: 1000,
        });
        let by_peer = Caller::from_authorization(&config, Some("Peer"), peer).unwrap();
        let page = Caller::Anonymous.with_page_session(true);
        assert_eq!(page, Caller::Page);
        for proven in [by_peer, page.clone(), Caller::Agent(id("dev"))] {
            assert_eq!(
                proven.approvals(&id("ops")),
                Approvals::Allowed,
                "{proven:?}"
            );
        }
        let bare = Caller::Anonymous.with_page_session(false);
        assert!(matches!(bare.approvals(&id("ops")), Approvals::Refused(_)));
        let mailroom = bare.act_as(&config, &id("ops")).unwrap();
        assert!(matches!(mailroom.approvals(), Approvals::Refused(_)));
        // The page's session is no token: off loopback it is a stranger's.
        assert_eq!(page.on_network(true), Caller::Stranger);
    }

    #[test]
    fn only_the_owner_runs_the_verbs_on_the_hosts_files() {
        let teams = crate::verbs::find("list_teams").unwrap();
        let list = crate::verbs::find("list_messages").unwrap();
        assert!(Caller::Owner.may_run(teams).is_ok());
        assert!(matches!(
            Caller::Agent(id("dev")).may_run(teams),
            Err(Denied::HostFiles("list_teams"))
        ));
        assert!(Caller::Anonymous.may_run(list).is_ok());
    }

    #[test]
    fn tokens_are_random_and_hash_to_hex() {
        let a = new_token().unwrap();
        assert_eq!(a.len(), 64);
        assert_ne!(a, new_token().unwrap());
        assert_eq!(
            sha256_hex("abc"),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad"
        );
        assert!(constant_time_eq("ab", "ab"));
        assert!(!constant_time_eq("ab", "ac"));
        assert!(!constant_time_eq("ab", "abc"));
    }
}
