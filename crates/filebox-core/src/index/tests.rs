//! The index against real mailbox folders: English and Chinese search, files changed behind
//! its back, and a deleted or damaged database.

use std::fs;

use super::{Index, SearchQuery};
use crate::agent::AgentId;
use crate::folder::Folder;
use crate::mailbox::Mailbox;
use crate::message::{Header, Message, MessageType, field, render};

fn mailbox() -> (tempfile::TempDir, Mailbox) {
    let dir = tempfile::tempdir().unwrap();
    let mailbox = Mailbox::open(AgentId::new("dev").unwrap(), dir.path().join("dev")).unwrap();
    (dir, mailbox)
}

/// Write a message file by hand, as another tool would.
fn put(mailbox: &Mailbox, folder: Folder, id: &str, title: &str, body: &str) -> String {
    let mut header = Header::new(&MessageType::new("ER").unwrap(), title);
    for (k, v) in [
        (field::MESSAGE_ID, id),
        (field::SENDER, "qa"),
        (field::RECEIVER, "dev"),
        (field::TIMESTAMP, "2025-06-27T15:30:00Z"),
    ] {
        header.set(k, v);
    }
    let message = Message {
        header,
        body: body.into(),
        conversation: Vec::new(),
        processing: Vec::new(),
    };
    let name = format!("20250627T153000-ER-x-{}.md", &id[..8]);
    fs::write(mailbox.folder_path(folder).join(&name), render(&message)).unwrap();
    name
}

fn ids(index: &mut Index, text: &str) -> Vec<String> {
    index.sync().unwrap();
    let query = SearchQuery {
        text: text.into(),
        ..SearchQuery::default()
    };
    let mut ids: Vec<String> = index
        .search(&query)
        .unwrap()
        .into_iter()
        .map(|h| h.id)
        .collect();
    ids.sort();
    ids
}

#[test]
fn finds_english_and_chinese_words() {
    let (_dir, mb) = mailbox();
    put(
        &mb,
        Folder::Inbox,
        "aaaaaaaa-1",
        "Batch import",
        "Users want a CSV import.",
    );
    put(
        &mb,
        Folder::Done,
        "bbbbbbbb-2",
        "用户管理模块",
        "增加批量导入功能，支持Excel文件。",
    );
    put(
        &mb,
        Folder::Outbox,
        "cccccccc-3",
        "Unrelated",
        "登录页面的样式",
    );
    let mut index = Index::open(&mb).unwrap();
    assert_eq!(ids(&mut index, "csv"), ["aaaaaaaa-1"]);
    assert_eq!(ids(&mut index, "IMPORT batch"), ["aaaaaaaa-1"]);
    assert_eq!(ids(&mut index, "导入"), ["bbbbbbbb-2"]);
    assert_eq!(ids(&mut index, "批量导入"), ["bbbbbbbb-2"]);
    assert_eq!(ids(&mut index, "用户"), ["bbbbbbbb-2"]);
    assert_eq!(ids(&mut index, "excel"), ["bbbbbbbb-2"]);
    assert_eq!(ids(&mut index, "面"), ["cccccccc-3"]);
    assert!(ids(&mut index, "导出").is_empty());
    assert!(
        ids(&mut index, "户导").is_empty(),
        "characters that are not neighbours"
    );
    let hits = index
        .search(&SearchQuery {
            text: "批量".into(),
            ..SearchQuery::default()
        })
        .unwrap();
    assert!(hits[0].snippet.contains("批量导入"), "{}", hits[0].snippet);
    assert_eq!(hits[0].folder, Folder::Done);
}

