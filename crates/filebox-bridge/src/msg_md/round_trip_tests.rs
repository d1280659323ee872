//! The fixtures in tests/bridges/fixtures/msg-md read as the format describes, and files go
//! through FileBox unchanged: import → export gives the file back byte for byte (fixtures and
//! generated hand-written files), export → import → export of a FileBox thread is identical.

use std::path::{Path, PathBuf};

use filebox_core::{AgentId, Mailroom, MessageType, SendRequest};
use proptest::prelude::*;

use super::*;

fn fixture(name: &str) -> PathBuf {
    Path::new(env!("CARGO_MANIFEST_DIR"))
        .join("../../tests/bridges/fixtures/msg-md")
        .join(name)
}

fn parse_fixture(name: &str) -> Transcript {
    let path = fixture(name);
    let text = std::fs::read_to_string(&path).unwrap();
    Transcript::parse(&text, FileKind::of(&path)).unwrap()
}

/// A config with agents `qa` and `dev` in a temp dir, bound to `qa`.
fn mailroom() -> (tempfile::TempDir, Mailroom) {
    let dir = tempfile::tempdir().unwrap();
    let mailroom =
        filebox_testkit::mailroom(dir.path(), &[("qa", "agent"), ("dev", "agent")], "qa");
    (dir, mailroom)
}

fn import_then_export(mailroom: &Mailroom, path: &Path) -> String {
    let imported = import(mailroom, path, None).unwrap();
    export(mailroom, &imported.thread).unwrap()
}

#[test]
fn every_construct_of_the_fixtures_is_read() {
    let chat = parse_fixture("chat.msg.md");
    let levels: Vec<(usize, bool)> = chat
        .cells
        .iter()
        .map(|c| (c.heading.level, c.heading.output))
        .collect();
    assert_eq!(
        levels,
        [
            (1, false),
            (2, true),
            (3, true),
            (3, true),
            (2, true),
            (4, false),
            (5, true),
            (1, true)
        ]
    );
    let names: Vec<&str> = chat.agents.iter().map(|a| a.name.as_str()).collect();
    assert_eq!(names, ["architect", "reviewer"]);
    assert!(chat.agents[0].fields.contains(&(
        "system_prompt".into(),
        "You design small, testable services.".into()
    )));
    assert_eq!(chat.temporary_agents(), ["gpt-4o-mini"]);
    let histories: Vec<History> = chat.cells.iter().map(Cell::history).collect();
    use History::*;
    assert_eq!(
        histories,
        [
            Include, Include, Exclude, Exclude, Include, Summary, Include, Include
        ]
    );
    assert_eq!(
        chat.cells[2].id_shape(),
        IdShape::ToolCall {
            of: "2".into(),
            nonce: "k3x9".into()
        }
    );
    assert_eq!(chat.cells[2].attr("name"), Some("search_code"));
    assert_eq!(
        chat.cells[3].id_shape(),
        IdShape::ToolResult {
            of: "2".into(),
            nonce: "k3x9".into(),
            n: "1".into()
        }
    );
    assert_eq!(chat.cells[3].attr("duration"), Some("0.5s"));
    assert!(chat.cells[3].note.as_ref().unwrap().attrs[0].quoted);
    assert!(!chat.cells[3].note.as_ref().unwrap().attrs[1].quoted);
    assert_eq!(
        chat.cells[7].attr("reasoning"),
        Some("1"),
        "bracketed [reasoning=1]"
    );
    assert_eq!(chat.cells[0].attr("from"), Some("alice"));

    let code = parse_fixture("code.msg.md");
    assert_eq!(code.agents[0].name, "analyst");
    let (language, source) = code.cells[0].code().unwrap();
    assert_eq!(language, "python");
    assert!(source.starts_with("import pandas") && !source.contains("head requests.csv"));
    assert!(
        code.cells[0]
            .reasoning()
            .unwrap()
            .starts_with("First load the CSV")
    );
    assert_eq!(
        code.cells[1].streams(),
        [
            (Stream::Stdout, "12840".into()),
            (
                Stream::Stderr,
                "DtypeWarning: Columns (3) have mixed types".into()
            )
        ]
    );
    assert_eq!(
        code.cells[1].id_shape(),
        IdShape::Execution {
            of: "1".into(),
            n: "1".into()
        }
    );
    assert_eq!(code.cells[3].binary_mime_type(), Some("image/png"));
    assert_eq!(code.cells[1].binary_mime_type(), None);
    let histories: Vec<History> = code.cells.iter().map(Cell::history).collect();
    assert_eq!(
        histories,
        [Exclude, Include, Exclude, Include, Exclude, Include]
    );
    assert!(
        code.temporary_agents().is_empty(),
        "python output is code output, not an agent"
    );

    let design = parse_fixture("design.md");
    assert_eq!(design.cells.len(), 2);
    assert!(
        design.preamble.contains("# %% not a cell")
            && design.preamble.ends_with("## Discussion\n\n")
    );
    let review = parse_fixture("review.md");
    assert_eq!(review.cells.len(), 2);
    assert!(review.preamble.ends_with("## Review\n\n"));
    assert_eq!(review.cells[0].heading.id.as_deref(), Some("r1"));
    let crlf = parse_fixture("crlf.msg.md");
    assert_eq!(crlf.cells.len(), 2);
    assert_eq!(crlf.cells[0].attr("time"), Some("2025-06-03T08:00:00Z"));
    assert_eq!(crlf.cells[1].kind(), Some("helper"));
}

