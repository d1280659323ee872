//! A whole message file: the preamble (frontmatter, and for an ordinary `.md` file everything
//! up to its message section), then the cells. Parsing is a partition of the text, so
//! `preamble + cells' raw text` is always the file, byte for byte. An ordinary `.md` file is a
//! transcript only when its frontmatter says so (see [`OPT_IN_KEY`]), and its message section
//! must be its last: a heading of the same or a higher level after it is refused, never taken
//! into the last cell.

use super::cell::{Cell, Heading};

/// The section that holds the messages of an ordinary `.md` file unless the frontmatter names
/// another.
const DEFAULT_SECTION: &str = "Discussion";

/// Frontmatter keys FileBox reads for the message section's name; one of them also says the
/// file holds messages.
const SECTION_KEYS: [&str; 3] = ["message_section", "discussion_section", "section"];

/// The frontmatter key by which an ordinary `.md` file says it holds messages in its
/// `Discussion` section: `messages: true` (naming the section, `message_section: NAME`, says
/// it too).
const OPT_IN_KEY: &str = "messages";

/// Which kind of file: a `.msg.md` is all messages; an ordinary `.md` keeps them in its last
/// section.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum FileKind {
    MessageFile,
    Markdown,
}

impl FileKind {
    pub fn of(path: &std::path::Path) -> FileKind {
        let name = path
            .file_name()
            .map(|n| n.to_string_lossy().to_ascii_lowercase())
            .unwrap_or_default();
        if name.ends_with(".msg.md") || !name.ends_with(".md") {
            FileKind::MessageFile
        } else {
            FileKind::Markdown
        }
    }
}

/// Why a file is not a transcript.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum TranscriptError {
    #[error(
        "no `{0}` section: an ordinary .md file keeps its messages in a last section of that name (or the one its frontmatter names)"
    )]
    NoSection(String),
    #[error(
        "not a transcript: an ordinary .md file is read as one only when its frontmatter says so \
         (`messages: true`, or `message_section: NAME`); rename it *.msg.md if it is all messages"
    )]
    NotOptedIn,
    #[error(
        "the `{section}` section is not the file's last: line {line} (`{heading}`) starts another; \
         the messages must be the last section, move that part above it"
    )]
    NotLast {
        section: String,
        line: usize,
        heading: String,
    },
}

/// A preset agent from the frontmatter, with its other keys as written.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct PresetAgent {
    pub name: String,
    pub fields: Vec<(String, String)>,
}

/// A parsed message file.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Transcript {
    pub preamble: String,
    pub cells: Vec<Cell>,
    /// The frontmatter's text between its `---` lines, if there is one.
    pub frontmatter: Option<String>,
    /// Agents the frontmatter presets (`agents:` as a list or a mapping).
    pub agents: Vec<PresetAgent>,
}

impl Transcript {
    pub fn parse(text: &str, kind: FileKind) -> Result<Transcript, TranscriptError> {
        let frontmatter = frontmatter(text);
        let agents = frontmatter.map(preset_agents).unwrap_or_default();
        let body_start = match kind {
            FileKind::MessageFile => 0,
            FileKind::Markdown => {
                let block = frontmatter.ok_or(TranscriptError::NotOptedIn)?;
                let named = section_name(block);
                if named.is_none() && top_level(block, OPT_IN_KEY).is_none_or(|v| v != "true") {
                    return Err(TranscriptError::NotOptedIn);
                }
                let name = named.unwrap_or_else(|| DEFAULT_SECTION.to_owned());
                let (end, level) = section_end(text, block.len(), &name)
                    .ok_or_else(|| TranscriptError::NoSection(name.clone()))?;
                if let Some((line, heading)) = later_section(text, end, level) {
                    return Err(TranscriptError::NotLast {
                        section: name,
                        line,
                        heading,
                    });
                }
                end
            }
        };
        let mut starts = Vec::new();
        let mut offset = 0;
        for line in text.split_inclusive('\n') {
            if offset >= body_start
                && let Some(heading) = Heading::parse(line.trim_end_matches('\n'))
            {
                starts.push((offset, heading));
            }
            offset += line.len();
        }
        let preamble_end = starts.first().map_or(text.len(), |(s, _)| *s);
        let ends: Vec<usize> = starts
            .iter()
            .skip(1)
            .map(|(s, _)| *s)
            .chain([text.len()])
            .collect();
        let cells = starts
            .into_iter()
            .zip(ends)
            .map(|((start, heading), end)| Cell::read(text[start..end].to_owned(), heading))
            .collect();
        Ok(Transcript {
            preamble: text[..preamble_end].to_owned(),
            cells,
            frontmatter: frontmatter.map(|f| frontmatter_inner(f).to_owned()),
            agents,
        })
    }