#[test]
fn files_changed_behind_its_back_are_seen_by_the_next_query() {
    let (_dir, mb) = mailbox();
    let mut index = Index::open(&mb).unwrap();
    assert!(ids(&mut index, "zebra").is_empty());
    let name = put(&mb, Folder::Inbox, "aaaaaaaa-1", "t", "a zebra");
    assert_eq!(ids(&mut index, "zebra"), ["aaaaaaaa-1"]);
    // Moved to another folder by hand.
    fs::rename(
        mb.folder_path(Folder::Inbox).join(&name),
        mb.folder_path(Folder::Hold).join(&name),
    )
    .unwrap();
    index.sync().unwrap();
    let hits = index
        .search(&SearchQuery {
            text: "zebra".into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].folder, Folder::Hold);
    // Replaced by a new version (a rename, as the store does).
    let tmp = mb.root().join("x.md");
    fs::write(
        &tmp,
        render(
            &crate::message::parse(
                &fs::read_to_string(mb.folder_path(Folder::Hold).join(&name))
                    .unwrap()
                    .replace("a zebra", "a giraffe"),
            )
            .unwrap(),
        ),
    )
    .unwrap();
    fs::rename(&tmp, mb.folder_path(Folder::Hold).join(&name)).unwrap();
    assert!(ids(&mut index, "zebra").is_empty());
    assert_eq!(ids(&mut index, "giraffe"), ["aaaaaaaa-1"]);
    // Renamed by hand within its folder: same inode, new name.
    let renamed = "renamed by hand.md";
    fs::rename(
        mb.folder_path(Folder::Hold).join(&name),
        mb.folder_path(Folder::Hold).join(renamed),
    )
    .unwrap();
    index.sync().unwrap();
    let hits = index
        .search(&SearchQuery {
            text: "giraffe".into(),
            ..Default::default()
        })
        .unwrap();
    assert_eq!(hits.len(), 1);
    assert_eq!(hits[0].file, renamed);
    // Deleted.
    fs::remove_file(mb.folder_path(Folder::Hold).join(renamed)).unwrap();
    assert!(ids(&mut index, "giraffe").is_empty());
}

#[test]
fn a_deleted_or_damaged_database_is_rebuilt() {
    let (_dir, mb) = mailbox();
    put(&mb, Folder::Inbox, "aaaaaaaa-1", "t", "kiwi");
    drop(Index::open(&mb).unwrap());
    let db = mb.state_dir().join("index.db");
    super::remove_database(&db).unwrap();
    assert_eq!(ids(&mut Index::open(&mb).unwrap(), "kiwi"), ["aaaaaaaa-1"]);
    super::remove_database(&db).unwrap();
    fs::write(&db, b"this is not a database").unwrap();
    assert_eq!(ids(&mut Index::open(&mb).unwrap(), "kiwi"), ["aaaaaaaa-1"]);
}

#[test]
fn an_index_that_cannot_be_opened_for_another_reason_is_left_alone() {
    let (_dir, mb) = mailbox();
    put(&mb, Folder::Inbox, "aaaaaaaa-1", "t", "kiwi");
    drop(Index::open(&mb).unwrap());
    let db = mb.state_dir().join("index.db");
    let before = fs::read(&db).unwrap();
    // SQLite cannot open the write-ahead log (as with a permission problem or too many open
    // files): an error to report, not a damaged file to delete under other processes.
    let wal = mb.state_dir().join("index.db-wal");
    let _ = fs::remove_file(&wal);
    fs::create_dir(&wal).unwrap();
    let error = Index::open(&mb).err().expect("the open fails");
    assert!(matches!(error, crate::Error::Index { .. }), "{error}");
    assert_eq!(fs::read(&db).unwrap(), before);
    fs::remove_dir(&wal).unwrap();
    assert_eq!(ids(&mut Index::open(&mb).unwrap(), "kiwi"), ["aaaaaaaa-1"]);
}

#[test]
fn a_database_of_another_schema_version_is_rebuilt() {
    let (_dir, mb) = mailbox();
    put(&mb, Folder::Inbox, "aaaaaaaa-1", "t", "kiwi");
    drop(Index::open(&mb).unwrap());
    let db = mb.state_dir().join("index.db");
    let conn = rusqlite::Connection::open(&db).unwrap();
    conn.pragma_update(None, "user_version", super::SCHEMA_VERSION + 1)
        .unwrap();
    drop(conn);
    assert_eq!(ids(&mut Index::open(&mb).unwrap(), "kiwi"), ["aaaaaaaa-1"]);
}

