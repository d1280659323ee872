//! The command line: the verbs' subcommands, generated from the verb table
//! (`filebox_api::verbs::TABLE`, arguments and help from each verb's argument struct), the
//! other commands declared here, and every `--help`.

use std::path::PathBuf;

use clap::{ArgMatches, Args, FromArgMatches, Parser, Subcommand, ValueEnum};
use filebox_api::VerbInfo;
use filebox_api::command_line::choice;
use filebox_api::verbs::TABLE;
use filebox_core::{AgentKind, ForkReason, Priority};

/// Durable file-system mailboxes for AI agents and the humans who work with them.
///
/// Each agent has a mailbox folder (inbox, outbox, done, cancel, hold) of Markdown message
/// files. Agents send, list, read, reply to and resolve messages with these commands, or
/// through the MCP server (`filebox mcp`).
#[derive(Debug, Parser)]
#[command(name = "filebox")]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) global: Global,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Options every command takes.
#[derive(Debug, Args)]
#[command(next_help_heading = "Global options")]
pub(crate) struct Global {
    /// The config file [default: the nearest .filebox/config.json upward, else
    /// ~/.config/filebox/config.json]
    #[arg(long, global = true, env = "FILEBOX_CONFIG", value_name = "PATH")]
    pub(crate) config: Option<PathBuf>,
    /// Act as this agent [default: the config's current_agent_id]; for `init`, the agent to
    /// create
    #[arg(long, global = true, env = "FILEBOX_AGENT", value_name = "ID")]
    pub(crate) agent: Option<String>,
    /// Print machine-readable JSON (the same structures as the MCP tools and the API)
    #[arg(long, global = true)]
    pub(crate) json: bool,
}

/// What the command line asks for.
#[derive(Debug)]
pub(crate) enum Invocation {
    /// A verb of the table, with the parsed arguments of its subcommand.
    Verb {
        verb: &'static VerbInfo,
        matches: ArgMatches,
    },
    /// `agents add` or `agents token`.
    Agents(AgentsAction),
    /// `teams bridge`.
    Teams(TeamsAction),
    /// A command that is not a verb.
    Command(Command),
}

/// The command line as clap sees it: the declared commands, a subcommand per verb of the
/// table (`teams inbox` under `teams`), and the commands that extend a verb's subcommand
/// (`agents add` beside `agents`, the verb `list_agents`).
pub(crate) fn command() -> clap::Command {
    use clap::CommandFactory;
    // The verbs are listed first, in the table's order, then the other commands.
    let mut command = root(Cli::command());
    let declared: Vec<String> = command
        .get_subcommands()
        .map(|declared| declared.get_name().to_owned())
        .collect();
    for (order, name) in declared.iter().enumerate() {
        command =
            command.mut_subcommand(name, |declared| declared.display_order(TABLE.len() + order));
    }
    for (order, verb) in TABLE.iter().enumerate() {
        let path: Vec<&str> = verb.cli.split(' ').collect();
        command = with_subcommand(command, &path, verb.command().display_order(order));
    }
    let command = EXTENDED.iter().fold(command, |command, (name, extend)| {
        command.mut_subcommand(name, extend)
    });
    ALSO_NAMED.iter().fold(command, |command, (other, name)| {
        command
            .mut_subcommand(other, |other| other.hide(true))
            .mut_subcommand(name, |named| {
                let about = named.get_about().map(ToString::to_string);
                named.about(format!("{} (also: {other})", about.unwrap_or_default()))
            })
    })
}

/// Verbs that are another name for a verb (`work_report` for `task_finish`, as Agent
/// Assistant renamed it): the other name still runs, and `--help` lists the verb once, saying
/// `(also: OTHER)`.
const ALSO_NAMED: [(&str, &str); 1] = [("work-report", "report")];

/// The settings of the root command, whole tree or narrowed.
fn root(command: clap::Command) -> clap::Command {
    command
        .version(env!("CARGO_PKG_VERSION"))
        .propagate_version(true)
        .max_term_width(100)
}

/// What [`command`] adds to a declared subcommand.
type Extend = fn(clap::Command) -> clap::Command;