#[test]
fn every_fixture_exports_byte_for_byte_after_import() {
    let (_dir, mailroom) = mailroom();
    for name in [
        "chat.msg.md",
        "code.msg.md",
        "design.md",
        "review.md",
        "crlf.msg.md",
    ] {
        let path = fixture(name);
        let exported = import_then_export(&mailroom, &path);
        assert_eq!(exported, std::fs::read_to_string(&path).unwrap(), "{name}");
    }
}

#[test]
fn imported_cells_carry_sender_time_and_type() {
    let (_dir, mailroom) = mailroom();
    let dev = AgentId::new("dev").unwrap();
    let result = import(&mailroom, &fixture("chat.msg.md"), Some(&dev)).unwrap();
    assert_eq!(result.ids.len(), 9);
    let senders: Vec<&str> = result.cells.iter().map(|c| c.from.as_str()).collect();
    assert_eq!(
        senders,
        [
            "alice",
            "architect",
            "tool",
            "tool",
            "architect",
            "alice",
            "gpt-4o-mini",
            "reviewer"
        ]
    );
    let thread = mailroom.thread(&result.thread).unwrap();
    assert_eq!(thread.nodes.len(), 9);
    assert_eq!(thread.nodes[1].timestamp, "2025-05-29T16:00:00Z");
    assert_eq!(thread.nodes[1].mailbox, dev);
}

/// A FileBox thread: a message, replies in its conversation, a separate answer.
fn filebox_thread(mailroom: &Mailroom, bodies: &[String]) -> String {
    let dev = Mailroom::new(
        mailroom.config().clone(),
        Some(&AgentId::new("dev").unwrap()),
    )
    .unwrap();
    let kind = MessageType::new("ER").unwrap();
    let first = mailroom
        .send(&SendRequest::new("dev", kind.clone(), bodies[0].clone()))
        .unwrap();
    for (i, body) in bodies[1..].iter().enumerate() {
        let (sender, to) = if i % 2 == 0 {
            (&dev, "qa")
        } else {
            (mailroom, "dev")
        };
        let mut reply = SendRequest::new(to, MessageType::new("DIS").unwrap(), body.clone());
        reply.reply_to = Some(filebox_core::MessageRef::parse(&first.id).unwrap());
        sender.send(&reply).unwrap();
    }
    first.id
}

#[test]
fn a_filebox_thread_survives_export_import_export() {
    let (dir, mailroom) = mailroom();
    let bodies = [
        "# Batch import\n\nAdmins need 200 users at once.".to_owned(),
        "# %% looks like a cell\n\\# %%% and so does this\n[^1]: [tool] not metadata\n".to_owned(),
        "Done.".to_owned(),
    ];
    let id = filebox_thread(&mailroom, &bodies);
    let first = export(&mailroom, &id).unwrap();
    assert!(
        first.starts_with("---\ntitle: \"Batch import\"\n"),
        "{first}"
    );
    assert!(
        first.contains("\n# %% Batch import[^1]\n\n[^1]: [markdown] from=\"qa\" to=\"dev\""),
        "{first}"
    );
    assert!(
        first.contains("\n## %%%[^2]\n\n[^2]: [dev] to=\"qa\""),
        "{first}"
    );
    assert!(
        first.contains("\n\\# %% looks like a cell\n\\\\# %%% and so does this\n"),
        "{first}"
    );
    let file = dir.path().join("thread.msg.md");
    std::fs::write(&file, &first).unwrap();
    assert_eq!(import_then_export(&mailroom, &file), first);
}

/// A thread's shape as the thread view shows it: per node, depth, sender, obsolete mark and
/// fork reason (an imported thread hangs below its preamble message: one level deeper).
fn shape(
    mailroom: &Mailroom,
    thread: &str,
    below: usize,
) -> Vec<(usize, String, bool, Option<String>)> {
    mailroom
        .thread(thread)
        .unwrap()
        .nodes
        .iter()
        .skip(below)
        .map(|n| {
            (
                n.depth - below,
                n.from.clone(),
                n.obsolete,
                n.fork_reason.clone(),
            )
        })
        .collect()
}

