//! The lines that give a message file its structure, and the escaping that keeps any body
//! from imitating them.
//!
//! A body line that reads as a structural line (after any leading backslashes) is written with
//! one more leading backslash, and that backslash is removed on reading. Every other line is
//! written as is. The rule is its own inverse, so any body round-trips byte for byte, and in
//! rendered Markdown `\## Conversation History` still shows as the text the sender wrote.

/// The three `##` sections of a message file.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Section {
    Original,
    Conversation,
    Processing,
}

impl Section {
    pub(crate) const fn heading(self) -> &'static str {
        match self {
            Section::Original => "## Original Request/Content",
            Section::Conversation => "## Conversation History",
            Section::Processing => "## Processing History",
        }
    }
}

/// A conversation entry heading: `### [Timestamp] - [Sender] to [Receiver] ([Type])`.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct EntryHeading<'a> {
    pub(crate) timestamp: &'a str,
    pub(crate) from: &'a str,
    pub(crate) to: &'a str,
    pub(crate) kind: &'a str,
}

/// What a line means to the parser.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum Structural<'a> {
    Section(Section),
    Entry(EntryHeading<'a>),
}

/// Classify one line (without its `\n`). Trailing white space, including a CR, is ignored.
/// An entry heading's fields lose the spaces around them and nothing else: a CR or tab next
/// to a separator belongs to its field, so what is read is written back (`### T - F to T
/// (K)`) to a heading that reads the same (trimming `a to\r to b` to from `a to` would write
/// `a to to b`, read back as from `a`).
pub(crate) fn structural(line: &str) -> Option<Structural<'_>> {
    let line = line.trim_end();
    if let Some(rest) = line.strip_prefix("## ") {
        let name = rest.trim();
        return [
            Section::Original,
            Section::Conversation,
            Section::Processing,
        ]
        .into_iter()
        .find(|s| s.heading()[3..].eq_ignore_ascii_case(name))
        .map(Structural::Section);
    }
    let rest = line.strip_prefix("### ")?;
    let (rest, kind) = rest.strip_suffix(')')?.rsplit_once(" (")?;
    let (timestamp, people) = rest.split_once(" - ")?;
    let (from, to) = people.split_once(" to ")?;
    let [timestamp, from, to, kind] = [timestamp, from, to, kind].map(|f| f.trim_matches(' '));
    [timestamp, from, to, kind]
        .iter()
        .all(|f| !f.trim().is_empty())
        .then_some(Structural::Entry(EntryHeading {
            timestamp,
            from,
            to,
            kind,
        }))
}

fn needs_escape(line: &str) -> bool {
    structural(line.trim_start_matches('\\')).is_some()
}

/// Escape a body for writing between structural lines.
pub(crate) fn escape(body: &str) -> String {
    map_lines(body, |line| needs_escape(line).then(|| format!("\\{line}")))
}

/// Undo [`escape`].
pub(crate) fn unescape(text: &str) -> String {
    map_lines(text, |line| {
        let rest = line.strip_prefix('\\')?;
        needs_escape(rest).then(|| rest.to_owned())
    })
}

/// Rewrite the lines `f` returns `Some` for; every byte else (line breaks included) is kept.
fn map_lines(text: &str, f: impl Fn(&str) -> Option<String>) -> String {
    let mut out = String::with_capacity(text.len() + 16);
    for (i, line) in text.split('\n').enumerate() {
        if i > 0 {
            out.push('\n');
        }
        match f(line) {
            Some(changed) => out.push_str(&changed),
            None => out.push_str(line),
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn recognises_the_structural_lines() {
        assert_eq!(
            structural("## Conversation History\r"),
            Some(Structural::Section(Section::Conversation))
        );
        assert!(matches!(
            structural("### 2025-06-27T15:30:00Z - qa to dev (ER)"),
            Some(Structural::Entry(EntryHeading {
                from: "qa",
                to: "dev",
                kind: "ER",
                ..
            }))
        ));
        assert_eq!(structural("## Notes"), None);
        assert_eq!(structural("### Steps to reproduce"), None);
    }

    #[test]
    fn an_entry_heading_read_is_written_back_to_one_that_reads_the_same() {
        for line in [
            "### 2025-01-01T00:00:00Z - a to\r to b (DIS)",
            "### 2025-01-01T00:00:00Z -\t - a to b (DIS)",
            "###  2025-01-01T00:00:00Z  -  a\t to  b  ( DIS )",
        ] {
            let Some(Structural::Entry(read)) = structural(line) else {
                panic!("{line:?} is an entry heading");
            };
            let written = format!(
                "### {} - {} to {} ({})",
                read.timestamp, read.from, read.to, read.kind
            );
            assert_eq!(
                structural(&written),
                Some(Structural::Entry(read)),
                "{line:?}"
            );
        }
    }

    #[test]
    fn escaping_is_reversible() {
        let body =
            "## Conversation History\n\\## Processing History\n\\\\x\n### a - b to c (D)\nplain";
        let escaped = escape(body);
        assert!(escaped.lines().all(|l| structural(l).is_none()));
        assert_eq!(unescape(&escaped), body);
    }
}
