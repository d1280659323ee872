//! Files FileBox did not write: the message template filled in by hand or by another tool is
//! read and can be handled; unreadable files are reported and skipped, never fatal.

use std::fs;

use crate::support::Test;

/// The message template, filled in as a person would: `*   ` list items, a name that
/// does not follow the naming rule.
const HAND_WRITTEN: &str = "# ER: 新功能请求：用户管理模块增加批量导入功能

**Format Version:** 1.0
**Message ID:** 60bd0e69-5c1a-4b7e-9f00-0123456789ab
**Sender:** qa
**Receiver:** dev
**Timestamp:** 2025-06-27T15:30:00Z
**Original Sender:** qa
**Current Owner:** dev

---

## Original Request/Content

管理员需要一次导入 200 个用户。

*   支持 CSV
*   支持 Excel

---

## Conversation History

### 2025-06-27T16:00:00Z - dev to qa (DIS)

CSV 需要哪些列？

### 2025-06-27T16:30:00Z - qa to dev (DIS)

name, email, role

---

## Processing History

*   2025-06-27T17:00:00Z - On Hold by dev: 等待产品确认
";

#[test]
fn the_template_filled_in_by_hand_is_read() {
    let t = Test::new().agents(["qa", "dev"]);
    t.put("dev", "inbox", "batch import request.md", HAND_WRITTEN);

    let listing = t.as_agent("dev").args(["list", "inbox"]).success();
    assert_eq!(
        listing,
        "2025-06-27T153000 ER 新功能请求：用户管理模块增加批量导入功能 (batch import request.md)\n"
    );

    let read = t.read_json("dev", "inbox", "batch import request.md");
    assert_eq!(read["id"], "60bd0e69-5c1a-4b7e-9f00-0123456789ab");
    assert_eq!(read["type"], "ER");
    assert_eq!(read["format_version"], "1.0");
    assert_eq!(read["sender"], "qa");
    assert_eq!(read["receiver"], "dev");
    assert_eq!(read["timestamp"], "2025-06-27T15:30:00Z");
    assert_eq!(read["current_owner"], "dev");
    assert_eq!(
        read["body"],
        "管理员需要一次导入 200 个用户。\n\n*   支持 CSV\n*   支持 Excel"
    );
    let conversation = read["conversation"].as_array().unwrap();
    assert_eq!(conversation.len(), 2);
    assert_eq!(conversation[0]["from"], "dev");
    assert_eq!(conversation[0]["to"], "qa");
    assert_eq!(conversation[0]["type"], "DIS");
    assert_eq!(conversation[0]["body"], "CSV 需要哪些列？");
    assert_eq!(conversation[1]["body"], "name, email, role");
    let processing = read["processing"].as_array().unwrap();
    assert_eq!(
        processing.len(),
        2,
        "its own line, then the receipt of this read"
    );
    assert_eq!(processing[0]["timestamp"], "2025-06-27T17:00:00Z");
    assert_eq!(processing[0]["action"], "On Hold");
    assert_eq!(processing[0]["by"], "dev");
    assert_eq!(processing[0]["details"], "等待产品确认");
    assert_eq!(processing[1]["action"], "Read");

    // Found by its id and short id too, though the name carries neither.
    let by_id = t.read_json("dev", "inbox", "60bd0e69-5c1a-4b7e-9f00-0123456789ab");
    assert_eq!(by_id["file"], "batch import request.md");

    // It can be handled like any message: history kept, new line appended.
    t.as_agent("dev")
        .args(["resolved", "60bd0e69", "已上线"])
        .success();
    let done = t.read_json("dev", "done", "batch import request.md");
    assert_eq!(done["conversation"], read["conversation"]);
    let processing = done["processing"].as_array().unwrap();
    assert_eq!(processing.len(), 3);
    assert_eq!(processing[..2], read["processing"].as_array().unwrap()[..]);
    assert_eq!(processing[2]["action"], "Resolved");
    assert_eq!(processing[2]["details"], "已上线");
}

#[test]
fn a_foreign_file_keeps_its_unknown_fields_and_can_be_replied_to() {
    let t = Test::new().agents(["qa", "dev"]);
    // No Format Version (written before 7.1 added it), CRLF line ends, an unknown field.
    let text = "# BR: Login fails\r\n\r\n**Message ID:** 7f3a9c21-0000-4000-8000-000000000001\r\n\
        **Sender:** qa\r\n**Receiver:** dev\r\n**Timestamp:** 2025-07-01T08:00:00Z\r\n\
        **Original Sender:** qa\r\n**Current Owner:** dev\r\n**X-Tracker:** JIRA-42\r\n\r\n---\r\n\r\n\
        ## Original Request/Content\r\n\r\nSteps: open, click.\r\n\r\n---\r\n\r\n\
        ## Conversation History\r\n\r\n---\r\n\r\n## Processing History\r\n";
    t.put("dev", "inbox", "login.md", text);
    let read = t.read_json("dev", "inbox", "login.md");
    assert_eq!(read["id"], "7f3a9c21-0000-4000-8000-000000000001");
    assert_eq!(read["type"], "BR");
    assert_eq!(read["title"], "Login fails");
    assert_eq!(read["format_version"], "1.0");
    assert_eq!(read["current_owner"], "dev");
    assert_eq!(read["headers"]["X-Tracker"], "JIRA-42");
    assert_eq!(
        read["body"].as_str().unwrap().trim_end(),
        "Steps: open, click."
    );

    t.as_agent("dev")
        .args([
            "send",
            "qa",
            "DIS",
            "Which browser?",
            "--reply_to",
            "7f3a9c21",
        ])
        .success();
    assert!(t.files("dev", "inbox").is_empty());
    let moved = t.read_json("qa", "inbox", "login.md");
    assert_eq!(moved["headers"]["X-Tracker"], "JIRA-42");
    assert_eq!(moved["current_owner"], "qa");
    assert_eq!(moved["receiver"], "qa");
    assert_eq!(moved["sender"], "dev");
    assert_eq!(moved["conversation"][0]["body"], "Which browser?");
    assert_eq!(
        moved["body"].as_str().unwrap().trim_end(),
        "Steps: open, click."
    );
}