#[test]
fn one_hit_per_message_and_unreadable_files_are_skipped() {
    let (_dir, mb) = mailbox();
    put(&mb, Folder::Inbox, "aaaaaaaa-1", "t", "mango");
    put(&mb, Folder::Outbox, "aaaaaaaa-1", "t", "mango");
    fs::write(
        mb.folder_path(Folder::Inbox).join("junk.md"),
        "mango, but no header",
    )
    .unwrap();
    let mut index = Index::open(&mb).unwrap();
    assert_eq!(ids(&mut index, "mango"), ["aaaaaaaa-1"]);
    assert_eq!(index.file_count().unwrap(), 2);
}

/// Write a message sent at `timestamp` (ISO form).
fn put_at(mailbox: &Mailbox, id: &str, timestamp: &str, body: &str) {
    let name = put(mailbox, Folder::Inbox, id, "t", body);
    let path = mailbox.folder_path(Folder::Inbox).join(name);
    let text = fs::read_to_string(&path)
        .unwrap()
        .replace("2025-06-27T15:30:00Z", timestamp);
    fs::write(path, text).unwrap();
}

#[test]
fn newest_activity_first_whatever_the_order_files_were_indexed_in() {
    let (_dir, mb) = mailbox();
    put_at(&mb, "aaaaaaaa-1", "2025-03-01T00:00:00Z", "kiwi");
    put_at(&mb, "bbbbbbbb-2", "2025-01-01T00:00:00Z", "kiwi");
    let mut index = Index::open(&mb).unwrap();
    // Indexed later, but active earlier or later than the others.
    put_at(&mb, "cccccccc-3", "2024-12-31T23:59:59Z", "kiwi");
    put_at(&mb, "dddddddd-4", "2025-06-01T00:00:00Z", "kiwi");
    put_at(&mb, "eeeeeeee-5", "not a time", "kiwi");
    index.sync().unwrap();
    let search = |text: &str, limit: usize, since: Option<&str>| -> Vec<String> {
        index
            .search(&SearchQuery {
                text: text.into(),
                limit,
                since: since.map(str::to_owned),
                ..SearchQuery::default()
            })
            .unwrap()
            .into_iter()
            .map(|h| h.id)
            .collect()
    };
    let newest_first = [
        "dddddddd-4",
        "aaaaaaaa-1",
        "bbbbbbbb-2",
        "cccccccc-3",
        "eeeeeeee-5",
    ];
    assert_eq!(search("kiwi", 0, None), newest_first);
    assert_eq!(search("", 0, None), newest_first);
    assert_eq!(search("kiwi", 2, None), newest_first[..2]);
    assert_eq!(search("", 2, None), newest_first[..2]);
    let since = Some("2025-01-01T00:00:00Z");
    assert_eq!(search("kiwi", 0, since), newest_first[..3]);
    assert_eq!(search("", 0, since), newest_first[..3]);
}

#[test]
fn searches_walk_rowid_order_instead_of_sorting_every_match() {
    let (_dir, mb) = mailbox();
    let index = Index::open(&mb).unwrap();
    for query in [
        SearchQuery {
            text: "common words".into(),
            limit: 20,
            ..SearchQuery::default()
        },
        SearchQuery {
            text: "用户".into(),
            from: Some("qa".into()),
            since: Some("2025-01-01T00:00:00Z".into()),
            limit: 20,
            ..SearchQuery::default()
        },
        SearchQuery {
            kind: Some("ER".into()),
            limit: 20,
            ..SearchQuery::default()
        },
    ] {
        let (sql, values) = super::query::search_sql(&query);
        let mut plan = index
            .conn
            .prepare(&format!("EXPLAIN QUERY PLAN {sql}"))
            .unwrap();
        let steps: Vec<String> = plan
            .query_map(rusqlite::params_from_iter(values), |r| r.get(3))
            .unwrap()
            .collect::<rusqlite::Result<_>>()
            .unwrap();
        assert!(
            !steps.iter().any(|s| s.contains("TEMP B-TREE")),
            "{query:?}: {steps:?}"
        );
    }
}
