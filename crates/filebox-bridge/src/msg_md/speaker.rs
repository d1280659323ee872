//! Who speaks in a cell, as FileBox records it: the `from` attribute; else, for an output cell
//! whose `[type]` is not one of the format's cell, tool or code-output types, that type (the
//! agent's name); else `tool` for tool cells and `user` for message cells.

use super::cell::Cell;

/// Input cell types and output types that are not agents.
const NOT_AGENTS: [&str; 4] = ["markdown", "code", "raw", "tool"];

/// The agent an output cell's `[type]` names, if it names one: code output carries `status`,
/// `duration` or `mime_type` (or `stdout>` lines) and names a language instead.
pub(super) fn agent_of(cell: &Cell) -> Option<String> {
    if !cell.heading.output {
        return None;
    }
    let kind = cell.kind()?;
    let code_output = ["status", "duration", "mime_type"]
        .iter()
        .any(|k| cell.attr(k).is_some())
        || !cell.streams().is_empty();
    (!NOT_AGENTS.contains(&kind) && !kind.is_empty() && !code_output).then(|| kind.to_owned())
}

/// The sender FileBox gives the message made from this cell.
pub(super) fn speaker(cell: &Cell) -> String {
    if let Some(from) = cell.attr("from").filter(|f| !f.trim().is_empty()) {
        return from.trim().to_owned();
    }
    if let Some(agent) = agent_of(cell) {
        return agent;
    }
    match cell.kind() {
        Some("tool") => "tool".to_owned(),
        Some(language) if cell.heading.output && !language.is_empty() => language.to_owned(),
        _ => "user".to_owned(),
    }
}
