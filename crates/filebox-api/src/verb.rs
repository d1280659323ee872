//! The `Verb` trait (one implementation per verb) and its type-erased form [`VerbInfo`], which
//! every surface enumerates: MCP builds its tool list and dispatch from it, the hub its
//! JSON-RPC methods, the CLI its subcommands (from the arguments' clap derive), `--json` and
//! text output.

use std::fmt;

use clap::ArgMatches;
use filebox_core::{AskedBy, Mailroom};
use schemars::JsonSchema;
use serde::Serialize;
use serde::de::DeserializeOwned;
use serde_json::{Map, Value};

use crate::decode::decode;
use crate::outcome::Outcome;
use crate::schema;

/// What a verb does to the mailboxes; MCP annotations are derived from it.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Serialize, JsonSchema)]
#[serde(rename_all = "snake_case")]
pub enum Effect {
    /// Only looks.
    ReadOnly,
    /// Adds messages; changes nothing that is there.
    Additive,
    /// Updates state without losing anything, so a second call does something else: a reply
    /// moves the message it answers on, a fork marks later messages obsolete, a wait moves
    /// the wait cursor past what it returns.
    Updating,
    /// Moves an existing message on (to done, cancel, hold); not undone by calling again.
    Destructive,
}

/// What a verb runs with: the mailroom (config + the agent it acts as), a cancellation
/// check that long verbs (`wait_for_messages`, `ask_question`) poll, a check that the surface
/// is stopping, and the calling program's name when the surface knows it (the MCP client's,
/// from `initialize`).
#[derive(Clone, Copy)]
pub struct VerbContext<'a> {
    pub mailroom: &'a Mailroom,
    /// The caller gave up: a long verb stops and undoes what only the caller needed (a
    /// question is withdrawn).
    pub cancelled: &'a dyn Fn() -> bool,
    /// The surface is stopping (a hub shutting down): a long verb returns what it has and
    /// undoes nothing (a question stays open for its answer).
    pub stopping: &'a dyn Fn() -> bool,
    pub client: Option<&'a str>,
    /// Whether what a verb puts in front of the caller is a read by the mailbox's agent, so
    /// `read_message` and `wait_for_messages` write read receipts (`filebox_core::receipt`):
    /// not when a hub's page browses an agent's mailbox ([`crate::access::Caller::reads_as`]).
    pub receipts: bool,
    /// What the calling program says about who asks (a question records it).
    pub asked_by: Option<&'a AskedBy>,
}

impl<'a> VerbContext<'a> {
    /// A context that is never cancelled (a CLI command runs until done).
    pub fn new(mailroom: &'a Mailroom) -> VerbContext<'a> {
        VerbContext {
            mailroom,
            cancelled: &|| false,
            stopping: &|| false,
            client: None,
            receipts: true,
            asked_by: None,
        }
    }

    /// A context whose long verbs stop when `cancelled()` turns true.
    pub fn with_cancel(mailroom: &'a Mailroom, cancelled: &'a dyn Fn() -> bool) -> VerbContext<'a> {
        VerbContext {
            mailroom,
            cancelled,
            stopping: &|| false,
            client: None,
            receipts: true,
            asked_by: None,
        }
    }

    /// The same context, ending long verbs without undoing anything when `stopping()` turns
    /// true.
    pub fn with_stopping(self, stopping: &'a dyn Fn() -> bool) -> VerbContext<'a> {
        VerbContext { stopping, ..self }
    }

    /// The same context, writing read receipts or not (see [`VerbContext::receipts`]).
    pub fn with_receipts(self, receipts: bool) -> VerbContext<'a> {
        VerbContext { receipts, ..self }
    }

    /// The same context, naming the calling program.
    pub fn with_client(self, client: Option<&'a str>) -> VerbContext<'a> {
        VerbContext { client, ..self }
    }

    /// The same context, with what the calling program says about who asks.
    pub fn with_asked_by(self, asked_by: &'a AskedBy) -> VerbContext<'a> {
        VerbContext {
            asked_by: Some(asked_by),
            ..self
        }
    }
}

impl fmt::Debug for VerbContext<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerbContext")
            .field("me", self.mailroom.me())
            .finish_non_exhaustive()
    }
}

