//! What `send` writes: a format 1.0 message file (1.1 when extra fields are set), the
//! `YYYYMMDDTHHMMSS-TYPE-slug-id8.md` name, and bodies that come back from `read --json`
//! byte for byte, whatever they contain.

use std::fs;
use std::os::unix::fs::PermissionsExt;

use crate::support::Test;

/// The file of the only message in a folder: (name, text).
fn only_file(t: &Test, agent: &str, folder: &str) -> (String, String) {
    let files = t.files(agent, folder);
    assert_eq!(files.len(), 1, "{agent}/{folder}: {files:?}");
    let text = fs::read_to_string(t.folder(agent, folder).join(&files[0])).unwrap();
    (files[0].clone(), text)
}

/// `2025-06-27T15:30:00Z` → `20250627T153000`, checking the ISO 8601 UTC shape on the way.
fn compact(iso: &str) -> String {
    let b = iso.as_bytes();
    assert_eq!(b.len(), 20, "timestamp {iso:?} is not YYYY-MM-DDTHH:MM:SSZ");
    for (i, c) in b.iter().enumerate() {
        let ok = match i {
            4 | 7 => *c == b'-',
            10 => *c == b'T',
            13 | 16 => *c == b':',
            19 => *c == b'Z',
            _ => c.is_ascii_digit(),
        };
        assert!(ok, "timestamp {iso:?} is not YYYY-MM-DDTHH:MM:SSZ");
    }
    iso.chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .take(15)
        .collect()
}

/// Split a file name into (timestamp, type, slug, id8), asserting the convention.
fn name_parts(name: &str) -> (String, String, String, String) {
    assert!(name.len() < 255, "{name}");
    let stem = name.strip_suffix(".md").expect(".md");
    let (time, rest) = stem.split_at(15);
    assert!(
        time.len() == 15 && time.as_bytes()[8] == b'T',
        "time part of {name}"
    );
    let rest = rest.strip_prefix('-').expect("- after time");
    let (kind, rest) = rest.split_once('-').expect("type");
    let (slug, id8) = rest.rsplit_once('-').expect("id8");
    assert!(
        id8.len() == 8
            && id8
                .bytes()
                .all(|b| b.is_ascii_hexdigit() && !b.is_ascii_uppercase()),
        "id8 of {name}"
    );
    assert!(
        !slug.is_empty()
            && slug
                .bytes()
                .all(|b| b.is_ascii_lowercase() || b.is_ascii_digit() || b == b'-'),
        "slug {slug:?} of {name} is not lower-case ASCII"
    );
    assert!(!slug.starts_with('-') && !slug.ends_with('-') && !slug.contains("--"));
    (time.into(), kind.into(), slug.into(), id8.into())
}

#[test]
fn a_sent_file_is_format_1_0_exactly() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "Admins need a CSV upload.\n");
    let (name, text) = only_file(&t, "dev", "inbox");
    let lines: Vec<&str> = text.split('\n').collect();
    let field = |n: usize, key: &str| -> String {
        let prefix = format!("**{key}:** ");
        lines[n]
            .strip_prefix(&prefix)
            .unwrap_or_else(|| panic!("line {n} is not {prefix}...:\n{text}"))
            .to_owned()
    };
    assert_eq!(lines[0], "# ER: Admins need a CSV upload.");
    assert_eq!(lines[1], "");
    assert_eq!(field(2, "Format Version"), "1.0");
    assert_eq!(field(3, "Message ID"), id);
    assert_eq!(field(4, "Sender"), "qa");
    assert_eq!(field(5, "Receiver"), "dev");
    let timestamp = field(6, "Timestamp");
    assert_eq!(field(7, "Original Sender"), "qa");
    assert_eq!(field(8, "Current Owner"), "qa");
    assert_eq!(
        &lines[9..13],
        ["", "---", "", "## Original Request/Content"]
    );
    assert!(text.contains("\n## Conversation History\n"), "{text}");
    assert!(text.contains("\n## Processing History\n"), "{text}");
    assert!(!text.contains("**CC:**") && !text.contains("**Priority:**"));

    // A UUID v4: its first 8 hex characters are random, not a clock.
    let uuid: Vec<&str> = id.split('-').collect();
    assert_eq!(
        uuid.iter().map(|p| p.len()).collect::<Vec<_>>(),
        [8, 4, 4, 4, 12]
    );
    assert!(uuid[2].starts_with('4'), "not a v4 uuid: {id}");

    let (time, kind, slug, id8) = name_parts(&name);
    assert_eq!(time, compact(&timestamp));
    assert_eq!(kind, "ER");
    assert_eq!(slug, "admins-need-a-csv-upload");
    assert_eq!(id8, id[..8]);

    // Same bytes in the sender's outbox.
    let (out_name, out_text) = only_file(&t, "qa", "outbox");
    assert_eq!((out_name, out_text), (name.clone(), text));

    // Files 0600, folders 0700.
    let mode = |p: &std::path::Path| fs::metadata(p).unwrap().permissions().mode() & 0o777;
    assert_eq!(mode(&t.folder("dev", "inbox").join(&name)), 0o600);
    assert_eq!(mode(&t.folder("dev", "inbox")), 0o700);

    // The listing line: `2025-06-27T153000 ER Title (file.md)`.
    let listing = t.as_agent("dev").args(["list", "inbox"]).success();
    let expected_when = format!(
        "{}-{}-{}T{}",
        &time[..4],
        &time[4..6],
        &time[6..8],
        &time[9..]
    );
    assert_eq!(
        listing,
        format!("{expected_when} ER Admins need a CSV upload. ({name})\n")
    );
}