/// The subcommands [`command`] gives more than their own declaration: `agents add` beside the
/// verb `agents`, `teams bridge` beside the team verbs, and `mcp`'s own --json (it speaks
/// JSON-RPC whatever it is given: the flag is accepted and not shown, and the global one is
/// then not added to it).
const EXTENDED: [(&str, Extend); 3] = [
    ("agents", AgentsAction::augment_subcommands),
    ("teams", TeamsAction::augment_subcommands),
    ("mcp", |mcp| {
        mcp.arg(
            clap::Arg::new("json")
                .long("json")
                .action(clap::ArgAction::SetTrue)
                .hide(true),
        )
    }),
];

/// The command line of `args` when its subcommand is a verb of one word that [`command`] does
/// not extend (`send`, what a host runs per message): the root and that one subcommand.
/// Building the whole tree, fifty subcommands and their arguments, is most of what a start
/// costs besides the loader (BENCHMARKS.md, issue 23).
fn narrowed(args: &[std::ffi::OsString]) -> Option<clap::Command> {
    let mut words = args.iter().skip(1);
    let word = loop {
        let arg = words.next()?.to_str()?;
        match arg {
            // The global options that take a value as the next word.
            "--config" | "--agent" => {
                words.next()?;
            }
            _ if arg.starts_with('-') => {}
            _ => break arg,
        }
    };
    let verb = TABLE.iter().find(|verb| verb.cli == word)?;
    if EXTENDED.iter().any(|(name, _)| *name == word) {
        return None;
    }
    Some(Global::augment_args(root(clap::Command::new("filebox"))).subcommand(verb.command()))
}

/// `parent` with `command` added at `path` (its last word is the command's name).
fn with_subcommand(parent: clap::Command, path: &[&str], command: clap::Command) -> clap::Command {
    match path {
        [first, rest @ ..] if !rest.is_empty() => {
            parent.mut_subcommand(*first, |below| with_subcommand(below, rest, command))
        }
        _ => parent.subcommand(command),
    }
}

/// Parse the process's arguments: against the one subcommand they name when that is enough
/// ([`narrowed`]), else, and for anything the narrowed command line does not take (help, a
/// version, a usage error, so that what is printed is the same), against the whole tree.
pub(crate) fn parse() -> Result<(Global, Invocation), clap::Error> {
    let args: Vec<std::ffi::OsString> = std::env::args_os().collect();
    match narrowed(&args).map(|one| one.try_get_matches_from(&args)) {
        Some(Ok(matches)) => return parse_matches(&matches),
        // A file or standard input the command line named could not be read: parsing again
        // would read what is left of it.
        Some(Err(error)) if unreadable_input(&error).is_some() => return Err(error),
        Some(Err(_)) | None => {}
    }
    parse_matches(&command().try_get_matches_from(&args)?)
}

/// Parse a command line given as words (`filebox quickstart` runs its steps so), against the
/// whole tree.
pub(crate) fn parse_from<I, T>(args: I) -> anyhow::Result<(Global, Invocation)>
where
    I: IntoIterator<Item = T>,
    T: Into<std::ffi::OsString> + Clone,
{
    Ok(parse_matches(&command().try_get_matches_from(args)?)?)
}

/// The input a value parser could not read (a file, standard input), when that is the error.
pub(crate) fn unreadable_input(
    error: &clap::Error,
) -> Option<&filebox_api::command_line::InputError> {
    use std::error::Error;
    error
        .source()
        .and_then(|source| source.downcast_ref::<filebox_api::command_line::InputError>())
}

/// What parsed arguments ask for.
fn parse_matches(matches: &ArgMatches) -> Result<(Global, Invocation), clap::Error> {
    let mut leaf = matches;
    let mut path = Vec::new();
    while let Some((name, below)) = leaf.subcommand() {
        path.push(name);
        leaf = below;
    }
    let path = path.join(" ");
    let global = Global::from_arg_matches(matches)?;
    if let Some(verb) = TABLE.iter().find(|verb| verb.cli == path) {
        let matches = leaf.clone();
        return Ok((global, Invocation::Verb { verb, matches }));
    }
    Ok(match matches.subcommand() {
        Some(("agents", agents)) => (
            global,
            Invocation::Agents(AgentsAction::from_arg_matches(agents)?),
        ),
        Some(("teams", teams)) => (
            global,
            Invocation::Teams(TeamsAction::from_arg_matches(teams)?),
        ),
        _ => {
            let cli = Cli::from_arg_matches(matches)?;
            (cli.global, Invocation::Command(cli.command))
        }
    })
}

