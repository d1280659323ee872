//! The command line: every verb, its arguments and its `--help`.

use std::path::PathBuf;

use clap::builder::{PossibleValuesParser, TypedValueParser};
use clap::{Args, Parser, Subcommand, ValueEnum};
use filebox_core::{Choice, Folder, ForkReason, MessageType, Priority, SourceType, Status};

/// Durable file-system mailboxes for AI agents and the humans who work with them.
///
/// Each agent has a mailbox folder (inbox, outbox, done, cancel, hold) of Markdown message
/// files. Agents send, list, read, reply to and resolve messages with these commands, or
/// through the MCP server (`filebox mcp`).
#[derive(Debug, Parser)]
#[command(
    name = "filebox",
    version,
    propagate_version = true,
    max_term_width = 100
)]
pub(crate) struct Cli {
    #[command(flatten)]
    pub(crate) global: Global,
    #[command(subcommand)]
    pub(crate) command: Command,
}

/// Options every command takes.
#[derive(Debug, Args)]
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

/// A value from one of the core's closed sets (folder, priority, ...): `--help` lists the
/// names, and the same names are the JSON Schema `enum` of the MCP tools.
fn choice<T: Choice + Send + Sync>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(T::VALUES.iter().map(|value| value.as_str()))
        .try_map(|name| T::parse_arg(&name))
}

/// A message type: ER, BR, ... or a custom upper-case word.
fn message_type(value: &str) -> filebox_core::Result<MessageType> {
    MessageType::new(value)
}

/// A message type as the caller wrote it, checked: the command says so when it is written
/// differently (`Feature` becomes `FEATURE`).
fn written_message_type(value: &str) -> filebox_core::Result<String> {
    MessageType::new(value).map(|_| value.to_owned())
}

/// The command line as clap sees it: the derived one, with `--json` hidden where it means
/// nothing (`mcp` speaks JSON-RPC whatever it is given).
pub(crate) fn command() -> clap::Command {
    use clap::CommandFactory;
    let mut command = Cli::command();
    // Global options reach the subcommands only when the command is built.
    command.build();
    command.mut_subcommand("mcp", |mcp| mcp.mut_arg("json", |json| json.hide(true)))
}

/// Parse the process's arguments.
pub(crate) fn parse() -> Result<Cli, clap::Error> {
    use clap::FromArgMatches;
    Cli::from_arg_matches(&command().try_get_matches()?)
}

/// A usage error of a subcommand (exit code 2, like clap's own) for what clap's declarations
/// cannot check (the optional folder before `read`'s message).
pub(crate) fn usage_error(
    subcommand: &str,
    kind: clap::error::ErrorKind,
    message: String,
) -> anyhow::Error {
    let mut command = command();
    match command.find_subcommand_mut(subcommand) {
        Some(sub) => sub.error(kind, message),
        None => command.error(kind, message),
    }
    .into()
}

