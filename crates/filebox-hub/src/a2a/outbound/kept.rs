//! What of a remote agent's words and files a reply keeps: bounded like any attachment
//! (`max_body_bytes` for each file and for all of them, at most [`MAX_FILES`]) and the words
//! cut to the room the message has left, each cut named in the words (`[FileBox: ...]`), so
//! the reader sees that something was left out and the store never refuses the reply.

use filebox_core::Attachment;
use filebox_core::model_text::one_line;

use super::super::wire::Incoming;

/// The most files one answer adds to a message.
pub(super) const MAX_FILES: usize = 32;

/// Room kept in the message for the attachments' links and the marks of what was cut.
const LINKS_ROOM: usize = 16 * 1024;

/// A reply's words and files.
#[derive(Debug)]
pub(super) struct Kept {
    pub(super) body: String,
    pub(super) files: Vec<Attachment>,
}

/// What of `said` fits: files within `limit` bytes each and together, words within `room`
/// bytes (what the message may still grow by).
pub(super) fn keep(said: &Incoming, limit: usize, room: usize) -> Kept {
    let mut marks = Vec::new();
    let mut files = Vec::new();
    let mut total = 0usize;
    for file in &said.files {
        let name = one_line(&file.name, 100);
        let size = file.bytes.len();
        if files.len() == MAX_FILES {
            marks.push(format!(
                "[FileBox: file {name} left out: an answer adds at most {MAX_FILES} files]"
            ));
        } else if total + size > limit {
            marks.push(format!(
                "[FileBox: file {name} left out: {size} bytes, over max_body_bytes ({limit}) \
                 for the files of one answer]"
            ));
        } else {
            total += size;
            files.push(file.clone());
        }
    }
    if marks.len() > MAX_FILES {
        let more = marks.len() - MAX_FILES;
        marks.truncate(MAX_FILES);
        marks.push(format!("[FileBox: {more} more files left out]"));
    }
    let words = said.body();
    let room = room.saturating_sub(LINKS_ROOM);
    let mut body = if words.len() > room {
        let mut end = room;
        while !words.is_char_boundary(end) {
            end -= 1;
        }
        let cut = format!(
            "[FileBox: cut here: the A2A agent's words were {} bytes, {end} kept \
             (max_body_bytes)]",
            words.len()
        );
        format!("{}\n\n{cut}", &words[..end])
    } else {
        words
    };
    for mark in marks {
        if !body.is_empty() {
            body.push_str("\n\n");
        }
        body.push_str(&mark);
    }
    Kept { body, files }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn file(name: &str, size: usize) -> Attachment {
        Attachment {
            name: name.into(),
            mime: None,
            bytes: vec![b'x'; size],
        }
    }

    #[test]
    fn files_over_the_bound_and_words_over_the_room_are_left_out_with_a_mark() {
        let mut said = Incoming {
            texts: vec!["é".repeat(LINKS_ROOM)],
            ..Incoming::default()
        };
        said.files = vec![file("big.bin", 11), file("a.txt", 6), file("b.txt", 6)];
        said.files
            .extend((0..40).map(|n| file(&format!("{n}.txt"), 0)));
        let kept = keep(&said, 10, LINKS_ROOM + 101);
        let names: Vec<_> = kept.files.iter().map(|f| f.name.as_str()).collect();
        assert_eq!(names.len(), MAX_FILES);
        assert_eq!(names[0], "a.txt", "{names:?}");
        assert!(
            kept.body
                .contains("file big.bin left out: 11 bytes, over max_body_bytes (10)"),
            "{}",
            kept.body
        );
        assert!(kept.body.contains("file b.txt left out"));
        assert!(kept.body.contains("an answer adds at most 32 files"));
        assert!(kept.body.starts_with(&"é".repeat(50)));
        assert!(
            kept.body
                .contains(&format!("words were {} bytes, 100 kept", 2 * LINKS_ROOM))
        );
    }
}