/// Files no listing may die on.
fn unreadable_files() -> Vec<(&'static str, Vec<u8>)> {
    let ours = {
        let mut file = HAND_WRITTEN.as_bytes().to_vec();
        file.truncate(60); // cut inside the header: half-written by a careless tool
        file
    };
    vec![
        (
            "garbage.md",
            b"just some notes\nno header at all\n".to_vec(),
        ),
        ("binary.md", vec![0xff, 0xfe, 0x00, 0x80, b'\n', 0xc3]),
        (
            "latin1.md",
            b"# ER: caf\xe9\n\n**Message ID:** 1\n\n---\n".to_vec(),
        ),
        ("empty.md", Vec::new()),
        ("blank.md", b"\n\n   \n".to_vec()),
        ("half.md", ours),
        (
            "no-id.md",
            b"# ER: title\n\n**Sender:** qa\n\n---\n".to_vec(),
        ),
        ("heading-only.md", b"# \n".to_vec()),
    ]
}

#[test]
fn unreadable_files_are_reported_and_skipped() {
    let t = Test::new().agents(["qa", "dev"]);
    let first = t.send("qa", "dev", "ER", "before");
    for (name, bytes) in unreadable_files() {
        t.put("dev", "inbox", name, bytes);
    }
    // A directory named like a message, and a huge header-less file.
    fs::create_dir(t.folder("dev", "inbox").join("dir.md")).unwrap();
    t.put("dev", "inbox", "huge.md", "x".repeat(1 << 20));
    let last = t.send("qa", "dev", "ER", "after");

    let (stdout, stderr) = t.as_agent("dev").args(["list", "inbox"]).expect_code(1);
    assert_eq!(stdout.lines().count(), 2, "{stdout}");
    assert!(
        stdout.contains(&first[..8]) && stdout.contains(&last[..8]),
        "{stdout}"
    );
    for (name, _) in unreadable_files() {
        assert!(stderr.contains(name), "{name} not reported:\n{stderr}");
    }
    assert!(stderr.contains("huge.md"), "{stderr}");
    assert!(!stderr.contains("panicked"), "{stderr}");

    // --json prints the readable messages and warns on stderr, with the same exit code.
    let (json, stderr) = t
        .as_agent("dev")
        .args(["--json", "list", "inbox"])
        .expect_code(1);
    let listed: serde_json::Value = serde_json::from_str(&json).unwrap();
    assert_eq!(listed["messages"].as_array().unwrap().len(), 2);
    let warnings = listed["warnings"].as_array().unwrap();
    // One warning per unreadable file, the huge one and the directory included.
    assert_eq!(warnings.len(), unreadable_files().len() + 2, "{listed}");
    for (name, _) in unreadable_files() {
        assert!(
            warnings.iter().any(|w| w.as_str().unwrap().contains(name)),
            "{name}: {listed}"
        );
    }
    assert!(stderr.contains("garbage.md"), "{stderr}");

    // Reading or resolving one fails with one sentence naming it; nothing panics, the file
    // stays where it was.
    for (name, _) in unreadable_files() {
        let err = t.as_agent("dev").args(["read", "inbox", name]).failure();
        assert!(
            err.contains(name) && err.starts_with("filebox: error:"),
            "{err}"
        );
        assert_eq!(err.trim_end().lines().count(), 1, "{err}");
        let err = t.as_agent("dev").args(["resolved", name, "x"]).failure();
        assert!(err.contains(name), "{err}");
        assert!(t.folder("dev", "inbox").join(name).exists());
    }
    // Other commands still work around them.
    t.as_agent("dev").args(["resolved", &first, "ok"]).success();
    t.as_agent("dev").args(["agents"]).success();
    assert!(
        t.files("dev", "tmp").is_empty(),
        "{:?}",
        t.files("dev", "tmp")
    );
}

#[test]
fn files_that_are_not_messages_are_ignored() {
    // Non-.md files and dot files (editor swap files) are not messages: ignored silently.
    let t = Test::new().agents(["qa", "dev"]);
    t.send("qa", "dev", "ER", "one");
    t.put("dev", "inbox", "notes.txt", "not a message");
    t.put("dev", "inbox", ".hidden.md", "editor swap");
    t.put("dev", "inbox", "x.md~", "backup");
    let (stdout, stderr) = t.as_agent("dev").args(["list", "inbox"]).expect_code(0);
    assert_eq!(stdout.lines().count(), 1);
    assert_eq!(stderr, "");
}