/// The commands that are not verbs of the table (those are added by [`command`]).
#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Create (or extend) a config and the mailbox folders of the agent named by --agent
    /// and of the person named by --human.
    ///
    /// `filebox init --agent ID [--mailbox PATH] [--human NAME]`: here --agent names the
    /// agent to create (or whose mailbox to change), not the one acting. Uses --config if
    /// given, else the nearest .filebox/config.json upward, else creates
    /// ./.filebox/config.json. The first one created becomes the current agent.
    Init(InitArgs),
    /// Print each message reaching my inbox from now on as one JSON line, until interrupted.
    /// Once it watches, it says so on stderr (`filebox: watching the inbox of ID`). Mail
    /// already there is not printed (`filebox list` shows it), and what it prints is still
    /// new to the next `wait`.
    Watch,
    /// Serve the mailbox verbs as an MCP server (stdio, or Streamable HTTP with --listen).
    Mcp(McpArgs),
    /// Print messages as `<teammate-message teammate_id=".." color=".." summary="..">` blocks
    /// for a model's context: messages of my mailbox by id, my unread inbox, or a member's
    /// Claude Code team inbox. Marks nothing read.
    Render(RenderArgs),
    /// Write a thread as a `.msg.md` transcript (percent notation): messages as
    /// `# %%` cells, replies as `# %%%` cells, footnotes with sender, time, type and Message ID,
    /// participants as frontmatter agents. A thread imported from a file exports as that file.
    Export(ExportArgs),
    /// Read a `.msg.md` transcript (or an `.md` file's `Discussion` section) into an agent's
    /// inbox as one thread: a first message with the preamble, then one message per cell.
    /// Prints the Message IDs it created.
    Import(ImportArgs),
    /// Run the hub: JSON-RPC 2.0 at POST /rpc and on .filebox/hub.sock (the email.*
    /// methods; rpc.discover lists them), live events at GET /events (SSE), MCP at /mcp, the
    /// human page at /, Connect RPC for Agent Assistant clients at
    /// /agentassistproto.SrvAgentAssist/{AskQuestion,TaskFinish}, /healthz. The first line on
    /// stdout is the base URL.
    ///
    /// It also runs each agent's `runner` command for mail reaching its inbox, POSTs signed
    /// webhooks for replies to messages with a `callback` (config `hub`: `callback_allow`,
    /// `webhook_secret`, `webhook_attempts`, `webhook_first_retry_ms`), and runs the config's
    /// `bridges`. It keeps nothing but the files: killed, it resumes pending runs and webhooks
    /// when started again.
    ///
    /// With no config anywhere, creates ./.filebox/config.json with a human mailbox `me` and
    /// an agent mailbox `assistant` (the current agent, so MCP and Connect callers ask `me`).
    /// Off loopback, every agent needs a token (`filebox agents token ID`). Stops gracefully on
    /// SIGTERM or Ctrl-C.
    Serve(ServeArgs),
    /// Hubs on several machines, federated over NATS JetStream (the config's `federation`
    /// section; agents of other hubs are `name@hub`, `"hub": "NAME"` in `agents`).
    Federation(FederationArgs),
    /// The config's `hub` section: where webhooks may go (`callback_allow`) and the key they
    /// are signed with (`webhook_secret`).
    Hub(HubArgs),
    /// Show FileBox working with no setup: two agents in a throwaway folder walk an
    /// enhancement-request exchange, printing each step.
    Quickstart(QuickstartArgs),
    /// The agent email commands: `email send --to AGENT --subject .. --body ..`,
    /// `email inbox AGENT`, `email reply ID --body ..`, `email threads [AGENT]`,
    /// `email fork --from ID --reason ..`; each is another spelling of a verb above.
    #[command(subcommand)]
    Email(EmailAction),
    /// Set a host tool up to use FileBox as --agent (default: the current agent): its MCP
    /// server entry (`filebox mcp`), and for Claude Code, Codex, Gemini CLI and Copilot CLI
    /// the hooks that put new mail in front of the session (`filebox hook`).
    ///
    /// Writes into the host's own files (Claude Code: .mcp.json and .claude/settings.json;
    /// Cursor: .cursor/mcp.json; Codex: .codex/config.toml and .codex/hooks.json; Gemini CLI:
    /// .gemini/settings.json; Copilot CLI: .github/mcp.json and .github/hooks/filebox.json;
    /// VS Code: .vscode/mcp.json; Claude Desktop, Cline, Windsurf, Augment: their user files;
    /// Trae: .trae/mcp.json), merged with
    /// what is there: other servers, hooks, keys and comments stay. Run it in the folder where
    /// the host starts (the project files go there). Running it again changes nothing; a file
    /// it changes is kept as FILE.filebox.bak. A file it cannot parse is reported and nothing
    /// is written.
    Setup(SetupArgs),
    /// Run as a host's hook (configured by `filebox setup`): reads the hook's JSON on stdin.
    ///
    /// claude-code: on SessionStart and UserPromptSubmit, prints my unread mail as context
    /// for the model and records it offered to the session (read once that session's turn
    /// ends); on Stop (run in the background with asyncRewake), also after a wake, waits up to
    /// --timeout for new mail and exits 2 with a digest on stderr, which wakes the idle session
    /// (exit 0 when none came). codex: the same context on SessionStart and UserPromptSubmit;
    /// on Stop, mail that arrived during the turn continues the turn (Codex cannot be woken
    /// once idle). gemini: the same on SessionStart and BeforeAgent, and AfterAgent as Codex's
    /// Stop. copilot: the same on SessionStart, UserPromptSubmit and Stop, as Copilot CLI
    /// reads them.
    Hook(HookArgs),
}