#[derive(Debug, Subcommand)]
pub(crate) enum Command {
    /// Create (or extend) a config and the mailbox folders of the agent named by --agent.
    ///
    /// `filebox init --agent ID [--mailbox PATH]`: here --agent names the agent to create (or
    /// whose mailbox to change), not the one acting. Uses --config if given, else the nearest
    /// .filebox/config.json upward, else creates ./.filebox/config.json. The first agent
    /// becomes the current agent.
    Init(InitArgs),
    /// List the agents of the config with their mailboxes and message counts; `agents add`
    /// adds one.
    Agents(AgentsArgs),
    /// List the messages of a folder, oldest first: `2025-06-27T153000 ER Title (file.md)`.
    List(ListArgs),
    /// Print a message's whole Markdown (--json: its parsed fields).
    ///
    /// `filebox read ID` looks in every folder, inbox first; `filebox read FOLDER ID` only in
    /// that folder.
    #[command(override_usage = "filebox read [FOLDER] <MESSAGE>")]
    Read(ReadArgs),
    /// Send a message, or with --reply_to answer one: the reply is appended to that message's
    /// conversation and the file moves to the recipient's inbox.
    Send(SendArgs),
    /// Mark a message of my inbox resolved: record the details, move it to done/.
    Resolved(TransitionArgs),
    /// Reject a message of my inbox: record the reason, move it to cancel/.
    Reject(TransitionArgs),
    /// Put a message of my inbox on hold: record the reason, move it to hold/.
    Onhold(TransitionArgs),
    /// Answer a message: `send <its Reply To, else its sender> <TYPE> <content> --reply_to <id>`.
    /// Prints `ID -> AGENT`: the Message ID and who got the answer.
    Reply(ReplyArgs),
    /// Show a message's whole thread as a tree, across every mailbox: who said what, in
    /// order, with replies and fork branches (obsolete nodes marked).
    Thread(ThreadArgs),
    /// List my threads, most recently active first.
    Threads(ThreadsArgs),
    /// Fork a thread from an earlier message (a timeline fork): a new branch with
    /// compressed context; what followed the fork point becomes obsolete (kept, marked).
    Fork(ForkArgs),
    /// Block until mail reaches my inbox, then print what arrived since the last wait, one
    /// listing line per message (--json: an array).
    ///
    /// Exit codes: 0 when mail arrived; 3 when --timeout passed with none (stdout then has
    /// nothing, or `[]` with --json, and stderr says so); 1 on an error. So a script can
    /// write `if filebox wait --timeout 60; then ...; fi`. The first wait ever starts from
    /// the inbox as it is.
    Wait(WaitArgs),
    /// Print each message reaching my inbox from now on as one JSON line, until interrupted.
    /// Once it watches, it says so on stderr (`filebox: watching the inbox of ID`). Mail
    /// already there is not printed (`filebox list` shows it), and what it prints is still
    /// new to the next `wait`.
    Watch,
    /// Search everything my mailbox has held (inbox, outbox, done, cancel, hold): words in any
    /// language, and filters. Newest activity first.
    Search(SearchArgs),
    /// Empty and rebuild the search index (it is derived from the files; searches keep it up
    /// to date by themselves, so this is only needed after files were edited in place).
    Reindex(ReindexArgs),
    /// Show where a message stands: pending, delivered, on hold, answered, resolved, rejected
    /// or obsolete (--json: pending, delivered, processing, replied, failed, obsolete), with
    /// its source type, priority and reply-to; for a message I sent, each recipient's copy.
    Status(StatusArgs),
    /// Ask my human a question (an ASK message to the config's human mailbox) and wait for
    /// the answer, printed when it comes (what the MCP tool ask_question does). When --timeout passes the
    /// question stays open: `filebox answer ID` looks again.
    Ask(AskArgs),
    /// Report finished work to my human (an RPT message) and wait for the reply (what the MCP
    /// tool task_finish does; work_report is its other name).
    #[command(alias = "work-report")]
    Report(ReportArgs),
    /// The answer to a question I asked, or whether it is still open, at once.
    Answer(AnswerArgs),
    /// The questions and work reports waiting in my inbox for an answer (for a human).
    Questions,
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
    /// Claude Code agent teams: list teams, show, read and send to members' team inboxes
    /// (`~/.claude/teams/TEAM/inboxes/MEMBER.json`), and bridge a team to FileBox mail.
    Teams(TeamsArgs),
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
    /// Show FileBox working with no setup: two agents in a throwaway folder walk an
    /// enhancement-request exchange, printing each step.
    Quickstart(QuickstartArgs),
}