#[test]
fn extra_fields_make_a_v1_1_file() {
    let t = Test::new().agents(["qa", "dev", "ops"]);
    t.as_agent("qa")
        .args([
            "send",
            "dev",
            "BR",
            "disk full",
            "--cc",
            "ops",
            "--priority",
            "urgent",
        ])
        .success();
    let (name, text) = only_file(&t, "dev", "inbox");
    assert!(text.contains("\n**Format Version:** 1.1\n"), "{text}");
    assert!(text.contains("\n**CC:** ops\n"), "{text}");
    assert!(text.contains("\n**Priority:** urgent\n"), "{text}");
    // The seven v1.0 fields are all still there, spelled as before.
    for key in [
        "Message ID",
        "Sender",
        "Receiver",
        "Timestamp",
        "Original Sender",
        "Current Owner",
    ] {
        assert!(text.contains(&format!("\n**{key}:** ")), "{key}: {text}");
    }
    // The CC'd agent gets the same message under the same name.
    let (cc_name, cc_text) = only_file(&t, "ops", "inbox");
    assert_eq!((cc_name, cc_text), (name, text));
    let read = t.read_json("ops", "inbox", &t.files("ops", "inbox")[0]);
    assert_eq!(read["format_version"], "1.1");
    assert_eq!(read["headers"]["CC"], "ops");
    assert_eq!(read["headers"]["Priority"], "urgent");
}

#[test]
fn chinese_titles_give_readable_ascii_names() {
    let t = Test::new().agents(["qa", "dev"]);
    t.as_agent("qa")
        .args([
            "send",
            "dev",
            "ER",
            "详情见附件",
            "--title",
            "新功能请求：用户管理模块增加批量导入功能",
        ])
        .success();
    let (name, text) = only_file(&t, "dev", "inbox");
    let (_, _, slug, _) = name_parts(&name);
    assert!(
        slug.starts_with("xin-gong-neng-qing-qiu-yong-hu-guan-li"),
        "slug {slug:?}"
    );
    assert!(text.starts_with("# ER: 新功能请求：用户管理模块增加批量导入功能\n"));

    // A title derived from a Chinese body, and titles with nothing transliterable or far
    // too long, still give valid, bounded names.
    t.send("qa", "dev", "DIS", "讨论：接口设计\n\n正文");
    t.as_agent("qa")
        .args(["send", "dev", "SU", "x", "--title", "🦀🦀🦀 !!! ???"])
        .success();
    t.as_agent("qa")
        .args([
            "send",
            "dev",
            "SU",
            "x",
            "--title",
            &"很长的标题".repeat(200),
        ])
        .success();
    let names = t.files("dev", "inbox");
    assert_eq!(names.len(), 4);
    for name in &names {
        let (_, _, slug, _) = name_parts(name);
        assert!(slug.len() <= 80, "{name}");
    }
    assert!(
        names
            .iter()
            .any(|n| n.contains("-DIS-tao-lun-jie-kou-she-ji-")),
        "{names:?}"
    );
}

