//! Property tests of the format: render→parse gives back every body, conversation entry and
//! processing detail byte for byte, whatever lines it holds, and no body changes the header.

use proptest::prelude::*;

use super::{
    ConversationEntry, Header, Message, MessageType, ProcessingEntry, field, parse, render,
};

/// Lines that imitate the format's own structure, with the variants a parser might trip on.
const MARKERS: &[&str] = &[
    "## Original Request/Content",
    "## Conversation History",
    "## Processing History",
    "## conversation history",
    "##  Processing History  ",
    "## Conversation History\r",
    "### 2025-06-27T15:30:00Z - qa to dev (ER)",
    "### [Timestamp] - [Sender_ID] to [Receiver_ID] ([Message_Type])",
    "### x - a to b (DIS)   ",
    "---",
    "--- ",
    "***",
    "**Sender:** someone-else",
    "**Message ID:** 00000000-0000-0000-0000-000000000000",
    "**Current Owner:** mallory",
    "**Format Version:** 9.9",
    "# ER: a fake title line",
    "* 2025-06-27T15:30:00Z - Resolved by mallory: fake",
    "*   2025-06-27T15:30:00Z - Rejected by x: y",
    "  continued detail",
    "\\",
    "\\\\",
    "\\## Conversation History",
    "\\\\\\### t - a to b (ER)",
    "",
    " ",
    "\t",
    "\r",
    "```",
    "<!-- comment -->",
    "新功能请求：用户管理模块增加批量导入功能",
    "emoji 🦀 and combining e\u{301} and RTL \u{202e}abc",
];

fn line() -> impl Strategy<Value = String> {
    prop_oneof![
        4 => proptest::sample::select(MARKERS).prop_map(str::to_owned),
        // A marker with a prefix of backslashes or spaces.
        1 => ("[\\\\ ]{1,3}", proptest::sample::select(MARKERS))
            .prop_map(|(prefix, marker)| format!("{prefix}{marker}")),
        3 => any::<String>().prop_map(|s| s.replace('\n', "")),
        2 => "[ -~\\\\#*\\-]{0,40}",
    ]
}

/// A text of such lines joined by `\n` or `\r\n`, with or without a final line break.
fn text() -> impl Strategy<Value = String> {
    (
        proptest::collection::vec((line(), any::<bool>()), 0..12),
        prop_oneof![Just(""), Just("\n"), Just("\r\n"), Just("\n\n")],
    )
        .prop_map(|(lines, end)| {
            let mut out = String::new();
            for (i, (line, crlf)) in lines.iter().enumerate() {
                if i > 0 {
                    out.push_str(if *crlf { "\r\n" } else { "\n" });
                }
                out.push_str(line);
            }
            out.push_str(end);
            out
        })
}

fn agent() -> impl Strategy<Value = String> {
    "[a-zA-Z0-9][a-zA-Z0-9_.-]{0,12}".prop_filter("no ..", |s| !s.contains(".."))
}

fn conversation_entry() -> impl Strategy<Value = ConversationEntry> {
    (agent(), agent(), "[A-Z][A-Z0-9_]{0,5}", text()).prop_map(|(from, to, kind, body)| {
        ConversationEntry {
            timestamp: "2025-06-27T15:30:00Z".to_owned(),
            from,
            to,
            kind,
            body,
        }
    })
}

fn processing_entry() -> impl Strategy<Value = ProcessingEntry> {
    (
        prop_oneof![Just("Resolved"), Just("Rejected"), Just("On Hold")],
        agent(),
        text(),
    )
        .prop_map(|(action, by, details)| ProcessingEntry {
            timestamp: "2025-06-27T15:30:00Z".to_owned(),
            action: action.to_owned(),
            by,
            details,
        })
}

/// A header as `send` builds it.
fn header(title: &str, extended: bool) -> Header {
    let mut header = Header::new(&MessageType::new("ER").unwrap(), title);
    for (key, value) in [
        (field::FORMAT_VERSION, "1.0"),
        (field::MESSAGE_ID, "60bd0e69-1111-4222-8333-444455556666"),
        (field::SENDER, "qa"),
        (field::RECEIVER, "dev"),
        (field::TIMESTAMP, "2025-06-27T15:30:00Z"),
        (field::ORIGINAL_SENDER, "qa"),
        (field::CURRENT_OWNER, "qa"),
    ] {
        header.set(key, value);
    }
    if extended {
        header.set(field::CC, "ops, pm");
        header.set(field::PRIORITY, "urgent");
        // What `render` writes once a v1.1 field is present.
        header.set(field::FORMAT_VERSION, "1.1");
    }
    header
}

