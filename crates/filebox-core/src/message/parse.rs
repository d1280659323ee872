//! Read a message file: our own exactly, and hand-written or foreign v1.0 files leniently.

use super::header::Header;
use super::structure::{Section, Structural, structural, unescape};
use super::{ConversationEntry, Message, ProcessingEntry};

/// Why a text is not a message.
pub type ParseError = &'static str;

/// Parse only the title line and header fields (what a listing needs).
pub fn parse_header(text: &str) -> Result<Header, ParseError> {
    let mut lines = text.split('\n');
    let title_line = lines
        .by_ref()
        .find(|l| !l.trim().is_empty())
        .ok_or("the file is empty")?;
    let heading = title_line
        .trim_end()
        .strip_prefix("# ")
        .ok_or("the first line is not a `# TYPE: Title` heading")?;
    let (kind, title) = heading
        .split_once(':')
        .ok_or("the title line has no `TYPE:` prefix")?;
    let mut fields = Vec::new();
    for line in lines {
        let line = line.trim_end();
        if line == "---" || structural(line).is_some() {
            break;
        }
        if let Some((key, value)) = line
            .strip_prefix("**")
            .and_then(|rest| rest.split_once(":**"))
        {
            fields.push((key.trim().to_owned(), value.trim().to_owned()));
        }
    }
    // Listings, searches and waits tell messages apart by their id: an empty one would merge
    // every such file into one.
    if !fields
        .iter()
        .any(|(k, v)| k.eq_ignore_ascii_case(super::field::MESSAGE_ID) && !v.is_empty())
    {
        return Err("the header has no **Message ID:** line with a value");
    }
    Ok(Header::from_parts(
        kind.trim().to_owned(),
        title.trim().to_owned(),
        fields,
    ))
}

/// One structural line and where it sits in the text.
struct Mark<'a> {
    what: Structural<'a>,
    /// Byte offset of the line's start.
    start: usize,
    /// Byte offset just past the line's `\n` (or the text's end).
    end: usize,
}

/// Parse a whole message file.
pub fn parse(text: &str) -> Result<Message, ParseError> {
    let header = parse_header(text)?;
    let marks = marks(text);
    let original = marks
        .iter()
        .position(|m| m.what == Structural::Section(Section::Original))
        .ok_or("there is no `## Original Request/Content` section")?;

    let mut message = Message {
        header,
        body: String::new(),
        conversation: Vec::new(),
        processing: Vec::new(),
    };
    for (i, mark) in marks.iter().enumerate().skip(original) {
        let next = marks.get(i + 1);
        let raw = &text[mark.end..next.map_or(text.len(), |n| n.start)];
        let next_is_section = matches!(
            next,
            Some(Mark {
                what: Structural::Section(_),
                ..
            })
        );
        match &mark.what {
            Structural::Section(Section::Original) => {
                // The body runs to the next section; entry-like lines inside it are escaped.
                let end = marks[i + 1..]
                    .iter()
                    .find(|m| matches!(m.what, Structural::Section(_)));
                let raw = &text[mark.end..end.map_or(text.len(), |n| n.start)];
                message.body = payload(raw, end.is_some());
            }
            Structural::Section(Section::Processing) => {
                message.processing = processing_entries(raw);
            }
            Structural::Section(Section::Conversation) => {}
            Structural::Entry(heading) => {
                if !in_conversation(&marks[..i]) {
                    continue;
                }
                message.conversation.push(ConversationEntry {
                    timestamp: heading.timestamp.to_owned(),
                    from: heading.from.to_owned(),
                    to: heading.to.to_owned(),
                    kind: heading.kind.to_owned(),
                    body: payload_before(raw, next_is_section, next.is_some()),
                });
            }
        }
    }
    Ok(message)
}

/// Whether the last section heading before an entry is `## Conversation History`.
fn in_conversation(before: &[Mark<'_>]) -> bool {
    before.iter().rev().find_map(|m| match m.what {
        Structural::Section(s) => Some(s),
        Structural::Entry(_) => None,
    }) == Some(Section::Conversation)
}

fn marks(text: &str) -> Vec<Mark<'_>> {
    let mut marks = Vec::new();
    let mut start = 0;
    for line in text.split_inclusive('\n') {
        let end = start + line.len();
        if let Some(what) = structural(line.strip_suffix('\n').unwrap_or(line)) {
            marks.push(Mark { what, start, end });
        }
        start = end;
    }
    marks
}

/// The body between a section heading and the next section: written as
/// `\n{escaped}\n\n---\n\n`; anything else is trimmed leniently.
fn payload(raw: &str, followed_by_section: bool) -> String {
    payload_before(raw, followed_by_section, followed_by_section)
}

/// A payload written as `\n{escaped}` + `\n\n---\n\n` before a section, `\n\n` before an entry.
fn payload_before(raw: &str, next_is_section: bool, has_next: bool) -> String {
    let inner = raw.strip_prefix('\n');
    let suffix = if next_is_section {
        "\n\n---\n\n"
    } else {
        "\n\n"
    };
    match inner
        .and_then(|s| s.strip_suffix(suffix))
        .filter(|_| has_next)
    {
        Some(exact) => unescape(exact),
        None => unescape(lenient_trim(raw)),
    }
}

/// For hand-written files: drop surrounding blank lines and a closing `---` rule.
fn lenient_trim(raw: &str) -> &str {
    let trimmed = raw.trim_matches(|c| c == '\n' || c == '\r');
    let trimmed = trimmed.trim_end();
    trimmed
        .strip_suffix("---")
        .map(|s| s.trim_end())
        .unwrap_or(trimmed)
        .trim_start_matches(['\n', '\r'])
}

/// `* [Timestamp] - [Action] by [Agent]: [Details]` lines, details continued on indented lines.
fn processing_entries(raw: &str) -> Vec<ProcessingEntry> {
    let mut entries: Vec<ProcessingEntry> = Vec::new();
    for line in raw.split('\n') {
        if let Some(item) = line.strip_prefix('*').or_else(|| line.strip_prefix('-'))
            && item.starts_with([' ', '\t'])
        {
            entries.push(processing_entry(item.trim_start()));
            continue;
        }
        if let (Some(last), Some(more)) = (entries.last_mut(), line.strip_prefix("  ")) {
            last.details.push('\n');
            last.details.push_str(more);
        }
    }
    entries
}

fn processing_entry(item: &str) -> ProcessingEntry {
    let parsed = item.split_once(" - ").and_then(|(timestamp, rest)| {
        let (head, details) = rest
            .split_once(": ")
            .unwrap_or((rest.trim_end_matches(':'), ""));
        let (action, by) = head.rsplit_once(" by ")?;
        Some(ProcessingEntry {
            timestamp: timestamp.trim().to_owned(),
            action: action.trim().to_owned(),
            by: by.trim().to_owned(),
            details: details.to_owned(),
        })
    });
    parsed.unwrap_or_else(|| ProcessingEntry {
        timestamp: String::new(),
        action: String::new(),
        by: String::new(),
        details: item.to_owned(),
    })
}