/// One verb, declared once: its names, effect, typed arguments and result (whose doc comments
/// become the JSON Schema), what it does, and its one text rendering.
pub trait Verb: 'static {
    /// The MCP tool name, also the JSON-RPC method the hub maps its `email.*` names onto.
    const NAME: &'static str;
    /// The CLI subcommand that runs it (`teams inbox`: `inbox` under `teams`), generated from
    /// [`Verb::Args`].
    const CLI: &'static str;
    /// A short human title (MCP `title`).
    const TITLE: &'static str;
    /// What it does, for a model choosing a tool.
    const DESCRIPTION: &'static str;
    const EFFECT: Effect;
    /// Whether MCP offers it to models (maintenance verbs are CLI and JSON-RPC only).
    const FOR_MODELS: bool = true;
    /// Whether a call blocks until something happens (mail arrives, a human answers): a
    /// server bounds how many such calls it holds at once.
    const WAITS: bool = false;
    /// Whether the text is the whole answer for a model (a listing, a message, a thread: every
    /// fact a model acts on is in [`Verb::brief`]), so MCP sends the text alone, with no output
    /// schema and no structured content: Claude Code and Codex hand the model a tool's
    /// structured content instead of its text whenever there is some (`tests/hosts`). The
    /// command line's `--json` and JSON-RPC keep every field.
    const ANSWER_IS_TEXT: bool = false;

    /// The arguments: JSON (serde), their JSON Schema, and the CLI's arguments (clap).
    type Args: Serialize + DeserializeOwned + JsonSchema + clap::Args;
    type Output: Serialize + DeserializeOwned + JsonSchema;

    fn run(cx: &VerbContext<'_>, args: Self::Args) -> filebox_core::Result<Outcome<Self::Output>>;

    /// The text of a result on the command line: for people, and for scripts where it is a
    /// contract (`send` prints the Message ID alone).
    fn render(output: &Self::Output) -> String;

    /// The text a model reads (MCP text content), which it pays for by the character: the
    /// same as `render` unless that follows a format meant for people and scripts (listing
    /// lines, a bare Message ID) and the same facts fit in fewer characters or words.
    fn brief(output: &Self::Output) -> String {
        Self::render(output)
    }

    /// Make the arguments self-contained, for a call another process runs (the command line
    /// hands a writing verb to a running hub): what names a file of this machine is read into
    /// them. Most arguments already are.
    fn self_contained(_args: &mut Self::Args) -> filebox_core::Result<()> {
        Ok(())
    }
}

/// A verb that needs no FileBox mailbox (the team verbs work on Claude Code's files only):
/// its [`Verb::run`] ignores the mailroom, and the CLI runs it without a FileBox config.
pub trait Standalone: Verb {
    fn run_standalone(args: Self::Args) -> filebox_core::Result<Outcome<Self::Output>>;
}

/// A verb with its types erased: what a surface needs to list it and call it with JSON.
#[derive(Clone, Copy)]
pub struct VerbInfo {
    pub name: &'static str,
    pub cli: &'static str,
    pub title: &'static str,
    pub description: &'static str,
    pub effect: Effect,
    pub for_models: bool,
    /// [`Verb::WAITS`].
    pub waits: bool,
    /// [`Verb::ANSWER_IS_TEXT`].
    pub answer_is_text: bool,
    /// Whether the command line hands the call to a hub serving the config, when one runs
    /// (set with [`VerbInfo::through_hub`] for the verbs that write mail): the hub is then
    /// the one writer of the files, and the command writes them itself only without one.
    pub through_hub: bool,
    args_schema: fn() -> Map<String, Value>,
    output_schema: fn() -> Map<String, Value>,
    call: fn(&VerbContext<'_>, Value) -> Result<Reply, CallError>,
    command: fn() -> clap::Command,
    command_line_call: fn(&ArgMatches) -> Result<Box<dyn CommandLineCall>, CallError>,
    /// Set for a [`Standalone`] verb: run from the command line without a mailroom.
    call_standalone: Option<CallStandalone>,
}

/// Run a [`Standalone`] verb from its subcommand's arguments.
type CallStandalone = fn(&ArgMatches) -> Result<Reply, CallError>;

impl VerbInfo {
    /// The erased form of `V`.
    pub const fn of<V: Verb>() -> VerbInfo {
        VerbInfo {
            name: V::NAME,
            cli: V::CLI,
            title: V::TITLE,
            description: V::DESCRIPTION,
            effect: V::EFFECT,
            for_models: V::FOR_MODELS,
            waits: V::WAITS,
            answer_is_text: V::ANSWER_IS_TEXT,
            through_hub: false,
            args_schema: schema::input::<V::Args>,
            output_schema: schema::output::<Outcome<V::Output>>,
            call: call_erased::<V>,
            command: command_of::<V>,
            command_line_call: command_line_call_erased::<V>,
            call_standalone: None,
        }
    }

