//! Verb arguments, one struct per verb, named as the MCP tools and RPC methods name them.
//! Each is also the verb's command-line arguments (`clap::Args`): a field's doc comment is its
//! JSON Schema description and its `--help`, and a struct's doc comment (left out of the
//! schemas) is the subcommand's help. `#[arg]` says where the command line spells a field
//! otherwise (a positional argument, `--type`, a flag for a boolean, a value to read from
//! standard input or a file: see [`crate::command_line`]).

use clap::ArgAction::SetTrue;
use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One recipient or several. Its schema is a string (an agent id, comma-separated ids, `@all`
/// or `@group`), which is all a model needs; a list of those is accepted as well, for programs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Recipients {
    /// An agent id, a comma-separated list of ids, `@all` (everyone but me) or `@group`.
    One(String),
    /// Several agent ids (or `@all` / `@group`).
    Many(Vec<String>),
}

impl JsonSchema for Recipients {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Recipients".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }
}

impl Recipients {
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            Recipients::One(one) => vec![one.clone()],
            Recipients::Many(many) => many.clone(),
        }
    }
}

/// A file attached to a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AttachmentArg {
    /// File name.
    pub name: String,
    /// Default: by name.
    #[serde(default, alias = "mimeType")]
    pub mime_type: Option<String>,
    /// Base64.
    pub data: String,
}

impl AttachmentArg {
    /// An attachment of these bytes (encoded for the wire).
    pub fn from_bytes(name: &str, mime_type: Option<String>, bytes: &[u8]) -> Self {
        use base64::Engine;
        AttachmentArg {
            name: name.to_owned(),
            mime_type,
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        }
    }

    /// The attachment for the core: the bytes decoded.
    pub fn decode(&self) -> filebox_core::Result<filebox_core::Attachment> {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(self.data.trim())
            .map_err(|_| filebox_core::Error::Invalid {
                what: "attachment data",
                value: self.name.clone(),
                reason: "not valid base64".into(),
            })?;
        Ok(filebox_core::Attachment {
            name: self.name.clone(),
            mime: self.mime_type.clone(),
            bytes,
        })
    }
}

// The team verbs' `claude_dir` is where Claude Code keeps its teams. Not an argument of the
// JSON surfaces (MCP, JSON-RPC, `#[serde(skip)]`): they use `CLAUDE_CONFIG_DIR`, else
// `~/.claude`, as Claude Code does; the CLI's `--claude-dir` sets it.

/// Claude Code agent teams: list teams with their members, show, read and send to members'
/// team inboxes (`~/.claude/teams/TEAM/inboxes/MEMBER.json`), and bridge a team to FileBox
/// mail.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
pub struct ListTeamsArgs {
    /// The Claude config folder holding `teams/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    #[serde(skip)]
    #[arg(long, global = true, value_name = "DIR")]
    pub claude_dir: Option<std::path::PathBuf>,
}

/// Show a member's inbox, unread first, without marking anything read. Structured messages
/// (idle notifications, shutdown and plan approval requests, ...) are shown by kind.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
#[command(allow_missing_positional = true)]
pub struct TeamInboxArgs {
    /// Team name.
    // Not required: Claude Code's own fallback. The tool list pays for every word.
    #[serde(default)]
    #[arg(
        help = "Team name [default: as Claude Code picks it: $CLAUDE_CODE_TEAM_NAME, else the \
                  session's team (session-<first 8 characters of $CLAUDE_CODE_SESSION_ID>) while \
                  it exists, else default]"
    )]
    pub team: Option<String>,
    /// Member (the lead: team-lead).
    pub member: String,
    #[serde(default)]
    #[arg(long, action = SetTrue, help = "Only unread")]
    pub unread: Option<bool>,
    /// The Claude config folder holding `teams/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    #[serde(skip)]
    #[arg(long, global = true, value_name = "DIR")]
    pub claude_dir: Option<std::path::PathBuf>,
}

/// Print a member's unread messages and mark exactly those read (by their identity, so a
/// message arriving meanwhile stays unread), as the installed Claude Code marks them: `read:
/// true` (up to 2.1.112), or removed (current versions); FILEBOX_CLAUDE_MARK_READ=flag|prune
/// says which when the inbox does not show it.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema, clap::Args)]
#[command(allow_missing_positional = true)]
pub struct ReadTeamInboxArgs {
    /// Team name.
    // Not required: Claude Code's own fallback. The tool list pays for every word.
    #[serde(default)]
    #[arg(
        help = "Team name [default: as Claude Code picks it: $CLAUDE_CODE_TEAM_NAME, else the \
                  session's team (session-<first 8 characters of $CLAUDE_CODE_SESSION_ID>) while \
                  it exists, else default]"
    )]
    pub team: Option<String>,
    /// Member (the lead: team-lead).
    pub member: String,
    /// The Claude config folder holding `teams/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    #[serde(skip)]
    #[arg(long, global = true, value_name = "DIR")]
    pub claude_dir: Option<std::path::PathBuf>,
}