#[derive(Debug, Args)]
pub(crate) struct InitArgs {
    /// The agent's mailbox folder [default: ./mailboxes/<ID>]
    #[arg(long, value_name = "PATH")]
    pub(crate) mailbox: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct AgentsArgs {
    #[command(subcommand)]
    pub(crate) action: Option<AgentsAction>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum AgentsAction {
    /// Add an agent (or change its mailbox) and create its mailbox folders.
    Add {
        /// The agent id: letters, digits, `_`, `-`, `.`
        id: String,
        /// Its mailbox folder
        #[arg(long, value_name = "PATH")]
        mailbox: PathBuf,
    },
    /// Give an agent a new bearer token for the hub, printed once; the config keeps only its
    /// SHA-256 (`token_sha256`). The agent's old token stops working.
    Token {
        /// The agent id
        id: String,
    },
}

#[derive(Debug, Args)]
pub(crate) struct ListArgs {
    /// The folder to list
    #[arg(value_parser = choice::<Folder>(), default_value = "inbox")]
    pub(crate) folder: Folder,
    /// Only messages from this agent
    #[arg(long, value_name = "ID")]
    pub(crate) from: Option<String>,
    /// Only messages of this type (ER, BR, DIS, ...)
    #[arg(long = "type", value_name = "TYPE", value_parser = message_type)]
    pub(crate) kind: Option<MessageType>,
    /// Only messages I have not read (with `read`) since they last changed; a message that
    /// comes back with a new reply is unread again
    #[arg(long)]
    pub(crate) unread: bool,
    /// Only messages of this thread (its id as `threads` shows it, or that id's first 8
    /// characters); a thread my mailbox does not hold is an error
    #[arg(long, value_name = "ID")]
    pub(crate) thread: Option<String>,
    /// At most this many messages
    #[arg(long, value_name = "N")]
    pub(crate) limit: Option<usize>,
}

#[derive(Debug, Args)]
pub(crate) struct ReadArgs {
    /// [FOLDER] MESSAGE: the message (file name, message id, or the id's first 8 characters),
    /// optionally after the folder to look in (inbox, outbox, done, cancel, hold)
    #[arg(value_name = "MESSAGE", num_args = 1..=2, required = true)]
    pub(crate) words: Vec<String>,
}

#[derive(Debug, Args)]
pub(crate) struct SendArgs {
    /// Recipient: an agent id, a comma list (a,b), @all (every agent but me) or @group
    pub(crate) target: String,
    /// Message type: ER, BR, DIS, ACK, SU, ASK, RPT, or your own upper-case word
    #[arg(value_name = "TYPE", value_parser = written_message_type)]
    pub(crate) kind: String,
    /// The Markdown content (not empty), or `-` to read standard input
    #[arg(required_unless_present = "file", allow_hyphen_values = true)]
    pub(crate) content: Option<String>,
    /// Read the content from this file instead
    #[arg(long, value_name = "PATH", conflicts_with = "content")]
    pub(crate) file: Option<PathBuf>,
    /// Answer this message (id, short id or file name) instead of starting a new one: the
    /// reply is appended to its conversation and the file moves to the target's inbox
    #[arg(long = "reply_to", visible_alias = "reply-to", value_name = "MESSAGE")]
    pub(crate) reply_to: Option<String>,
    /// The title [default: the content's first line]
    #[arg(long)]
    pub(crate) title: Option<String>,
    /// Copy to these agents (comma list)
    #[arg(long, value_name = "IDS")]
    pub(crate) cc: Option<String>,
    /// How urgent it is
    #[arg(long, value_parser = choice::<Priority>())]
    pub(crate) priority: Option<Priority>,
    /// Who is sending (decides where replies go)
    #[arg(long, value_name = "TYPE", value_parser = choice::<SourceType>())]
    pub(crate) source_type: Option<SourceType>,
    /// For a new message: the agent answers should go to instead of me (its Reply To
    /// header). Not the message being answered: that is --reply_to
    #[arg(long, value_name = "AGENT")]
    pub(crate) reply_to_agent: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct TransitionArgs {
    /// The message in my inbox: file name, message id or short id
    pub(crate) message: String,
    /// The resolution details, or the reason
    pub(crate) details: String,
}

#[derive(Debug, Args)]
pub(crate) struct McpArgs {
    /// Serve Streamable HTTP at http://ADDR/mcp instead of stdio (e.g. 127.0.0.1:8765)
    #[arg(long, value_name = "ADDR")]
    pub(crate) listen: Option<String>,
    /// Accept this Host header besides loopback (DNS-rebinding protection)
    #[arg(long = "allow-host", value_name = "HOST")]
    pub(crate) allow_hosts: Vec<String>,
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
pub(crate) struct SearchArgs {
    /// Words to find (all must occur); Chinese works too: `用户` finds messages containing it
    #[arg(allow_hyphen_values = true)]
    pub(crate) query: String,
    /// Search every mailbox of the config, not only mine
    #[arg(long)]
    pub(crate) all: bool,
    /// Only messages this agent wrote part of: sent them, or wrote a reply in their
    /// conversation
    #[arg(long, value_name = "ID")]
    pub(crate) from: Option<String>,
    /// Only messages of this type (ER, BR, DIS, ...)
    #[arg(long = "type", value_name = "TYPE", value_parser = message_type)]
    pub(crate) kind: Option<MessageType>,
    /// Only this folder
    #[arg(long, value_parser = choice::<Folder>())]
    pub(crate) folder: Option<Folder>,
    /// Only this thread (its id)
    #[arg(long, value_name = "ID")]
    pub(crate) thread: Option<String>,
    /// Only this status
    #[arg(long, value_parser = choice::<Status>())]
    pub(crate) status: Option<Status>,
    /// Only messages sent or answered since this date (2025-06-27) or time
    #[arg(long, value_name = "DATE")]
    pub(crate) since: Option<String>,
    /// At most this many hits (0: all)
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub(crate) limit: usize,
}

#[derive(Debug, Args)]
pub(crate) struct ReindexArgs {
    /// Rebuild the index of every mailbox of the config
    #[arg(long)]
    pub(crate) all: bool,
}

#[derive(Debug, Args)]
pub(crate) struct StatusArgs {
    /// The message: file name, message id or short id
    pub(crate) message: String,
}

#[derive(Debug, Args)]
pub(crate) struct AskArgs {
    /// The question, in Markdown, or `-` to read standard input
    #[arg(allow_hyphen_values = true)]
    pub(crate) question: String,
    /// A quick answer to offer (repeatable)
    #[arg(long = "option", value_name = "TEXT")]
    pub(crate) options: Vec<String>,
    /// The project directory shown with the question (default: the current directory)
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<std::path::PathBuf>,
    /// Seconds to wait for the answer (default 600; bounded by max_question_timeout_secs)
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<u64>,
}

#[derive(Debug, Args)]
pub(crate) struct ReportArgs {
    /// What was done, in Markdown, or `-` to read standard input
    #[arg(allow_hyphen_values = true)]
    pub(crate) summary: String,
    /// The project directory shown with the report (default: the current directory)
    #[arg(long, value_name = "DIR")]
    pub(crate) project: Option<std::path::PathBuf>,
    /// Seconds to wait for a reply (default 600; bounded by max_question_timeout_secs)
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<u64>,
}

#[derive(Debug, Args)]
pub(crate) struct AnswerArgs {
    /// The question's id (as `ask` or `report` printed it)
    pub(crate) id: String,
}

#[derive(Debug, Args)]
pub(crate) struct ReplyArgs {
    /// The message to answer: file name, message id or short id
    pub(crate) message: String,
    /// The Markdown content (not empty), or `-` to read standard input
    #[arg(allow_hyphen_values = true)]
    pub(crate) content: String,
    /// Message type of the reply
    #[arg(long = "type", value_name = "TYPE", default_value = "DIS", value_parser = written_message_type)]
    pub(crate) kind: String,
    /// Attach a file (repeatable): stored in the mailboxes' attachments/<message-id>/ and
    /// linked from the end of the reply; images, audio and other files alike
    #[arg(long = "attach", value_name = "FILE")]
    pub(crate) attach: Vec<std::path::PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ThreadArgs {
    /// Any message of the thread: file name, message id or short id
    pub(crate) message: String,
}

#[derive(Debug, Args)]
pub(crate) struct ThreadsArgs {
    /// At most this many threads (0: all)
    #[arg(long, value_name = "N", default_value_t = 20)]
    pub(crate) limit: usize,
}

#[derive(Debug, Args)]
pub(crate) struct ForkArgs {
    /// The message to start again from (id, short id, file name, or ID#N for the N-th reply
    /// of its conversation)
    #[arg(long, value_name = "ID")]
    pub(crate) from: String,
    /// Why: context-compression (right direction, too much context: the fork carries the
    /// conclusions) or direction-change (wrong direction: it carries the lessons and the new
    /// plan)
    #[arg(long, value_parser = choice::<ForkReason>())]
    pub(crate) reason: ForkReason,
    /// The compressed context the new branch starts with, or `-` to read standard input
    #[arg(long, allow_hyphen_values = true)]
    pub(crate) context: String,
    /// Recipients (comma list, @all, @group) [default: whoever received the fork point]
    #[arg(long, value_name = "IDS")]
    pub(crate) to: Option<String>,
    /// Refuse unless --from belongs to this thread
    #[arg(long, value_name = "ID")]
    pub(crate) thread: Option<String>,
}

#[derive(Debug, Args)]
pub(crate) struct WaitArgs {
    /// Give up after this many seconds [default: wait indefinitely]
    #[arg(long, value_name = "SECONDS")]
    pub(crate) timeout: Option<u64>,
    /// Also print the messages whole as `<teammate-message>` blocks for a model's context
    /// (and mark them read), after their listing lines
    #[arg(long)]
    pub(crate) xml: bool,
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
}

#[derive(Debug, Args)]
pub(crate) struct TeamsArgs {
    /// The Claude config folder holding `teams/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    #[arg(long, global = true, value_name = "DIR")]
    pub(crate) claude_dir: Option<PathBuf>,
    #[command(subcommand)]
    pub(crate) action: Option<TeamsAction>,
}

#[derive(Debug, Subcommand)]
pub(crate) enum TeamsAction {
    /// Show a member's inbox, unread first, without marking anything read. Structured
    /// messages (idle notifications, shutdown and plan approval requests, ...) are shown by
    /// kind.
    Inbox {
        /// The team's name, as Claude Code was given it
        team: String,
        /// The member's name (`team-lead` for the lead)
        member: String,
        /// Only unread messages
        #[arg(long)]
        unread: bool,
    },
    /// Print a member's unread messages and mark exactly those read (by their identity, so a
    /// message arriving meanwhile stays unread).
    Read {
        /// The team's name
        team: String,
        /// The member's name
        member: String,
    },
    /// Bridge a team and FileBox in the foreground: messages in my team inbox (MEMBER.json
    /// named after the FileBox agent) become FileBox mail from `member@team`, marked read
    /// once delivered; FileBox mail to `member@team` is appended to that member's team inbox
    /// and resolved. Members are added to the config as `member@team` (mailboxes under
    /// `bridges/TEAM/` beside it). Stopping it at any moment loses and duplicates nothing.
    Bridge {
        /// The team's name
        team: String,
        /// The FileBox agent the team talks to [default: the current agent]
        #[arg(long, value_name = "AGENT")]
        mailbox: Option<String>,
        /// One pass, then exit
        #[arg(long)]
        once: bool,
        /// Milliseconds between passes
        #[arg(long, value_name = "MS", default_value_t = 1000)]
        interval_ms: u64,
    },
    /// Append a message to a member's inbox (or with `*` to every member but the sender),
    /// taking the lock Claude Code takes.
    Send {
        /// The team's name
        team: String,
        /// A member's name, or `*` for every member but the sender
        to: String,
        /// The text; a structured message (`{"type":"shutdown_request",...}`) goes as JSON
        #[arg(allow_hyphen_values = true)]
        text: String,
        /// The sender's name
        #[arg(long, value_name = "NAME", default_value = "team-lead")]
        from: String,
        /// A 5-10 word preview
        #[arg(long, value_name = "TEXT")]
        summary: Option<String>,
        /// The sender's colour in Claude Code's UI (red, blue, green, ...)
        #[arg(long, value_name = "NAME")]
        color: Option<String>,
    },
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
    /// Write to this file instead of standard output
    #[arg(short = 'o', long = "output", value_name = "FILE")]
    pub(crate) output: Option<PathBuf>,
}

#[derive(Debug, Args)]
pub(crate) struct ImportArgs {
    /// The file: `*.msg.md`, or an ordinary `*.md` whose last section (`Discussion`, or the
    /// one its frontmatter's `message_section` names) holds the cells
    pub(crate) file: PathBuf,
    /// Deliver into this agent's inbox [default: me]
    #[arg(long, value_name = "AGENT")]
    pub(crate) to: Option<String>,
}

#[cfg(test)]
mod tests {
    use clap::CommandFactory;

    use super::Cli;

    #[test]
    fn every_verb_of_the_table_has_its_subcommand() {
        let cli = Cli::command();
        for verb in filebox_api::verbs::TABLE {
            // `teams inbox`: a subcommand of a subcommand.
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
