//! File names: any string is either refused or a single `.md` path component that cannot
//! leave its folder; the name's parts (time prefix, short id) come from the name itself.
#![no_main]

use filebox_core::MessageRef;
use filebox_core::message::FileName;
use libfuzzer_sys::fuzz_target;

fuzz_target!(|value: &str| {
    if let Ok(name) = FileName::new(value) {
        let s = name.as_str();
        assert_eq!(s, value);
        assert!(s.ends_with(".md") && !s.starts_with('.'));
        assert!(!s.contains('/') && !s.contains("..") && s.len() <= 255);
        assert!(std::path::Path::new(s).components().count() == 1);
        if let Some(time) = name.compact_time() {
            assert!(s.starts_with(time) && time.len() == 15);
        }
        if let Some(short) = name.short_id() {
            assert!(short.len() == 8 && s.ends_with(&format!("{short}.md")));
        }
    }
    // Every reference a caller can give parses or is refused, never panics.
    if let Ok(reference) = MessageRef::parse(value) {
        assert!(!reference.text().is_empty() || value.trim().is_empty());
    }
});