    /// The erased form of a [`Standalone`] verb: the CLI runs it without a FileBox config.
    pub const fn standalone<V: Standalone>() -> VerbInfo {
        VerbInfo {
            call_standalone: Some(call_standalone_erased::<V>),
            ..VerbInfo::of::<V>()
        }
    }

    /// The same verb, handed to a running hub by the command line ([`VerbInfo::through_hub`]).
    pub const fn through_hub(self) -> VerbInfo {
        VerbInfo {
            through_hub: true,
            ..self
        }
    }

    /// Whether the verb works on the host's own files outside the mailboxes (a [`Standalone`]
    /// verb: Claude Code's team inboxes), which only their owner may run
    /// (`crate::access::Caller::may_run`).
    pub fn uses_host_files(&self) -> bool {
        self.call_standalone.is_some()
    }

    /// The JSON Schema (2020-12) of the arguments: what a call accepts, written compactly
    /// (it is in every model's tool list).
    pub fn args_schema(&self) -> Map<String, Value> {
        (self.args_schema)()
    }

    /// The JSON Schema (2020-12) of the result: the value's fields and `warnings`.
    pub fn output_schema(&self) -> Map<String, Value> {
        (self.output_schema)()
    }

    /// Run the verb with JSON arguments (an object; `null` counts as `{}`). The reply's text
    /// is the verb's [`Verb::brief`].
    pub fn call(&self, cx: &VerbContext<'_>, args: Value) -> Result<Reply, CallError> {
        (self.call)(cx, args)
    }

    /// The CLI subcommand: named by the last word of `cli`, its arguments and `--help` from
    /// the clap derive of the verb's arguments (the struct's doc comment is its help).
    pub fn command(&self) -> clap::Command {
        (self.command)()
    }

    /// The call the parsed arguments of its subcommand make, decoded once: run it here, or
    /// hand its arguments to the hub and render the hub's answer ([`CommandLineCall`]).
    pub fn command_line_call(
        &self,
        matches: &ArgMatches,
    ) -> Result<Box<dyn CommandLineCall>, CallError> {
        (self.command_line_call)(matches)
    }

    /// For a [`Standalone`] verb, its [`CommandLineCall`] run without a mailroom; `None`
    /// for a verb that needs one.
    pub fn call_standalone(&self, matches: &ArgMatches) -> Option<Result<Reply, CallError>> {
        self.call_standalone.map(|call| call(matches))
    }
}

impl fmt::Debug for VerbInfo {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("VerbInfo")
            .field("name", &self.name)
            .field("effect", &self.effect)
            .finish_non_exhaustive()
    }
}

/// A verb's result as JSON, with its text.
#[derive(Debug, Clone, PartialEq)]
pub struct Reply {
    /// The [`Outcome`] as JSON: the value's fields, and `warnings` when there are some.
    pub value: Value,
    /// The value as text, warnings not included: for a model ([`Verb::brief`], followed by
    /// the notes) from [`VerbInfo::call`], for people ([`Verb::render`]) from the command line.
    pub text: String,
    pub warnings: Vec<String>,
    pub notes: Vec<String>,
}

