//! The message-file parser: any bytes never panic it; whatever it accepts renders to a file
//! that parses back to the same content (rendering may add the fields our files always carry,
//! such as the format version), and that rendered file is a fixed point: it renders to itself.
#![no_main]

use filebox_core::message::{parse, parse_header, render};
use libfuzzer_sys::fuzz_target;

fuzz_target!(|data: &[u8]| {
    let Ok(text) = std::str::from_utf8(data) else {
        return;
    };
    let header = parse_header(text);
    let Ok(message) = parse(text) else {
        return;
    };
    assert_eq!(header.as_ref().ok(), Some(&message.header));
    let rendered = render(&message);
    let again = parse(&rendered).expect("a rendered message parses");
    assert_eq!(again.body, message.body, "the body changed\n{rendered}");
    assert_eq!(again.conversation, message.conversation, "\n{rendered}");
    assert_eq!(again.processing, message.processing, "\n{rendered}");
    assert_eq!(again.header.kind, message.header.kind, "\n{rendered}");
    assert_eq!(again.header.title, message.header.title, "\n{rendered}");
    assert_eq!(again.header.id(), message.header.id(), "\n{rendered}");
    // Every field keeps its value; the format version is derived from the fields present.
    for (key, _) in message.header.fields() {
        if key.eq_ignore_ascii_case("Format Version") {
            continue;
        }
        assert_eq!(
            again.header.get(key),
            message.header.get(key),
            "{key}\n{rendered}"
        );
    }
    assert_eq!(render(&again), rendered, "render is not a fixed point");
});