#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// The agent's mailbox folder [default: ./mailboxes/<ID>]
    #[arg(long, value_name = "PATH")]
    pub(crate) mailbox: Option<PathBuf>,
    /// Also create a person's mailbox (`"kind": "human"`, at ./mailboxes/<NAME>): who
    /// `filebox ask` asks, and who answers on the hub's page
    #[arg(long, value_name = "NAME")]
    pub(crate) human: Option<String>,
}

// What `agents` does besides listing the agents (the verb `list_agents`); a `//` comment,
// since a doc comment would replace the help of `agents`.
#[derive(Debug, Subcommand)]
pub(crate) enum AgentsAction {
    /// Add an agent or a person (or change its mailbox or kind) and create its mailbox
    /// folders; with --hub, an agent of another machine's hub (`bob@ci-1 --hub ci-1`), whose
    /// mail waits in its local stand-in mailbox (`remote/bob@ci-1/`) for the federation.
    Add(AgentsAddArgs),
    /// Give an agent a new bearer token for the hub, printed once; the config keeps only its
    /// SHA-256 (`token_sha256`). The agent's old token stops working.
    Token {
        /// The agent id
        id: String,
    },
}

#[derive(Debug, Args)]
pub(crate) struct AgentsAddArgs {
    /// The agent id: letters, digits, `_`, `-`, `.`; `NAME@HUB` for an agent of another hub
    pub(crate) id: String,
    /// Its mailbox folder [default: ./mailboxes/<ID>]
    #[arg(long, value_name = "PATH", conflicts_with_all = ["hub", "a2a"])]
    pub(crate) mailbox: Option<PathBuf>,
    /// The federated hub the agent lives on (the id must then be NAME@HUB): no mailbox here
    #[arg(long, value_name = "HUB", conflicts_with = "a2a")]
    pub(crate) hub: Option<String>,
    /// A remote A2A agent (its base URL, http://HOST[:PORT]/PATH, where its card is at
    /// /.well-known/agent-card.json, or the card's URL): mail to it waits in a stand-in
    /// mailbox until the hub hands it over as A2A SendMessage to the JSON-RPC interface the
    /// card names, and its task's updates come back as replies
    #[arg(long, value_name = "URL")]
    pub(crate) a2a: Option<String>,
    /// The bearer token the remote A2A agent takes (kept in the config as written)
    #[arg(long, value_name = "TOKEN", requires = "a2a")]
    pub(crate) token: Option<String>,
    /// An agent, or a human: a person's mailbox, who `filebox ask` asks [default: agent,
    /// or the kind it has]
    #[arg(long, value_parser = choice::<AgentKind>())]
    pub(crate) kind: Option<AgentKind>,
    /// Print the change to the config as a diff and write nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
}

