//! `render --xml`: FileBox mail or a member's team inbox as `<teammate-message>` blocks, for a
//! model's context. Rendering marks nothing read.

use std::path::PathBuf;

use filebox_core::{Folder, Mailroom, MessageRef};
use serde::{Deserialize, Serialize};

use crate::team_inbox::Teams;
use crate::teammate_xml::{self, Block};

/// What to render.
#[derive(Debug, Clone, Default)]
pub struct RenderRequest {
    /// Messages of my mailbox (any folder): ids, short ids or file names.
    pub ids: Vec<String>,
    /// My unread inbox messages (or, with `team`, the member's unread team messages).
    pub unread: bool,
    /// A member's team inbox instead of my mailbox.
    pub team: Option<TeamSource>,
}

/// A team inbox to render.
#[derive(Debug, Clone)]
pub struct TeamSource {
    pub claude_dir: PathBuf,
    pub team: String,
    pub member: String,
}

#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct RenderResult {
    /// How many messages were rendered (a FileBox message with replies gives one block per
    /// entry).
    pub messages: usize,
    pub xml: String,
}

/// Why rendering failed.
#[derive(Debug, thiserror::Error)]
pub enum RenderError {
    #[error(transparent)]
    Core(#[from] filebox_core::Error),
    #[error(transparent)]
    Team(#[from] crate::team_inbox::TeamError),
    #[error("nothing to render: name messages, or pass --unread, or --team and --member")]
    NothingChosen,
}

/// Render the chosen messages. With `team`, `ids` are not used.
pub fn render(
    mailroom: Option<&Mailroom>,
    request: &RenderRequest,
) -> Result<RenderResult, RenderError> {
    let blocks = match (&request.team, mailroom) {
        (Some(source), _) => team_blocks(source, request.unread)?,
        (None, Some(mailroom)) => mail_blocks(mailroom, request)?,
        (None, None) => return Err(RenderError::NothingChosen),
    };
    Ok(RenderResult {
        messages: blocks.len(),
        xml: teammate_xml::render(&blocks),
    })
}

fn team_blocks(source: &TeamSource, unread_only: bool) -> Result<Vec<Block>, RenderError> {
    let team = Teams::new(&source.claude_dir).existing_team(&source.team)?;
    let inbox = team
        .inbox(&source.member)
        .read()
        .map_err(crate::team_inbox::TeamError::from)?;
    Ok(inbox
        .messages()
        .filter(|m| !unread_only || !m.is_read())
        .map(Block::from)
        .collect())
}

fn mail_blocks(mailroom: &Mailroom, request: &RenderRequest) -> Result<Vec<Block>, RenderError> {
    if request.ids.is_empty() && !request.unread {
        return Err(RenderError::NothingChosen);
    }
    let mailbox = mailroom.my_mailbox()?;
    let mut messages = Vec::new();
    for id in &request.ids {
        // The copy that speaks for the message: its whole conversation, wherever it is.
        let (_, message) = mailbox.speaking_copy(&MessageRef::parse(id)?, &Folder::ALL)?;
        messages.push(message);
    }
    if request.unread {
        let listing = mailbox.list(Folder::Inbox)?;
        for envelope in mailbox.unread(Folder::Inbox, listing.messages)? {
            messages.push(mailbox.read(&envelope)?);
        }
    }
    Ok(messages.iter().flat_map(teammate_xml::blocks_of).collect())
}