/// `send_team_message`'s arguments. On the command line they are [`SendTeamMessageLine`]
/// (the team may be left out there too).
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct SendTeamMessageArgs {
    /// Team name.
    // Not required: Claude Code's own fallback. The tool list pays for every word.
    #[serde(default)]
    pub team: Option<String>,
    /// A member, or * (all but the sender).
    pub to: String,
    /// Text, or a structured message as JSON.
    pub text: String,
    /// Sender (default: me).
    #[serde(default)]
    pub from: Option<String>,
    /// A 5-10 word preview.
    #[serde(default)]
    pub summary: Option<String>,
    /// Sender's colour (red, ...).
    #[serde(default)]
    pub color: Option<String>,
    /// The Claude config folder holding `teams/`.
    #[serde(skip)]
    pub claude_dir: Option<std::path::PathBuf>,
}

/// Append a message to a member's inbox (or with `*` to every member but the sender), taking
/// the lock Claude Code takes, in Claude Code's current entry shape (`type`, `msgV`, a
/// `msg_id`). It is from the FileBox agent unless --from names another sender.
// `teams send [TEAM] TO TEXT`: clap lets only the second-to-last positional be left out, so
// the words are read in order and three of them start with the team.
#[derive(Debug, clap::Args)]
#[command(override_usage = "filebox teams send [OPTIONS] [TEAM] <TO> <TEXT>")]
pub struct SendTeamMessageLine {
    /// The team, or the member when the team is left out [default team: as Claude Code picks
    /// it: $CLAUDE_CODE_TEAM_NAME, else the session's team (session-<first 8 characters of
    /// $CLAUDE_CODE_SESSION_ID>) while it exists, else default]
    #[arg(value_name = "TEAM")]
    first: String,
    /// A member or * (all but the sender); the text when the team is left out
    #[arg(value_name = "TO", allow_hyphen_values = true)]
    second: String,
    /// Plain text, or a structured message as JSON
    #[arg(value_name = "TEXT", allow_hyphen_values = true)]
    third: Option<String>,
    #[arg(
        long,
        value_name = "NAME",
        help = "The sender's name [default: the FileBox agent's]. Claude Code ignores mode \
                changes and permission updates from an inbox, and plan approvals not verifiably \
                from team-lead"
    )]
    from: Option<String>,
    /// A 5-10 word preview
    #[arg(long, value_name = "TEXT")]
    summary: Option<String>,
    /// The sender's colour (red, ...)
    #[arg(long, value_name = "NAME")]
    color: Option<String>,
    /// The Claude config folder holding `teams/` [default: $CLAUDE_CONFIG_DIR, else ~/.claude]
    #[arg(long, global = true, value_name = "DIR")]
    claude_dir: Option<std::path::PathBuf>,
}

impl From<SendTeamMessageLine> for SendTeamMessageArgs {
    fn from(line: SendTeamMessageLine) -> SendTeamMessageArgs {
        let (team, to, text) = match line.third {
            Some(text) => (Some(line.first), line.second, text),
            None => (None, line.first, line.second),
        };
        SendTeamMessageArgs {
            team,
            to,
            text,
            from: line.from,
            summary: line.summary,
            color: line.color,
            claude_dir: line.claude_dir,
        }
    }
}

impl clap::FromArgMatches for SendTeamMessageArgs {
    fn from_arg_matches(matches: &clap::ArgMatches) -> Result<Self, clap::Error> {
        <SendTeamMessageLine as clap::FromArgMatches>::from_arg_matches(matches)
            .map(SendTeamMessageArgs::from)
    }

    fn update_from_arg_matches(&mut self, matches: &clap::ArgMatches) -> Result<(), clap::Error> {
        *self = SendTeamMessageArgs::from_arg_matches(matches)?;
        Ok(())
    }
}

impl clap::Args for SendTeamMessageArgs {
    fn augment_args(command: clap::Command) -> clap::Command {
        <SendTeamMessageLine as clap::Args>::augment_args(command)
    }

    fn augment_args_for_update(command: clap::Command) -> clap::Command {
        <SendTeamMessageLine as clap::Args>::augment_args_for_update(command)
    }
}