// What `teams` does besides the team verbs (`teams`, `teams inbox`, `read`, `send`); a `//`
// comment, since a doc comment would replace the help of `teams`.
#[derive(Debug, Subcommand)]
pub(crate) enum TeamsAction {
    /// Bridge a team and FileBox in the foreground: messages in my team inbox (MEMBER.json
    /// named after the FileBox agent) become FileBox mail from `member@team`, marked read
    /// once delivered; FileBox mail to `member@team` is appended to that member's team inbox
    /// and resolved. Members are added to the config as `member@team` (mailboxes under
    /// `bridges/TEAM/` beside it). Stopping it at any moment loses and duplicates nothing.
    /// When the team ends (a session team's folder goes when its Claude Code session exits)
    /// it says so, and refuses mail for its members back to the senders until a team of that
    /// name returns.
    Bridge {
        /// The team's name [default: as Claude Code picks it: $CLAUDE_CODE_TEAM_NAME, else the
        /// session's team (session-<first 8 characters of $CLAUDE_CODE_SESSION_ID>) while it
        /// exists, else default; followed as that choice changes]
        team: Option<String>,
        /// The FileBox agent the team talks to [default: the current agent]
        #[arg(long, value_name = "AGENT")]
        mailbox: Option<String>,
        /// One pass, then exit
        #[arg(long)]
        once: bool,
        /// Milliseconds between passes
        #[arg(long, value_name = "MS", default_value_t = 1000)]
        interval_ms: u64,
        /// The Claude config folder holding `teams/` [default: $CLAUDE_CONFIG_DIR, else
        /// ~/.claude]
        #[arg(long, global = true, value_name = "DIR")]
        claude_dir: Option<PathBuf>,
    },
}

/// The agent email command forms, each mapped onto a verb (`commands/email.rs`).
#[derive(Debug, Subcommand)]
pub(crate) enum EmailAction {
    /// Send a new message (`send`); prints its Message ID.
    Send {
        /// Recipients: agent ids (repeatable, or a comma list), @all or @group
        #[arg(long, value_name = "AGENT", required = true)]
        to: Vec<String>,
        /// Copy to these agents (repeatable, or a comma list)
        #[arg(long, value_name = "AGENT")]
        cc: Vec<String>,
        /// The title [default: the body's first line]
        #[arg(long)]
        subject: Option<String>,
        /// The Markdown body, or `-` to read standard input
        #[arg(long, allow_hyphen_values = true)]
        body: String,
        /// Message type: ER, BR, DIS, ACK, SU, ... or your own upper-case word
        #[arg(long = "type", value_name = "TYPE", default_value = "DIS")]
        kind: String,
        /// How urgent it is
        #[arg(long, value_parser = choice::<Priority>())]
        priority: Option<Priority>,
    },
    /// List an agent's inbox (`list inbox` as that agent) [default: the current agent].
    Inbox {
        /// Whose inbox
        agent: Option<String>,
    },
    /// Answer a message (`reply`); prints `ID -> AGENT`.
    Reply {
        /// The message: id, short id or file name
        id: String,
        /// The Markdown body, or `-` to read standard input
        #[arg(long, allow_hyphen_values = true)]
        body: String,
    },
    /// List an agent's threads, most recently active first (`threads` as that agent)
    /// [default: the current agent].
    Threads {
        /// Whose threads
        agent: Option<String>,
    },
    /// Fork a thread from an earlier message (`fork`).
    Fork {
        /// The message to start again from (id, short id, or ID#N for its N-th reply)
        #[arg(long, value_name = "ID")]
        from: String,
        /// context-compression or direction-change
        #[arg(long, value_parser = choice::<ForkReason>())]
        reason: ForkReason,
        /// The compressed context the new branch starts with, or `-` to read standard input
        /// [default: none]
        #[arg(long, allow_hyphen_values = true)]
        context: Option<String>,
    },
}

