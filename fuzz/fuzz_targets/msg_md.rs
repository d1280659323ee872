//! The `.msg.md` parser: any text, read as a `.msg.md` and as an ordinary `.md` file, never
//! panics it; what it accepts is a partition of the text (preamble + cells' raw text is the
//! file, byte for byte), every reading of a cell answers, and each cell heading and each
//! footnote it read renders to a line that parses back the same (parse → render → parse).
#![no_main]

use filebox_bridge::msg_md::{FileKind, Heading, Note, Transcript};
use libfuzzer_sys::fuzz_target;

fn check(text: &str, kind: FileKind) {
    let Ok(transcript) = Transcript::parse(text, kind) else {
        return;
    };
    let joined: String = std::iter::once(transcript.preamble.as_str())
        .chain(transcript.cells.iter().map(|c| c.raw.as_str()))
        .collect();
    assert_eq!(joined, text, "not a partition of the text");
    let _ = transcript.temporary_agents();
    for cell in &transcript.cells {
        let _ = (
            cell.code(),
            cell.reasoning(),
            cell.streams(),
            cell.id_shape(),
        );
        let _ = (cell.binary_mime_type(), cell.history());
        let line = cell.heading.render();
        assert_eq!(
            Heading::parse(&line).as_ref(),
            Some(&cell.heading),
            "{line:?}"
        );
        if let Some(note) = &cell.note {
            let line = note.render();
            assert_eq!(Note::parse(&line).as_ref(), Some(note), "{line:?}");
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    check(text, FileKind::MessageFile);
    check(text, FileKind::Markdown);
    // Any line taken as a footnote: what parses renders to a line that parses back the same.
    for line in text.lines() {
        if let Some(note) = Note::parse(line) {
            let rendered = note.render();
            assert_eq!(
                Note::parse(&rendered),
                Some(note),
                "{line:?} -> {rendered:?}"
            );
        }
    }
});