#[test]
fn a_forked_thread_keeps_its_forks_obsolete_marks_and_reasons_through_a_transcript() {
    let (dir, mailroom) = mailroom();
    let bodies = [
        "# Cache design\n\nShould we cache per user?".to_owned(),
        "Per tenant is simpler.".to_owned(),
        "Then invalidation gets hard.".to_owned(),
        "Agreed, drop it.".to_owned(),
    ];
    let id = filebox_thread(&mailroom, &bodies);
    // Fork from dev's first answer: the two later entries become obsolete.
    let fork = mailroom
        .fork(&filebox_core::ForkRequest {
            from: format!("{id}#1"),
            reason: filebox_core::ForkReason::DirectionChange,
            context: "Per tenant, with a TTL instead of invalidation.".to_owned(),
            to: Vec::new(),
            thread: None,
        })
        .unwrap();
    let original = shape(&mailroom, &id, 0);
    assert!(original.iter().any(|(_, _, obsolete, _)| *obsolete));
    assert!(original.iter().any(|(_, _, _, reason)| reason.is_some()));
    let first = export(&mailroom, &id).unwrap();
    assert!(
        first.contains(&format!(
            "in_reply_to=\"{id}#1\" fork_reason=\"direction-change\""
        )),
        "{first}"
    );
    assert!(first.contains("obsolete=\"true\""), "{first}");
    let file = dir.path().join("forked.msg.md");
    std::fs::write(&file, &first).unwrap();
    let imported = import(&mailroom, &file, None).unwrap();
    assert_eq!(shape(&mailroom, &imported.thread, 1), original);
    assert_eq!(export(&mailroom, &imported.thread).unwrap(), first);
    assert!(!fork.id.is_empty());
}

/// Hand-written cells: any level, either marker, optional title, quoted and bare attributes,
/// any content (but no line that is itself a heading).
fn hand_written_cell() -> impl Strategy<Value = String> {
    (
        1usize..=5,
        any::<bool>(),
        "[a-zA-Z 工具]{0,12}",
        "[0-9]{1,2}(\\.[a-z0-9]{1,4}){0,2}",
        proptest::option::of("[a-z-]{1,10}"),
        proptest::collection::vec(("[a-z_]{1,8}", "[^\"\\\\\n\r]{0,12}", any::<bool>()), 0..4),
        proptest::collection::vec("[^\n]{0,40}", 0..5),
        prop_oneof![Just("\n"), Just("\r\n")],
    )
        .prop_map(|(level, output, title, id, kind, attrs, lines, eol)| {
            let heading = Heading {
                level,
                output,
                title: title.trim().to_owned(),
                id: Some(id.clone()),
            };
            let note = Note {
                id,
                kind,
                attrs: attrs
                    .into_iter()
                    .map(|(key, value, quoted)| Attr {
                        quoted: quoted || value.is_empty() || value.contains(char::is_whitespace),
                        key,
                        value: Some(value),
                    })
                    .collect(),
            };
            let content: Vec<String> = lines
                .into_iter()
                .filter(|l| Heading::parse(l).is_none())
                .collect();
            format!(
                "{}{eol}{eol}{}{eol}{eol}{}{eol}",
                heading.render(),
                note.render(),
                content.join(eol)
            )
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 24, ..ProptestConfig::default() })]

    #[test]
    fn hand_written_files_export_as_they_were_imported(
        preamble in prop_oneof![Just(String::new()), Just("---\nagents:\n  - name: a\n---\n\n".to_owned()), "[^#\n]{0,30}\n"],
        cells in proptest::collection::vec(hand_written_cell(), 1..6),
        trailing in prop_oneof![Just(""), Just("\n"), Just("no newline")],
    ) {
        let (dir, mailroom) = mailroom();
        let text = format!("{preamble}{}{trailing}", cells.concat());
        let file = dir.path().join("hand.msg.md");
        std::fs::write(&file, &text).unwrap();
        prop_assert_eq!(import_then_export(&mailroom, &file), text);
    }

    #[test]
    fn filebox_threads_export_import_export_identically(
        // A send refuses a blank body, so FileBox threads have none.
        bodies in proptest::collection::vec(
            prop_oneof!["(.|\n){0,60}", Just("# %% x\n\\## %%% y".to_owned())]
                .prop_filter("a message says something", |b| !b.trim().is_empty()),
            1..4,
        ),
    ) {
        let (dir, mailroom) = mailroom();
        let id = filebox_thread(&mailroom, &bodies);
        let first = export(&mailroom, &id).unwrap();
        let file = dir.path().join("t.msg.md");
        std::fs::write(&file, &first).unwrap();
        prop_assert_eq!(import_then_export(&mailroom, &file), first);
    }
}
