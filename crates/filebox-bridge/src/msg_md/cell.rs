//! One cell of a message file: its heading (`#{1,5} %%` message, `#{1,5} %%%` output, optional
//! title, optional `[^id]`), its footnote metadata, and what the format says its content means
//! (the history setting, the first fenced block of a code cell, `stdout>`/`stderr>` lines,
//! base64 output, the shape of dotted ids).

use super::attrs::Note;

/// A cell heading line.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Heading {
    /// How many `#` (1 to 5).
    pub level: usize,
    /// `%%%`: an output cell (a reply, a tool call or result, code output).
    pub output: bool,
    pub title: String,
    pub id: Option<String>,
}

impl Heading {
    /// Parse a line as a cell heading: `#{1,5}`, optional spaces, `%%` or `%%%`, then an
    /// optional title and an optional `[^id]` at the end.
    pub fn parse(line: &str) -> Option<Heading> {
        let line = line.strip_suffix('\r').unwrap_or(line);
        let level = line.bytes().take_while(|&b| b == b'#').count();
        if !(1..=5).contains(&level) {
            return None;
        }
        let rest = line[level..].trim_start_matches([' ', '\t']);
        let percents = rest.bytes().take_while(|&b| b == b'%').count();
        if !(2..=3).contains(&percents) {
            return None;
        }
        let rest = rest[percents..].trim();
        let (title, id) = match rest
            .strip_suffix(']')
            .and_then(|r| r.rfind("[^").map(|i| (r, i)))
        {
            Some((inner, at)) if valid_id(&inner[at + 2..]) => {
                (inner[..at].trim_end(), Some(inner[at + 2..].to_owned()))
            }
            _ => (rest, None),
        };
        Some(Heading {
            level,
            output: percents == 3,
            title: title.to_owned(),
            id,
        })
    }

    pub fn render(&self) -> String {
        let mut line = format!(
            "{} {}",
            "#".repeat(self.level.clamp(1, 5)),
            if self.output { "%%%" } else { "%%" }
        );
        if !self.title.is_empty() {
            line.push(' ');
            line.push_str(&self.title);
        }
        if let Some(id) = &self.id {
            line.push_str(&format!("[^{id}]"));
        }
        line
    }
}

fn valid_id(id: &str) -> bool {
    !id.is_empty() && !id.contains(|c: char| c.is_whitespace() || c == ']' || c == '[')
}

/// Whether a cell's content is in the model's history (`history=`).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum History {
    Include,
    Exclude,
    Summary,
}

impl History {
    pub fn parse(value: &str) -> Option<History> {
        match value.trim().to_ascii_lowercase().as_str() {
            "include" | "1" | "true" => Some(History::Include),
            "none" | "exclude" | "0" | "false" => Some(History::Exclude),
            "summary" => Some(History::Summary),
            _ => None,
        }
    }

    pub fn as_str(self) -> &'static str {
        match self {
            History::Include => "include",
            History::Exclude => "exclude",
            History::Summary => "summary",
        }
    }
}

/// What a cell's dotted id says it derives from.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum IdShape {
    /// `id`
    Plain,
    /// `id.nonce` of a `[tool]` cell: a tool call from output cell `id`.
    ToolCall { of: String, nonce: String },
    /// `id.nonce.n`: the n-th result of that tool call.
    ToolResult {
        of: String,
        nonce: String,
        n: String,
    },
    /// `id.n` of any other cell: the n-th execution of code cell `id`.
    Execution { of: String, n: String },
}

/// A stream line of code output.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum Stream {
    Stdout,
    Stderr,
}

/// A cell: its exact text (heading line to the next heading) and what was read from it.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Cell {
    /// Every byte, heading line included: `preamble + cells' raw` is the whole file.
    pub raw: String,
    pub heading: Heading,
    /// The footnote defining the heading's id (else the cell's first footnote).
    pub note: Option<Note>,
    /// The text after the heading line without the metadata footnote line.
    pub content: String,
}

impl Cell {
    /// Read a cell from its raw text (which starts with its heading line).
    pub(super) fn read(raw: String, heading: Heading) -> Cell {
        let body = raw.split_once('\n').map_or("", |(_, rest)| rest);
        let mut note_line = None;
        let mut first_note = None;
        for line in body.split_inclusive('\n') {
            let trimmed = line.strip_suffix('\n').unwrap_or(line);
            if let Some(note) = Note::parse(trimmed) {
                if heading.id.as_deref() == Some(note.id.as_str()) {
                    note_line = Some((line, note));
                    break;
                }
                first_note.get_or_insert((line, note));
            }
        }
        let found = note_line.or(first_note);
        let content = match &found {
            Some((line, _)) => body.replacen(line, "", 1),
            None => body.to_owned(),
        };
        Cell {
            note: found.map(|(_, note)| note),
            raw,
            heading,
            content,
        }
    }

    /// The cell's id: the heading's, else its footnote's.
    pub fn id(&self) -> Option<&str> {
        self.heading
            .id
            .as_deref()
            .or(self.note.as_ref().map(|n| n.id.as_str()))
    }

    /// The footnote's `[type]`.
    pub fn kind(&self) -> Option<&str> {
        self.note.as_ref().and_then(|n| n.kind.as_deref())
    }

    pub fn attr(&self, key: &str) -> Option<&str> {
        self.note.as_ref().and_then(|n| n.get(key))
    }

    /// `history=`, include when absent (the format's default).
    pub fn history(&self) -> History {
        self.attr("history")
            .and_then(History::parse)
            .unwrap_or(History::Include)
    }