#[derive(Debug, Args)]
pub(crate) struct SetupArgs {
    /// The hosts to set up [with --check, default: all]
    #[arg(
        value_parser = clap::builder::PossibleValuesParser::new(crate::commands::setup_host_names()),
        required_unless_present = "check"
    )]
    pub(crate) hosts: Vec<String>,
    /// Print the changes as a diff and write nothing
    #[arg(long, conflicts_with = "check")]
    pub(crate) dry_run: bool,
    /// Say, for each host, what is configured and what is missing; write nothing (exit code
    /// 1 when a host named is not fully configured)
    #[arg(long)]
    pub(crate) check: bool,
}

/// The hosts whose hooks `filebox hook` speaks.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum HookHost {
    ClaudeCode,
    Codex,
    Gemini,
    Copilot,
}

#[derive(Debug, Args)]
pub(crate) struct HookArgs {
    /// Whose hook JSON to read
    #[arg(value_enum)]
    pub(crate) host: HookHost,
    /// How long a Claude Code Stop hook waits for mail, in seconds
    #[arg(long, value_name = "SECONDS", default_value_t = crate::commands::STOP_WAIT_SECONDS)]
    pub(crate) timeout: u64,
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8765)
    #[arg(long, value_name = "ADDR")]
    pub(crate) listen: Option<String>,
    /// Accept this Host header besides loopback (DNS-rebinding protection)
    #[arg(long = "allow-host", value_name = "HOST")]
    pub(crate) allow_hosts: Vec<String>,
    /// Push new inbox mail into the session as Claude Code channel events (stdio only; for
    /// `claude --dangerously-load-development-channels server:NAME`). Without it, mail is
    /// pushed only to a client that declares the `claude/channel` capability. Pushed mail is
    /// not returned again by `wait_for_messages`.
    #[arg(long, conflicts_with = "listen")]
    pub(crate) channel: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ServeArgs {
    /// The address to listen on (port 0 picks a free port)
    #[arg(long, value_name = "ADDR", default_value = "127.0.0.1:8765")]
    pub(crate) listen: String,
    /// Accept this Host (and Origin) besides loopback and the listen address
    #[arg(long = "allow-host", value_name = "HOST")]
    pub(crate) allow_hosts: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct QuickstartArgs {
    /// Where to create the demo [default: a new folder under the system's temp folder]
    #[arg(long, value_name = "PATH")]
    pub(crate) dir: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct FederationArgs {
    #[command(subcommand)]
    pub(crate) action: FederationAction,
}

#[derive(Debug, Subcommand)]
pub(crate) enum FederationAction {
    /// The connection to NATS, each known hub with what waits for it in the stream (its lag),
    /// what this hub has not handed to the stream yet (queued), and refused messages.
    /// Exit code 1 when NATS cannot be reached.
    Status,
    /// Write the config's `federation` section: the options given replace those fields, the
    /// others stay (the first time, --nats and --hub are needed). The hub reads it at start.
    Set(FederationSetArgs),
}

#[derive(Debug, Args)]
pub(crate) struct FederationSetArgs {
    /// The NATS server(s) with JetStream: one URL, or several separated by commas
    #[arg(long, value_name = "URL")]
    pub(crate) nats: Option<String>,
    /// This machine's hub name, unique in the cluster (agents here are NAME@HUB elsewhere)
    #[arg(long, value_name = "NAME")]
    pub(crate) hub: Option<String>,
    /// A NATS .creds file (relative: to the config's project folder)
    #[arg(long, value_name = "FILE", conflicts_with_all = ["nkey", "user"])]
    pub(crate) credentials: Option<PathBuf>,
    /// A file holding this hub's NKey seed
    #[arg(long, value_name = "FILE", conflicts_with = "user")]
    pub(crate) nkey: Option<PathBuf>,
    /// This hub's NATS user name (with --password)
    #[arg(long, value_name = "NAME", requires = "password")]
    pub(crate) user: Option<String>,
    /// This hub's NATS password (with --user)
    #[arg(long, value_name = "PASSWORD", requires = "user")]
    pub(crate) password: Option<String>,
    /// Seconds mail may go without its receipt before it is published again
    #[arg(long, value_name = "SECONDS")]
    pub(crate) resend_after_secs: Option<u64>,
    /// How many NATS servers keep each message of the stream this hub creates (1 to 5)
    #[arg(long, value_name = "N")]
    pub(crate) replicas: Option<u64>,
    /// Print the change to the config as a diff and write nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
}

#[derive(Debug, Args)]
pub(crate) struct HubArgs {
    #[command(subcommand)]
    pub(crate) action: HubAction,
}

#[derive(Debug, Subcommand)]
pub(crate) enum HubAction {
    /// Write the config's `hub` section: the options given are set, the others stay. A
    /// running hub reads it when it starts again.
    Set(HubSetArgs),
}

#[derive(Debug, Args)]
pub(crate) struct HubSetArgs {
    /// Let callbacks go to URLs under this one (`callback_allow`; repeatable; added to the
    /// entries already there), e.g. http://127.0.0.1:9000/hooks/
    #[arg(long = "allow", value_name = "URL")]
    pub(crate) allow: Vec<String>,
    /// The key webhooks are signed with (`webhook_secret`): `whsec_` + base64, as Standard
    /// Webhooks writes it, or any other text, which is the key itself
    #[arg(long, value_name = "SECRET")]
    pub(crate) secret: Option<String>,
    /// How many times a webhook is tried before it is given up (`webhook_attempts`)
    #[arg(long, value_name = "N")]
    pub(crate) webhook_attempts: Option<u32>,
    /// The wait after the first failed try, doubling after each (`webhook_first_retry_ms`)
    #[arg(long, value_name = "MS")]
    pub(crate) webhook_first_retry_ms: Option<u64>,
    /// Print the change to the config as a diff and write nothing
    #[arg(long)]
    pub(crate) dry_run: bool,
}

#[derive(Debug, Args)]
pub(crate) struct RenderArgs {
    /// Render as `<teammate-message>` XML blocks (the one format there is; required so a
    /// later format cannot change what a script gets)
    #[arg(long, required = true)]
    pub(crate) xml: bool,
    /// Messages of my mailbox, any folder: id, short id or file name
    #[arg(conflicts_with = "team")]
    pub(crate) ids: Vec<String>,
    /// My unread inbox messages (with --team: the member's unread team messages)
    #[arg(long)]
    pub(crate) unread: bool,
    /// A Claude Code team: render the --member's team inbox instead of my mailbox
    #[arg(long, requires = "member", value_name = "TEAM")]
    pub(crate) team: Option<String>,
    /// The member whose team inbox to render
    #[arg(long, requires = "team", value_name = "NAME")]
    pub(crate) member: Option<String>,
    /// The Claude config folder holding `teams/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    #[arg(long, value_name = "DIR")]
    pub(crate) claude_dir: Option<PathBuf>,
}

/// A transcript format.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub(crate) enum TranscriptFormat {
    /// A `.msg.md` message file in percent notation
    #[value(name = "msg.md")]
    MsgMd,
}

#[derive(Debug, Args)]
pub(crate) struct ExportArgs {
    /// Any message of the thread (id, short id or file name), or the thread's id
    pub(crate) thread: String,
    /// The format to write
    #[arg(long, value_enum)]
    pub(crate) format: TranscriptFormat,
    /// Write to this file instead of standard output (never over an existing file without
    /// --force)
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
    /// Replace the file -o names if it exists
    #[arg(long, requires = "output")]
    pub(crate) force: bool,
}

#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// The file: `*.msg.md`, or an ordinary `*.md` whose frontmatter says it holds messages
    /// (`messages: true`, or `message_section: NAME`) in its last section (`Discussion`, or
    /// the one named)
    pub(crate) file: PathBuf,
    /// Deliver into this agent's inbox [default: me]
    #[arg(long, value_name = "AGENT")]
    pub(crate) to: Option<String>,
}

#[cfg(test)]
mod tests {
    use super::command;

    #[test]
    fn the_command_line_is_well_formed_with_every_verb_at_its_path() {
        let cli = command();
        cli.clone().debug_assert();
        for verb in filebox_api::verbs::TABLE {
            let found = verb
                .cli
                .split(' ')
                .try_fold(&cli, |command, word| command.find_subcommand(word));
            assert!(
                found.is_some(),
                "{} has no `filebox {}`",
                verb.name,
                verb.cli
            );
        }
    }
}
