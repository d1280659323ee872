//! A message file into FileBox: one message holding the preamble (frontmatter, or a Markdown
//! file's text up to its message section), then one message per cell, all in one thread. A
//! cell answers the one before, unless its footnote says where it sits (what FileBox's export
//! writes, `super::lineage::LINEAGE`: the cell it answers or forks from, a fork's reason, an
//! obsolete mark), so an exported thread comes back with its forks. A cell message keeps the
//! cell's exact text as its body, and its header says what was read from it (sender, time,
//! type, cell id, cell type, history), so the file exports again byte for byte.

use std::collections::HashMap;
use std::path::Path;

use filebox_core::message::field;
use filebox_core::{AgentId, ForeignMessage, Mailroom, MessageType, derive_title};
use serde::{Deserialize, Serialize};

use super::MsgMdError;
use super::cell::Cell;
use super::lineage::{CELL_HEADER, LINEAGE, TRANSCRIPT_HEADER};
use super::speaker::speaker;
use super::transcript::{FileKind, Transcript};

const CELL_TYPE_HEADER: &str = "Cell Type";
const HISTORY_HEADER: &str = "History";
/// The type of messages whose cell names no valid FileBox type.
const DEFAULT_TYPE: &str = "DIS";

/// What an import created.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportResult {
    /// The new thread's id (its first message's).
    pub thread: String,
    /// Every Message ID created, the preamble's first.
    pub ids: Vec<String>,
    pub cells: Vec<ImportedCell>,
    /// Agents preset in the frontmatter, then those that only appear in the cells.
    pub preset_agents: Vec<String>,
    pub temporary_agents: Vec<String>,
}

/// One cell as imported.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
pub struct ImportedCell {
    pub message_id: String,
    /// The cell's own id (`3`, `3.x9f2`, `3.x9f2.1`), if it has one.
    #[serde(skip_serializing_if = "Option::is_none")]
    pub cell: Option<String>,
    /// `message` (`%%`) or `output` (`%%%`).
    pub role: String,
    #[serde(rename = "type", skip_serializing_if = "Option::is_none")]
    pub cell_type: Option<String>,
    pub from: String,
    pub history: String,
}

/// Import the file at `path` into `to`'s inbox (default: mine).
pub fn import(
    mailroom: &Mailroom,
    path: &Path,
    to: Option<&AgentId>,
) -> Result<ImportResult, MsgMdError> {
    let bytes = std::fs::read(path).map_err(|source| MsgMdError::Io {
        path: path.to_path_buf(),
        source,
    })?;
    let text = String::from_utf8(bytes).map_err(|_| MsgMdError::NotUtf8(path.to_path_buf()))?;
    let transcript = Transcript::parse(&text, FileKind::of(path))?;
    if transcript.cells.is_empty() {
        return Err(MsgMdError::NoCells(path.to_path_buf()));
    }
    let to = to.unwrap_or(mailroom.me());
    let file_name = path
        .file_name()
        .map(|n| n.to_string_lossy().into_owned())
        .unwrap_or_default();
    let now = jiff::Timestamp::now();
    // Random ids, handed out in ascending order: the thread view orders cells of the same time
    // by id, so they keep the file's order.
    let mut new_ids: Vec<String> = (0..=transcript.cells.len())
        .map(|_| uuid::Uuid::new_v4().to_string())
        .collect();
    new_ids.sort();
    let thread = new_ids[0].clone();
    let title = transcript
        .frontmatter
        .as_deref()
        .and_then(frontmatter_title)
        .unwrap_or_else(|| file_name.clone());
    let head = ForeignMessage {
        id: thread.clone(),
        sender: mailroom.me().to_string(),
        timestamp: now,
        kind: MessageType::new(DEFAULT_TYPE)?,
        title,
        body: transcript.preamble.clone(),
        fields: vec![
            (TRANSCRIPT_HEADER.to_owned(), file_name),
            (field::SOURCE_TYPE.to_owned(), "external".to_owned()),
        ],
    };
    let mut ids = vec![thread.clone()];
    let mut messages = vec![head];
    let mut cells = Vec::with_capacity(transcript.cells.len());
    // Each cell's own node id (its footnote's `id`) → the Message ID it was imported as.
    let mut imported: HashMap<&str, String> = HashMap::new();
    for (index, cell) in transcript.cells.iter().enumerate() {
        let id = new_ids[index + 1].clone();
        let previous = ids.last().map_or("", String::as_str);
        let place = Place::of(cell, &imported, previous);
        let message = cell_message(cell, index, &id, &thread, &place, now)?;
        cells.push(ImportedCell {
            message_id: id.clone(),
            cell: cell.id().map(str::to_owned),
            role: if cell.heading.output {
                "output"
            } else {
                "message"
            }
            .to_owned(),
            cell_type: cell.kind().map(str::to_owned),
            from: message.sender.clone(),
            history: cell.history().as_str().to_owned(),
        });
        if let Some(node) = cell.attr("id") {
            imported.insert(node, id.clone());
        }
        ids.push(id);
        messages.push(message);
    }
    // The transcript is imported whole or not at all: a cell over a bound (a huge title, say)
    // is refused before anything is written, so no part of the thread is left behind.
    for message in &messages {
        mailroom.check_foreign(to, message)?;
    }
    for message in &messages {
        mailroom.deliver_foreign(to, message)?;
    }
    Ok(ImportResult {
        thread,
        ids,
        cells,
        preset_agents: transcript.agents.iter().map(|a| a.name.clone()).collect(),
        temporary_agents: transcript.temporary_agents(),
    })
}