/// Why a call by name gave no result.
#[derive(Debug, thiserror::Error)]
pub enum CallError {
    /// No verb has this name.
    #[error("unknown verb {0:?}")]
    UnknownVerb(String),
    /// The arguments do not fit the verb's schema (JSON-RPC -32602, MCP invalid params):
    /// `field` is the one at fault (a path such as `to` or `attachments[0].name`), `message`
    /// what is wrong with it.
    #[error("invalid arguments for {verb}: {field}: {message}")]
    InvalidArguments {
        verb: &'static str,
        field: String,
        message: String,
    },
    /// The verb ran and failed; [`crate::advice`] says what to do about it.
    #[error(transparent)]
    Failed(#[from] filebox_core::Error),
    /// The result could not be written as JSON (a bug, not the caller's doing).
    #[error("the result of {verb} could not be encoded as JSON: {message}")]
    Unencodable { verb: &'static str, message: String },
}

fn call_erased<V: Verb>(cx: &VerbContext<'_>, args: Value) -> Result<Reply, CallError> {
    let args = if args.is_null() {
        Value::Object(Map::new())
    } else {
        args
    };
    let args: V::Args = decode(args).map_err(|e| CallError::InvalidArguments {
        verb: V::NAME,
        field: e.field,
        message: e.reason,
    })?;
    model_reply::<V>(V::run(cx, args)?)
}

/// An outcome of `V` as [`VerbInfo::call`] gives it: the [`Verb::brief`], then the notes. For a
/// surface that runs a verb's work in steps (an MCP task looks for a question's answer at each
/// poll).
pub(crate) fn model_reply<V: Verb>(outcome: Outcome<V::Output>) -> Result<Reply, CallError> {
    let mut reply = reply::<V>(outcome, V::brief)?;
    reply.text = crate::outcome::with_list(&reply.text, "Notes", &reply.notes);
    Ok(reply)
}

fn command_of<V: Verb>() -> clap::Command {
    let name = V::CLI.rsplit(' ').next().unwrap_or(V::CLI);
    <V::Args as clap::Args>::augment_args(clap::Command::new(name))
}

fn command_line_args<V: Verb>(matches: &ArgMatches) -> Result<V::Args, CallError> {
    <V::Args as clap::FromArgMatches>::from_arg_matches(matches).map_err(|e| {
        CallError::InvalidArguments {
            verb: V::NAME,
            // clap's message names the argument.
            field: ".".to_owned(),
            message: e.to_string(),
        }
    })
}

/// A verb's call from the command line, its arguments decoded once from its subcommand
/// ([`VerbInfo::command_line_call`]). Its replies' text is the verb's [`Verb::render`], for
/// people and scripts, wherever it ran.
pub trait CommandLineCall {
    /// The arguments as JSON for another process to run them with, made self-contained first
    /// ([`Verb::self_contained`]: a run here afterwards uses them as made).
    fn arguments(&mut self) -> Result<Value, CallError>;
    /// Run the call here.
    fn run(self: Box<Self>, cx: &VerbContext<'_>) -> Result<Reply, CallError>;
    /// The reply of the call run elsewhere, from the [`Outcome`] it answered as JSON (kept as
    /// it came, for `--json`).
    fn answered(&self, outcome: Value) -> Result<Reply, serde_json::Error>;
}

/// [`CommandLineCall`] of `V`.
struct Decoded<V: Verb>(V::Args);

impl<V: Verb> CommandLineCall for Decoded<V> {
    fn arguments(&mut self) -> Result<Value, CallError> {
        V::self_contained(&mut self.0)?;
        serde_json::to_value(&self.0).map_err(|e| CallError::Unencodable {
            verb: V::NAME,
            message: e.to_string(),
        })
    }

    fn run(self: Box<Self>, cx: &VerbContext<'_>) -> Result<Reply, CallError> {
        reply::<V>(V::run(cx, self.0)?, V::render)
    }

    fn answered(&self, outcome: Value) -> Result<Reply, serde_json::Error> {
        let typed: Outcome<V::Output> = serde_json::from_value(outcome.clone())?;
        Ok(Reply {
            value: outcome,
            text: V::render(&typed.value),
            warnings: typed.warnings,
            notes: typed.notes,
        })
    }
}

fn command_line_call_erased<V: Verb>(
    matches: &ArgMatches,
) -> Result<Box<dyn CommandLineCall>, CallError> {
    Ok(Box::new(Decoded::<V>(command_line_args::<V>(matches)?)))
}

fn call_standalone_erased<V: Standalone>(matches: &ArgMatches) -> Result<Reply, CallError> {
    reply::<V>(
        V::run_standalone(command_line_args::<V>(matches)?)?,
        V::render,
    )
}

/// An outcome as JSON with its text.
fn reply<V: Verb>(
    outcome: Outcome<V::Output>,
    text: fn(&V::Output) -> String,
) -> Result<Reply, CallError> {
    let text = text(&outcome.value);
    let value = serde_json::to_value(&outcome).map_err(|e| CallError::Unencodable {
        verb: V::NAME,
        message: e.to_string(),
    })?;
    Ok(Reply {
        value,
        text,
        warnings: outcome.warnings,
        notes: outcome.notes,
    })
}