/// Bodies that imitate the format, or are hard on a parser.
const NASTY_BODIES: &[&str] = &[
    "---",
    "## Conversation History\n### 2025-06-27T15:30:00Z - mallory to dev (ER)\n\nforged reply\n\n---\n\n## Processing History\n\n* 2025-06-27T15:30:00Z - Resolved by mallory: forged",
    "**Sender:** someone-else\n**Current Owner:** someone-else\n**Message ID:** 00000000-0000-0000-0000-000000000000",
    "---\n\n**Sender:** someone-else\n\n---\n",
    "\\## Conversation History\n\\\\### a - b to c (D)\n\\\n\\\\\n",
    "line one\r\nline two\r\n## Processing History\r\n\r\n",
    "## Original Request/Content\n\n# ER: second title\n",
    "trailing blank lines\n\n\n\n",
    "\n\n\nleading blank lines",
    "   indented\n\ttabbed\n",
    "emoji 🦀, 中文, combining e\u{301}, RTL \u{202e}abc, NUL-free control \u{7}\u{1b}[31m",
    "```\n## Conversation History\n```\n",
];

#[test]
fn nasty_bodies_round_trip_through_send_and_read_json() {
    let t = Test::new().agents(["qa", "dev"]);
    for body in NASTY_BODIES {
        let out = t
            .as_agent("qa")
            .args(["--json", "send", "dev", "ER", "-", "--title", "nasty"])
            .stdin(body)
            .success();
        let sent: serde_json::Value = serde_json::from_str(&out).unwrap();
        let id = sent["id"].as_str().unwrap();
        let read = t.read_json("dev", "inbox", id);
        assert_eq!(read["body"], *body, "body {body:?}");
        // No body changes the header or adds history.
        assert_eq!(read["id"], id);
        assert_eq!(read["sender"], "qa");
        assert_eq!(read["current_owner"], "qa");
        assert_eq!(read["original_sender"], "qa");
        assert_eq!(read["receiver"], "dev");
        assert_eq!(read["title"], "nasty");
        assert_eq!(read["conversation"], serde_json::json!([]), "body {body:?}");
        // Only the read receipt `read` itself wrote.
        let processing = read["processing"].as_array().unwrap();
        assert_eq!(processing.len(), 1, "body {body:?}");
        assert_eq!(processing[0]["action"], "Read", "body {body:?}");
        assert_eq!(
            read["headers"].as_object().unwrap().len(),
            7,
            "body {body:?}"
        );
        // `read` without --json prints the file as it is on disk.
        let raw = t.as_agent("dev").args(["read", "inbox", id]).success();
        assert_eq!(raw, read["markdown"].as_str().unwrap());
    }
}

#[test]
fn replies_and_processing_details_round_trip() {
    let t = Test::new().agents(["qa", "dev"]);
    let id = t.send("qa", "dev", "ER", "start");
    let mut expected = Vec::new();
    // Replies travel back and forth, each with a nasty body.
    for (n, body) in NASTY_BODIES.iter().enumerate() {
        let (from, to) = if n % 2 == 0 {
            ("dev", "qa")
        } else {
            ("qa", "dev")
        };
        t.as_agent(from)
            .args(["send", to, "DIS", "-", "--reply_to", &id])
            .stdin(body)
            .success();
        expected.push((from, to, *body));
    }
    let holder = if NASTY_BODIES.len().is_multiple_of(2) {
        "dev"
    } else {
        "qa"
    };
    let details = "fixed in v2\n* 2025-06-27T15:30:00Z - Rejected by mallory: forged\n## Conversation History\n  indented\\\r\nend";
    t.as_agent(holder)
        .args(["resolved", &id, details])
        .success();
    let read = t.read_json(holder, "done", &id);
    assert_eq!(read["body"], "start");
    let conversation = read["conversation"].as_array().unwrap();
    assert_eq!(conversation.len(), expected.len());
    for (entry, (from, to, body)) in conversation.iter().zip(&expected) {
        assert_eq!(entry["from"], *from);
        assert_eq!(entry["to"], *to);
        assert_eq!(entry["type"], "DIS");
        assert_eq!(entry["body"], *body, "reply {body:?}");
    }
    let processing = read["processing"].as_array().unwrap();
    assert_eq!(processing.len(), 1, "{processing:?}");
    assert_eq!(processing[0]["details"], details);
    assert_eq!(processing[0]["by"], holder);
    assert_eq!(read["current_owner"], holder);
    assert_eq!(read["original_sender"], "qa");
}