    /// Agents that speak in output cells without being preset: the temporary agents.
    pub fn temporary_agents(&self) -> Vec<String> {
        let mut names: Vec<String> = Vec::new();
        for cell in &self.cells {
            if let Some(agent) = super::speaker::agent_of(cell)
                && !self.agents.iter().any(|a| a.name == agent)
                && !names.contains(&agent)
            {
                names.push(agent);
            }
        }
        names
    }
}

/// The frontmatter block, `---` line to `---` line inclusive, at the very start.
fn frontmatter(text: &str) -> Option<&str> {
    let first = text.split_inclusive('\n').next()?;
    if first.trim_end() != "---" {
        return None;
    }
    let mut end = first.len();
    for line in text[first.len()..].split_inclusive('\n') {
        end += line.len();
        if line.trim_end() == "---" {
            return Some(&text[..end]);
        }
    }
    None
}

fn frontmatter_inner(block: &str) -> &str {
    let after_open = block.split_once('\n').map_or("", |(_, rest)| rest);
    let close = after_open.trim_end_matches(['\n', '\r']);
    close.strip_suffix("---").unwrap_or(close)
}

/// `key: value` at the top level of the frontmatter.
fn top_level(block: &str, key: &str) -> Option<String> {
    frontmatter_inner(block).lines().find_map(|line| {
        let (k, v) = line.split_once(':')?;
        (k == key).then(|| unquote(v.trim()))
    })
}

fn section_name(block: &str) -> Option<String> {
    SECTION_KEYS
        .iter()
        .find_map(|key| top_level(block, key))
        .filter(|name| !name.is_empty())
}

/// `agents:` as a list (`- name: x` with further keys, or `- x`) or as a mapping (`x:` with
/// keys indented below).
fn preset_agents(block: &str) -> Vec<PresetAgent> {
    let mut agents: Vec<PresetAgent> = Vec::new();
    let mut inside = false;
    let mut entry_indent = None;
    for line in frontmatter_inner(block).lines() {
        let trimmed = line.trim();
        let indent = line.len() - line.trim_start().len();
        if indent == 0 && !trimmed.is_empty() {
            inside = trimmed == "agents:";
            continue;
        }
        if !inside || trimmed.is_empty() || trimmed.starts_with('#') {
            continue;
        }
        let entry_indent = *entry_indent.get_or_insert(indent);
        if let Some(item) = trimmed.strip_prefix('-') {
            let mut agent = PresetAgent {
                name: String::new(),
                fields: Vec::new(),
            };
            match item.split_once(':') {
                Some((key, value)) => set_field(&mut agent, key, value),
                None => agent.name = unquote(item.trim()),
            }
            agents.push(agent);
        } else if let Some((key, value)) = trimmed.split_once(':') {
            if indent == entry_indent && value.trim().is_empty() {
                agents.push(PresetAgent {
                    name: unquote(key.trim()),
                    fields: Vec::new(),
                });
            } else if let Some(agent) = agents.last_mut() {
                set_field(agent, key, value);
            }
        }
    }
    agents.retain(|a| !a.name.is_empty());
    agents
}

fn set_field(agent: &mut PresetAgent, key: &str, value: &str) {
    let (key, value) = (key.trim(), unquote(value.trim()));
    if key == "name" {
        agent.name = value;
    } else {
        agent.fields.push((key.to_owned(), value));
    }
}

fn unquote(value: &str) -> String {
    let stripped = value
        .strip_prefix('"')
        .and_then(|v| v.strip_suffix('"'))
        .or_else(|| value.strip_prefix('\'').and_then(|v| v.strip_suffix('\'')));
    match stripped {
        Some(inner) if value.starts_with('"') => {
            serde_json::from_str::<String>(value).unwrap_or_else(|_| inner.to_owned())
        }
        Some(inner) => inner.to_owned(),
        None => value.to_owned(),
    }
}

/// Where the last `# NAME` heading (any level, not a cell) ends, and its level: the message
/// section starts there.
fn section_end(text: &str, from: usize, name: &str) -> Option<(usize, usize)> {
    let mut offset = 0;
    let mut found = None;
    for line in text.split_inclusive('\n') {
        if offset >= from
            && let Some((level, title)) = section_heading(line)
            && title.eq_ignore_ascii_case(name)
        {
            found = Some((offset + line.len(), level));
        }
        offset += line.len();
    }
    found
}

/// The first heading after `from` (not a cell) that ends a section of `level`: its line
/// number (from 1) and text.
fn later_section(text: &str, from: usize, level: usize) -> Option<(usize, String)> {
    let mut offset = 0;
    for (number, line) in text.split_inclusive('\n').enumerate() {
        if offset >= from
            && let Some((found, _)) = section_heading(line)
            && found <= level
        {
            return Some((number + 1, line.trim_end().to_owned()));
        }
        offset += line.len();
    }
    None
}