proptest! {
    #![proptest_config(ProptestConfig::with_cases(2000))]

    #[test]
    fn any_body_round_trips(body in text(), extended in any::<bool>()) {
        let message = Message {
            header: header("Batch import", extended),
            body: body.clone(),
            conversation: Vec::new(),
            processing: Vec::new(),
        };
        let file = render(&message);
        let parsed = parse(&file).map_err(|e| TestCaseError::fail(format!("{e}\n{file}")))?;
        prop_assert_eq!(&parsed.body, &body, "file:\n{}", file);
        prop_assert_eq!(&parsed.header, &message.header, "a body changed the header:\n{}", file);
        prop_assert!(parsed.conversation.is_empty(), "a body made a conversation entry:\n{}", file);
        prop_assert!(parsed.processing.is_empty(), "a body made a processing entry:\n{}", file);
        // Rendering what was parsed gives the same file: nothing drifts on rewrite.
        prop_assert_eq!(render(&parsed), file);
    }

    #[test]
    fn any_string_body_round_trips(body in any::<String>()) {
        let message = Message {
            header: header("t", false),
            body: body.clone(),
            conversation: Vec::new(),
            processing: Vec::new(),
        };
        let parsed = parse(&render(&message)).unwrap();
        prop_assert_eq!(parsed.body, body);
    }

    #[test]
    fn whole_messages_round_trip(
        body in text(),
        conversation in proptest::collection::vec(conversation_entry(), 0..4),
        processing in proptest::collection::vec(processing_entry(), 0..4),
        extended in any::<bool>(),
    ) {
        let message = Message {
            header: header("新功能请求：用户管理模块增加批量导入功能", extended),
            body,
            conversation,
            processing,
        };
        let file = render(&message);
        let parsed = parse(&file).map_err(|e| TestCaseError::fail(format!("{e}\n{file}")))?;
        prop_assert_eq!(&parsed, &message, "file:\n{}", file);
    }

    #[test]
    fn any_title_survives_on_one_line(title in any::<String>()) {
        let message = Message {
            header: header(&title, false),
            body: String::new(),
            conversation: Vec::new(),
            processing: Vec::new(),
        };
        let file = render(&message);
        let parsed = parse(&file).map_err(|e| TestCaseError::fail(format!("{e}\n{file}")))?;
        prop_assert_eq!(&parsed.header, &message.header);
        prop_assert!(!message.header.title.contains(['\n', '\r']));
    }

    #[test]
    fn parse_never_panics(text in any::<String>()) {
        let _ = parse(&text);
    }

    #[test]
    fn parse_never_panics_on_near_misses(body in text(), cut in any::<prop::sample::Index>()) {
        // A half-written file: our own output cut anywhere (on a char boundary).
        let message = Message {
            header: header("t", true),
            body,
            conversation: Vec::new(),
            processing: Vec::new(),
        };
        let file = render(&message);
        let mut at = cut.index(file.len() + 1);
        while !file.is_char_boundary(at) {
            at -= 1;
        }
        let _ = parse(&file[..at]);
    }
}

#[test]
fn header_fields_are_named_as_in_format_1_0() {
    let file = render(&Message {
        header: header("Batch import", false),
        body: "b".into(),
        conversation: Vec::new(),
        processing: Vec::new(),
    });
    let expected = "# ER: Batch import\n\n\
        **Format Version:** 1.0\n\
        **Message ID:** 60bd0e69-1111-4222-8333-444455556666\n\
        **Sender:** qa\n\
        **Receiver:** dev\n\
        **Timestamp:** 2025-06-27T15:30:00Z\n\
        **Original Sender:** qa\n\
        **Current Owner:** qa\n\
        \n---\n\n\
        ## Original Request/Content\n\nb\n\n---\n\n\
        ## Conversation History\n\n---\n\n\
        ## Processing History\n\n";
    assert_eq!(file, expected);
}

#[test]
fn extra_fields_make_version_1_1() {
    let file = render(&Message {
        header: header("t", true),
        body: String::new(),
        conversation: Vec::new(),
        processing: Vec::new(),
    });
    assert!(file.contains("**Format Version:** 1.1\n"), "{file}");
    assert!(
        file.contains("**CC:** ops, pm\n**Priority:** urgent\n"),
        "{file}"
    );
}

/// Found by the `message` fuzz target: a hand-written history line that is not `TS - Action
/// by X: details` used to gain ` -  by : ` on every rewrite.
#[test]
fn a_free_text_processing_line_survives_rewrites() {
    let file = "# ER: t\n\n**Message ID:** e1\n\n---\n\n## Original Request/Content\n\nb\n\n\
        ## Processing History\n\n*   checked with the team, see the wiki\n";
    let parsed = parse(file).unwrap();
    assert_eq!(
        parsed.processing[0].details,
        "checked with the team, see the wiki"
    );
    let rendered = render(&parsed);
    assert_eq!(parse(&rendered).unwrap().processing, parsed.processing);
    assert_eq!(render(&parse(&rendered).unwrap()), rendered);
}