    pub fn id_shape(&self) -> IdShape {
        let Some(id) = self.id() else {
            return IdShape::Plain;
        };
        let parts: Vec<&str> = id.split('.').collect();
        match parts.as_slice() {
            [of, nonce] if self.kind() == Some("tool") => IdShape::ToolCall {
                of: (*of).to_owned(),
                nonce: (*nonce).to_owned(),
            },
            [of, n] => IdShape::Execution {
                of: (*of).to_owned(),
                n: (*n).to_owned(),
            },
            [of, nonce, n] => IdShape::ToolResult {
                of: (*of).to_owned(),
                nonce: (*nonce).to_owned(),
                n: (*n).to_owned(),
            },
            _ => IdShape::Plain,
        }
    }

    /// A code cell's first fenced block, `(language, code)`; the prose around it is the
    /// model's reasoning ([`Cell::reasoning`]).
    pub fn code(&self) -> Option<(String, String)> {
        if self.heading.output || self.kind() != Some("code") {
            return None;
        }
        let (_, language, code, _) = first_fence(&self.content)?;
        Some((language, code))
    }

    /// The prose of a code cell outside its first fenced block.
    pub fn reasoning(&self) -> Option<String> {
        self.code()?;
        let (before, _, _, after) = first_fence(&self.content)?;
        Some(format!("{before}{after}").trim().to_owned())
    }

    /// An output cell's `stdout>` / `stderr>` lines, in order, prefix removed.
    pub fn streams(&self) -> Vec<(Stream, String)> {
        if !self.heading.output {
            return Vec::new();
        }
        self.content
            .lines()
            .filter_map(|line| {
                let (stream, rest) = if let Some(rest) = line.strip_prefix("stdout>") {
                    (Stream::Stdout, rest)
                } else {
                    (Stream::Stderr, line.strip_prefix("stderr>")?)
                };
                Some((stream, rest.strip_prefix(' ').unwrap_or(rest).to_owned()))
            })
            .collect()
    }

    /// Binary output: the `mime_type` (not `text/...`) when the content is base64.
    pub fn binary_mime_type(&self) -> Option<&str> {
        let mime = self.attr("mime_type")?;
        if mime.starts_with("text/") {
            return None;
        }
        let data: String = self.content.split_whitespace().collect();
        let base64 = !data.is_empty()
            && data.len().is_multiple_of(4)
            && data
                .trim_end_matches('=')
                .bytes()
                .all(|b| b.is_ascii_alphanumeric() || b == b'+' || b == b'/');
        base64.then_some(mime)
    }
}

/// Split at the first fenced block: (before, language, code, after).
fn first_fence(text: &str) -> Option<(String, String, String, String)> {
    let mut offset = 0;
    let mut open: Option<(usize, char, usize, String, usize)> = None;
    for line in text.split_inclusive('\n') {
        let bare = line.trim_end_matches(['\n', '\r']);
        let trimmed = bare.trim_start();
        let fence_char = trimmed.chars().next().filter(|c| *c == '`' || *c == '~');
        match (&open, fence_char) {
            (None, Some(c)) => {
                let run = trimmed.chars().take_while(|x| *x == c).count();
                if run >= 3 {
                    let language = trimmed[run..].trim().to_owned();
                    open = Some((offset, c, run, language, offset + line.len()));
                }
            }
            (Some((start, c, run, language, code_start)), Some(x)) if x == *c => {
                let closing = trimmed.chars().take_while(|y| y == c).count();
                if closing >= *run && trimmed[closing..].trim().is_empty() {
                    return Some((
                        text[..*start].to_owned(),
                        language.clone(),
                        text[*code_start..offset].to_owned(),
                        text[offset + line.len()..].to_owned(),
                    ));
                }
            }
            _ => {}
        }
        offset += line.len();
    }
    None
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headings_of_every_form() {
        let h = Heading::parse("### %%% 工具调用[^3.x9f2]").unwrap();
        assert_eq!((h.level, h.output), (3, true));
        assert_eq!(h.title, "工具调用");
        assert_eq!(h.id.as_deref(), Some("3.x9f2"));
        let h = Heading::parse("#%%").unwrap();
        assert_eq!(
            (h.level, h.output, h.title.as_str(), h.id),
            (1, false, "", None)
        );
        assert_eq!(Heading::parse("###### %% six"), None);
        assert_eq!(Heading::parse("# %%%% four"), None);
        assert_eq!(Heading::parse("# % one"), None);
        assert_eq!(Heading::parse("text # %%"), None);
        assert_eq!(
            Heading::parse("## %% [可选标题][^1]").unwrap().title,
            "[可选标题]"
        );
    }

    #[test]
    fn a_code_cell_and_its_output() {
        let raw = "# %% Plot[^4]\n\n[^4]: [code] history=summary\n\nFirst I load it.\n\n```python\nprint(1)\n```\n\nThen plot.\n\n".to_owned();
        let cell = Cell::read(raw.clone(), Heading::parse("# %% Plot[^4]").unwrap());
        assert_eq!(cell.code(), Some(("python".into(), "print(1)\n".into())));
        assert_eq!(
            cell.reasoning().unwrap(),
            "First I load it.\n\n\nThen plot."
        );
        assert_eq!(cell.history(), History::Summary);
        let out = "# %%% [^4.1]\n\n[^4.1]: [python] status=\"success\" duration=0.5s\n\nstdout> 1\nstderr> warn\n".to_owned();
        let cell = Cell::read(out, Heading::parse("# %%% [^4.1]").unwrap());
        assert_eq!(
            cell.id_shape(),
            IdShape::Execution {
                of: "4".into(),
                n: "1".into()
            }
        );
        assert_eq!(
            cell.streams(),
            [
                (Stream::Stdout, "1".into()),
                (Stream::Stderr, "warn".into())
            ]
        );
    }
}
