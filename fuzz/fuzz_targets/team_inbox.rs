//! The Claude Code team-inbox reader: any bytes never panic it; whatever it reads renders to
//! a file that reads back the same (elements it does not know kept verbatim) and renders to
//! the same bytes; marking messages read by identity, flagged or pruned, marks exactly those;
//! and an inbox built
//! from arbitrary messages, as FileBox writes one, reads back the same. Each message's
//! structured kind, its one-line description and its `<teammate-message>` block never
//! panic, and Claude Code's name sanitizers give one safe path component.
#![no_main]

use filebox_bridge::team_inbox::{InboxFile, MarkStyle, Structured, TeammateMessage, names};
use filebox_bridge::teammate_xml::{self, Block};
use libfuzzer_sys::arbitrary::{Result, Unstructured};
use libfuzzer_sys::fuzz_target;

fn reads_back(inbox: &InboxFile) -> String {
    let rendered = inbox.render();
    let again = InboxFile::parse(rendered.as_bytes()).expect("a rendered inbox parses");
    assert_eq!(&again, inbox, "\n{rendered}");
    assert_eq!(again.render(), rendered, "render is not a fixed point");
    rendered
}

fn any_file(data: &[u8]) {
    let Ok(mut inbox) = InboxFile::parse(data) else {
        return;
    };
    reads_back(&inbox);
    for message in inbox.messages() {
        if let Some(structured) = Structured::parse(&message.text) {
            let _ = structured.describe();
        }
        let _ = teammate_xml::render(&[Block::from(message)]);
    }
    // Mark every other unread message read, by identity, flagged or pruned: those, and no
    // other, become read or go (a message read already stays, even when an unread one shares
    // its identity).
    let style = match data.first().is_some_and(|b| b % 2 == 0) {
        true => MarkStyle::Flag,
        false => MarkStyle::Prune,
    };
    let before: Vec<_> = inbox
        .messages()
        .map(|m| (m.identity(), m.is_read()))
        .collect();
    let unread: Vec<_> = inbox
        .messages()
        .filter(|m| !m.is_read())
        .map(TeammateMessage::identity)
        .collect();
    let chosen: Vec<_> = unread.iter().step_by(2).cloned().collect();
    let marked = inbox.mark_read(&chosen, style);
    assert!(
        marked >= chosen.len(),
        "{marked} marked of {} chosen",
        chosen.len()
    );
    match style {
        MarkStyle::Flag => {
            for (message, (identity, was_read)) in inbox.messages().zip(before) {
                if was_read {
                    assert!(message.is_read(), "{identity:?} was read and is unread now");
                } else if chosen.contains(&identity) {
                    assert!(message.is_read(), "{identity:?} not marked");
                } else {
                    assert!(!message.is_read(), "{identity:?} marked without being chosen");
                }
            }
        }
        MarkStyle::Prune => {
            let left: Vec<_> = inbox.messages().map(TeammateMessage::identity).collect();
            let kept: Vec<_> = before
                .iter()
                .filter(|(identity, was_read)| *was_read || !chosen.contains(identity))
                .map(|(identity, _)| identity.clone())
                .collect();
            assert_eq!(left, kept, "exactly the chosen unread messages go");
            assert_eq!(marked, before.len() - left.len());
        }
    }
    reads_back(&inbox);
}

fn string(u: &mut Unstructured) -> Result<String> {
    u.arbitrary()
}

fn written_inbox(u: &mut Unstructured) -> Result<()> {
    let mut inbox = InboxFile::default();
    for _ in 0..u.int_in_range(0..=4u8)? {
        let mut message = TeammateMessage::new(&string(u)?, &string(u)?);
        if u.arbitrary()? {
            message.timestamp = string(u)?;
        }
        message.read = u.arbitrary()?;
        message.color = u.arbitrary()?;
        message.summary = u.arbitrary()?;
        inbox.push(message);
    }
    reads_back(&inbox);
    for name in [string(u)?, string(u)?] {
        for safe in [
            names::path_component(&name),
            names::team_config_folder(&name),
        ] {
            assert!(
                safe.chars()
                    .all(|c| c.is_ascii_alphanumeric() || c == '_' || c == '-'),
                "{name:?} gave {safe:?}"
            );
            assert_eq!(
                safe.len(),
                name.encode_utf16().count(),
                "{name:?} gave {safe:?}"
            );
        }
    }
    Ok(())
}

fuzz_target!(|data: &[u8]| {
    any_file(data);
    let _ = written_inbox(&mut Unstructured::new(data));
});