/// A Markdown ATX heading that is not a cell: its level and title.
fn section_heading(line: &str) -> Option<(usize, &str)> {
    let bare = line.trim_end_matches(['\n', '\r']);
    if Heading::parse(bare).is_some() {
        return None;
    }
    let level = bare.bytes().take_while(|&b| b == b'#').count();
    ((1..=6).contains(&level) && bare[level..].starts_with([' ', '\t']))
        .then(|| (level, bare[level..].trim()))
}

#[cfg(test)]
mod tests {
    use proptest::prelude::*;

    use super::*;

    #[test]
    fn a_markdown_file_keeps_its_messages_in_the_named_last_section() {
        let text = "---\ntitle: Plan\nmessage_section: Chat\nagents:\n  - name: demo\n    models: [gpt-4o]\n---\n\n# Plan\n\n# %% not a cell: before the section\n\n## Chat\n\n# %% Hi[^1]\n\n[^1]: [markdown]\n\nhello\n### Details stay in the cell\n";
        let t = Transcript::parse(text, FileKind::Markdown).unwrap();
        assert_eq!(t.cells.len(), 1);
        assert!(t.preamble.ends_with("## Chat\n\n"));
        assert!(t.cells[0].raw.ends_with("### Details stay in the cell\n"));
        assert_eq!(t.agents[0].name, "demo");
        assert_eq!(t.agents[0].fields, [("models".into(), "[gpt-4o]".into())]);
        assert_eq!(
            Transcript::parse("---\nmessages: true\n---\n# Notes\n", FileKind::Markdown),
            Err(TranscriptError::NoSection("Discussion".into()))
        );
    }

    #[test]
    fn a_markdown_file_is_a_transcript_only_when_it_says_so_and_its_section_is_last() {
        let body = "# Notes\n\n## Discussion\n\n# %% Hi[^1]\n\n[^1]: [markdown]\n\nhello\n";
        for frontmatter in [
            "",
            "---\ntitle: Notes\n---\n",
            "---\nmessages: false\n---\n",
        ] {
            assert_eq!(
                Transcript::parse(&format!("{frontmatter}{body}"), FileKind::Markdown),
                Err(TranscriptError::NotOptedIn),
                "{frontmatter:?}"
            );
        }
        let opted = format!("---\nmessages: true\n---\n{body}");
        assert_eq!(
            Transcript::parse(&opted, FileKind::Markdown)
                .unwrap()
                .cells
                .len(),
            1
        );
        let appendix = format!("{opted}\n## Appendix\n\nNot a message.\n");
        assert_eq!(
            Transcript::parse(&appendix, FileKind::Markdown),
            Err(TranscriptError::NotLast {
                section: "Discussion".into(),
                line: 14,
                heading: "## Appendix".into(),
            })
        );
        // A .msg.md file is all messages: no frontmatter needed.
        assert_eq!(
            Transcript::parse(body, FileKind::MessageFile)
                .unwrap()
                .cells
                .len(),
            1
        );
    }

    #[test]
    fn agents_as_a_mapping_or_bare_list() {
        let t = Transcript::parse(
            "---\nagents:\n  coder:\n    models: [o3]\n    system_prompt: \"You code.\"\n  reviewer:\n    reasoning: true\n---\n",
            FileKind::MessageFile,
        )
        .unwrap();
        let names: Vec<&str> = t.agents.iter().map(|a| a.name.as_str()).collect();
        assert_eq!(names, ["coder", "reviewer"]);
        assert_eq!(
            t.agents[0].fields[1],
            ("system_prompt".into(), "You code.".into())
        );
        let t =
            Transcript::parse("---\nagents:\n  - a\n  - b\n---\n", FileKind::MessageFile).unwrap();
        assert_eq!(t.agents.len(), 2);
    }

    proptest! {
        #[test]
        fn parsing_is_a_partition_of_any_text(
            parts in proptest::collection::vec(
                prop_oneof![
                    Just("# %% T[^1]\n".to_owned()),
                    Just("### %%%[^1.a.1]\r\n".to_owned()),
                    Just("[^1]: [tool] name=\"x\" history=0\n".to_owned()),
                    Just("---\n".to_owned()),
                    Just("## Discussion\n".to_owned()),
                    Just("messages: true\n".to_owned()),
                    Just("```\n".to_owned()),
                    ".*\n?",
                ],
                0..12,
            ),
            markdown in any::<bool>(),
        ) {
            let text: String = parts.concat();
            let kind = if markdown { FileKind::Markdown } else { FileKind::MessageFile };
            if let Ok(t) = Transcript::parse(&text, kind) {
                let joined: String = std::iter::once(t.preamble.as_str())
                    .chain(t.cells.iter().map(|c| c.raw.as_str()))
                    .collect();
                prop_assert_eq!(joined, text);
                for cell in &t.cells {
                    let _ = (cell.code(), cell.reasoning(), cell.streams(), cell.id_shape(), cell.binary_mime_type(), cell.history());
                }
                let _ = t.temporary_agents();
            }
        }
    }
}
