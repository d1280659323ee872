//! A FileBox thread as a message file: messages as `# %%` cells, conversation replies as
//! `# %%%` cells (more `#` the deeper they sit in the thread), footnotes carrying sender,
//! recipient, time, type, Message ID and the thread's shape (what each answers, a fork's
//! reason, obsolete marks; see [`LINEAGE`]), participants as frontmatter agents. Messages that
//! came from an imported file are written back exactly as they were read, so an imported file
//! exports byte for byte. The text is parsed back before it is returned.

use std::collections::HashMap;

use filebox_core::message::FileName;
use filebox_core::{ENTRY_SEPARATOR, Mailroom, Message, ThreadNode};

use super::MsgMdError;
use super::attrs::{Attr, Note, quoted};
use super::cell::Heading;
use super::lineage::{CELL_HEADER, LINEAGE, TRANSCRIPT_HEADER};
use super::transcript::{FileKind, Transcript};

/// Export the thread of `reference` (a thread id, message id, short id or file name).
pub fn export(mailroom: &Mailroom, reference: &str) -> Result<String, MsgMdError> {
    let thread = mailroom.thread(reference.trim())?;
    let mut messages: HashMap<(String, String), Message> = HashMap::new();
    let mut preamble = None;
    // An imported ordinary `.md` file reads back by its own rules (cells only in its section).
    let mut kind = FileKind::MessageFile;
    let mut cells: Vec<(Option<String>, String)> = Vec::new();
    for (index, node) in thread.nodes.iter().enumerate() {
        let key = (node.mailbox.to_string(), node.file.clone());
        if !messages.contains_key(&key) {
            let mailbox = mailroom.mailbox(&node.mailbox)?;
            let envelope = mailbox
                .envelope(node.folder, &FileName::new(&node.file)?)?
                .ok_or_else(|| {
                    MsgMdError::Vanished(format!(
                        "{}/{} of {}",
                        node.folder, node.file, node.mailbox
                    ))
                })?;
            messages.insert(key.clone(), mailbox.read(&envelope)?);
        }
        let message = &messages[&key];
        let entry = node
            .id
            .rsplit_once(ENTRY_SEPARATOR)
            .and_then(|(_, n)| n.parse::<usize>().ok());
        match entry {
            None if index == 0 && message.header.get(TRANSCRIPT_HEADER).is_some() => {
                let source = message.header.get(TRANSCRIPT_HEADER).unwrap_or_default();
                kind = FileKind::of(std::path::Path::new(source));
                preamble = Some(message.body.clone());
            }
            None if message.header.get(CELL_HEADER).is_some() => {
                cells.push((None, message.body.clone()));
            }
            None => {
                let id = next_native(&mut preamble, &mut cells);
                cells.push((Some(id.clone()), message_cell(node, message, &id)));
            }
            Some(n) => {
                let body = message
                    .conversation
                    .get(n - 1)
                    .map(|e| e.body.as_str())
                    .unwrap_or_default();
                let id = next_native(&mut preamble, &mut cells);
                cells.push((Some(id.clone()), reply_cell(node, body, &id)));
            }
        }
    }
    let preamble = preamble.unwrap_or_else(|| frontmatter(&thread.id, &thread.nodes));
    let text: String = std::iter::once(preamble.as_str())
        .chain(cells.iter().map(|(_, c)| c.as_str()))
        .collect();
    check_reads_back(&text, kind, &preamble, &cells)?;
    Ok(text)
}

/// The id of the next cell FileBox writes itself; the text before it is made to end a line
/// (an imported file's last cell may not), so the new heading starts one.
fn next_native(preamble: &mut Option<String>, cells: &mut [(Option<String>, String)]) -> String {
    let before = match cells.last_mut() {
        Some((_, text)) => Some(text),
        None => preamble.as_mut(),
    };
    if let Some(text) = before.filter(|t| !t.is_empty() && !t.ends_with('\n')) {
        text.push('\n');
    }
    (cells.len() + 1).to_string()
}