/// Where a cell sits in the thread: the message it answers (the cell its `in_reply_to` names,
/// when that cell came earlier in the file, else the one before), and whether it starts a fork
/// or was made obsolete by one.
struct Place {
    parent: String,
    fork_reason: Option<String>,
    obsolete: bool,
}

impl Place {
    fn of(cell: &Cell, imported: &HashMap<&str, String>, previous: &str) -> Place {
        let [in_reply_to, fork_reason, obsolete] = LINEAGE;
        let named = cell.attr(in_reply_to).and_then(|node| imported.get(node));
        Place {
            parent: named.map_or_else(|| previous.to_owned(), String::clone),
            // A fork whose point is not in the file cannot be rebuilt: it answers the one before.
            fork_reason: cell
                .attr(fork_reason)
                .filter(|_| named.is_some())
                .map(str::to_owned),
            obsolete: cell.attr(obsolete).is_some_and(|v| v == "true"),
        }
    }
}

fn cell_message(
    cell: &Cell,
    index: usize,
    id: &str,
    thread: &str,
    place: &Place,
    now: jiff::Timestamp,
) -> Result<ForeignMessage, MsgMdError> {
    let kind = cell
        .attr("type")
        .and_then(|t| MessageType::new(t).ok())
        .map_or_else(|| MessageType::new(DEFAULT_TYPE), Ok)?;
    let timestamp = cell
        .attr("time")
        .and_then(|t| t.trim().parse::<jiff::Timestamp>().ok())
        .unwrap_or(now);
    let title = Some(cell.heading.title.trim())
        .filter(|t| !t.is_empty())
        .map(str::to_owned)
        .or_else(|| cell.attr("title").map(str::to_owned))
        .unwrap_or_else(|| derive_title(&cell.content));
    let mut fields = vec![
        (field::THREAD_ID.to_owned(), thread.to_owned()),
        (field::IN_REPLY_TO.to_owned(), place.parent.clone()),
    ];
    if let Some(reason) = &place.fork_reason {
        fields.push((field::FORKED_FROM.to_owned(), place.parent.clone()));
        fields.push((field::FORK_REASON.to_owned(), reason.clone()));
    }
    if place.obsolete {
        fields.push((field::STATUS.to_owned(), "obsolete".to_owned()));
    }
    fields.extend([
        (field::SOURCE_TYPE.to_owned(), "external".to_owned()),
        (
            CELL_HEADER.to_owned(),
            cell.id()
                .map_or_else(|| format!("#{}", index + 1), str::to_owned),
        ),
    ]);
    if let Some(kind) = cell.kind() {
        fields.push((CELL_TYPE_HEADER.to_owned(), kind.to_owned()));
    }
    fields.push((
        HISTORY_HEADER.to_owned(),
        cell.history().as_str().to_owned(),
    ));
    Ok(ForeignMessage {
        id: id.to_owned(),
        sender: speaker(cell),
        timestamp,
        kind,
        title,
        body: cell.raw.clone(),
        fields,
    })
}

/// `title:` at the top of the frontmatter.
fn frontmatter_title(frontmatter: &str) -> Option<String> {
    frontmatter.lines().find_map(|line| {
        let value = line.strip_prefix("title:")?.trim();
        let title = serde_json::from_str::<String>(value)
            .unwrap_or_else(|_| value.trim_matches(['"', '\'']).to_owned());
        Some(title).filter(|t| !t.is_empty())
    })
}