fn message_cell(node: &ThreadNode, message: &Message, id: &str) -> String {
    let heading = Heading {
        level: node.depth + 1,
        output: false,
        title: node.title.clone(),
        id: Some(id.to_owned()),
    };
    let mut attrs = vec![
        quoted("from", &node.from),
        quoted("to", &node.to),
        quoted("time", &node.timestamp),
        quoted("type", &node.kind),
        quoted("id", &node.id),
    ];
    attrs.extend(lineage(node));
    let note = Note {
        id: id.to_owned(),
        kind: Some("markdown".to_owned()),
        attrs,
    };
    cell_text(&heading, &note, &message.body)
}

fn reply_cell(node: &ThreadNode, body: &str, id: &str) -> String {
    let heading = Heading {
        level: node.depth + 1,
        output: true,
        title: String::new(),
        id: Some(id.to_owned()),
    };
    let note = Note {
        id: id.to_owned(),
        kind: Some(node.from.clone()),
        attrs: [
            quoted("to", &node.to),
            quoted("time", &node.timestamp),
            quoted("type", &node.kind),
            quoted("id", &node.id),
        ]
        .into_iter()
        .chain(lineage(node))
        .collect(),
    };
    cell_text(&heading, &note, body)
}

/// The [`LINEAGE`] attributes of a node, those it has.
fn lineage(node: &ThreadNode) -> Vec<Attr> {
    let [in_reply_to, fork_reason, obsolete] = LINEAGE;
    let mut attrs = Vec::new();
    if let Some(parent) = &node.parent {
        attrs.push(quoted(in_reply_to, parent));
    }
    if let Some(reason) = &node.fork_reason {
        attrs.push(quoted(fork_reason, reason));
    }
    if node.obsolete {
        attrs.push(quoted(obsolete, "true"));
    }
    attrs
}

/// Heading, blank line, footnote, blank line, body (heading-like lines escaped), blank line.
fn cell_text(heading: &Heading, note: &Note, body: &str) -> String {
    let mut text = format!(
        "{}\n\n{}\n\n{}",
        heading.render(),
        note.render(),
        escape(body)
    );
    if !text.ends_with('\n') {
        text.push('\n');
    }
    text.push('\n');
    text
}

/// A body line that reads as a cell heading, after any leading backslashes, gets one more.
fn escape(body: &str) -> String {
    body.split_inclusive('\n')
        .map(|line| {
            let bare = line.trim_end_matches('\n').trim_start_matches('\\');
            if Heading::parse(bare).is_some() {
                format!("\\{line}")
            } else {
                line.to_owned()
            }
        })
        .collect()
}

/// `title`, `thread` and the participants as preset agents, in order of appearance.
fn frontmatter(thread: &str, nodes: &[ThreadNode]) -> String {
    let mut agents: Vec<&str> = Vec::new();
    for node in nodes {
        for name in std::iter::once(node.from.as_str()).chain(node.to.split(',').map(str::trim)) {
            if !name.is_empty() && !agents.contains(&name) {
                agents.push(name);
            }
        }
    }
    let json = |s: &str| serde_json::to_string(s).unwrap_or_else(|_| "\"\"".to_owned());
    let title = nodes.first().map_or("", |n| n.title.as_str());
    let mut text = format!(
        "---\ntitle: {}\nthread: {}\nagents:\n",
        json(title),
        json(thread)
    );
    for agent in agents {
        text.push_str(&format!("  - name: {}\n", json(agent)));
    }
    text.push_str("---\n\n");
    text
}

/// Parse the text back: the same preamble, and every cell where it was written.
fn check_reads_back(
    text: &str,
    kind: FileKind,
    preamble: &str,
    cells: &[(Option<String>, String)],
) -> Result<(), MsgMdError> {
    let parsed =
        Transcript::parse(text, kind).map_err(|e| MsgMdError::WouldNotReadBack(e.to_string()))?;
    let same = parsed.preamble == preamble
        && parsed.cells.len() == cells.len()
        && parsed.cells.iter().zip(cells).all(|(cell, (id, raw))| {
            cell.raw == *raw
                && id
                    .as_ref()
                    .is_none_or(|id| cell.note.as_ref().is_some_and(|n| n.id == *id))
        });
    if same {
        Ok(())
    } else {
        Err(MsgMdError::WouldNotReadBack(
            "a cell would not parse back as written".to_owned(),
        ))
    }
}
