//! The index against real mailbox folders: English and Chinese search, files changed behind
//! its back, and a deleted or damaged database.

use std::fs;

use super::{Index, Page, SearchQuery};
use crate::agent::AgentId;
use crate::folder::Folder;
use crate::mailbox::{Listing, Mailbox};
use crate::message::{Header, Message, MessageType, field, render};

fn mailbox() -> (tempfile::TempDir, Mailbox) {
    let dir = tempfile::tempdir().unwrap();
    let mailbox = Mailbox::open(AgentId::new("dev").unwrap(), dir.path().join("dev")).unwrap();
    (dir, mailbox)
}

/// Write a message file by hand, as another tool would.
fn put(mailbox: &Mailbox, folder: Folder, id: &str, title: &str, body: &str) -> String {
    let (name, text) = message_file(id, title, body);
    fs::write(mailbox.folder_path(folder).join(&name), text).unwrap();
    name
}

/// Deliver a message file as FileBox does (through the store, so in the folder's journal).
fn deliver(mailbox: &Mailbox, folder: Folder, id: &str, body: &str) -> String {
    let (name, text) = message_file(id, "t", body);
    crate::store::publish_new(
        &mailbox.tmp(),
        &mailbox.folder_path(folder),
        &name,
        text.as_bytes(),
    )
    .unwrap();
    name
}

/// A message file's name and text.
fn message_file(id: &str, title: &str, body: &str) -> (String, String) {
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
    (name, render(&message))
}

/// Set a folder's mtime (ns since the epoch), as if its last change were then.
fn set_mtime(mailbox: &Mailbox, folder: Folder, ns: i64) {
    let time = std::time::UNIX_EPOCH + std::time::Duration::from_nanos(ns as u64);
    fs::File::open(mailbox.folder_path(folder))
        .unwrap()
        .set_modified(time)
        .unwrap();
}

fn mtime(mailbox: &Mailbox, folder: Folder) -> i64 {
    crate::store::journal::mtime_ns(&fs::metadata(mailbox.folder_path(folder)).unwrap())
}

/// Let the folder's last change be an hour old and the index catch up with it: a listing then
/// trusts the mtime (a recent one is listed again by every sync).
fn settle(mailbox: &Mailbox, folder: Folder, index: &mut Index) {
    set_mtime(mailbox, folder, mtime(mailbox, folder) - 3_600_000_000_000);
    index.sync().unwrap();
}

fn folders_of(index: &mut Index, text: &str) -> Vec<(Folder, String)> {
    index.sync().unwrap();
    let query = SearchQuery {
        text: text.into(),
        limit: 0,
        ..SearchQuery::default()
    };
    let mut found: Vec<(Folder, String)> = index
        .search(&query)
        .unwrap()
        .into_iter()
        .map(|h| (h.folder, h.file))
        .collect();
    found.sort();
    found
}

#[test]
fn a_delivery_is_indexed_from_the_journal_without_listing_the_folder() {
    let (_dir, mb) = mailbox();
    put(&mb, Folder::Inbox, "aaaaaaaa-1", "t", "kiwi");
    let mut index = Index::open(&mb).unwrap();
    settle(&mb, Folder::Inbox, &mut index);
    // A file slipped in by hand without moving the folder's mtime: only a listing can see it.
    let seen = mtime(&mb, Folder::Inbox);
    put(&mb, Folder::Inbox, "bbbbbbbb-2", "t", "kiwi");
    set_mtime(&mb, Folder::Inbox, seen);
    deliver(&mb, Folder::Inbox, "cccccccc-3", "kiwi");
    deliver(&mb, Folder::Inbox, "dddddddd-4", "kiwi");
    // The deliveries are found; the slipped-in file is not: the folder was not listed.
    assert_eq!(
        ids(&mut index, "kiwi"),
        ["aaaaaaaa-1", "cccccccc-3", "dddddddd-4"]
    );
    // `reindex` lists every folder.
    let mut rebuilt = super::rebuild(&mb).unwrap();
    assert_eq!(
        ids(&mut rebuilt, "kiwi"),
        ["aaaaaaaa-1", "bbbbbbbb-2", "cccccccc-3", "dddddddd-4"]
    );
}

/// A rebuild right after a bulk import (the folder changed a moment ago) still records the
/// folder as current: the next command does not list it again.
#[test]
fn a_rebuild_right_after_an_import_records_the_folder_as_current() {
    let (_dir, mb) = mailbox();
    Index::open(&mb).unwrap();
    put(&mb, Folder::Inbox, "aaaaaaaa-1", "t", "kiwi");
    let rebuilt = super::rebuild(&mb).unwrap();
    let recorded: Option<i64> = rebuilt
        .conn
        .query_row("SELECT mtime FROM dirs WHERE folder = 'inbox'", [], |r| {
            r.get(0)
        })
        .unwrap();
    assert_eq!(recorded, Some(mtime(&mb, Folder::Inbox)));
}

#[test]
fn a_rebuild_empties_the_database_in_place_under_an_open_index() {
    use std::os::unix::fs::MetadataExt;
    let (_dir, mb) = mailbox();
    deliver(&mb, Folder::Inbox, "aaaaaaaa-1", "plum");
    let mut open_elsewhere = Index::open(&mb).unwrap();
    assert_eq!(ids(&mut open_elsewhere, "plum"), ["aaaaaaaa-1"]);
    let db = mb.state_dir().join("index.db");
    let inode = fs::metadata(&db).unwrap().ino();
    let mut rebuilt = super::rebuild(&mb).unwrap();
    // The same file, emptied and filled again: never deleted under the open connection.
    assert_eq!(fs::metadata(&db).unwrap().ino(), inode);
    assert_eq!(rebuilt.file_count().unwrap(), 1);
    deliver(&mb, Folder::Inbox, "bbbbbbbb-2", "plum");
    // The connection opened before the rebuild keeps working and sees what came after.
    assert_eq!(
        ids(&mut open_elsewhere, "plum"),
        ["aaaaaaaa-1", "bbbbbbbb-2"]
    );
    assert_eq!(ids(&mut rebuilt, "plum"), ["aaaaaaaa-1", "bbbbbbbb-2"]);
}

#[test]
fn changes_the_journal_does_not_explain_make_the_next_sync_list_the_folder() {
    let (_dir, mb) = mailbox();
    let mut index = Index::open(&mb).unwrap();
    let inbox = mb.folder_path(Folder::Inbox);
    let at = |name: &str| (Folder::Inbox, name.to_owned());
    let doomed = put(&mb, Folder::Inbox, "aaaaaaaa-1", "t", "plum");
    let moved = put(&mb, Folder::Inbox, "bbbbbbbb-2", "t", "plum");
    settle(&mb, Folder::Inbox, &mut index);

    // Between two deliveries: a file deleted by hand, one renamed by hand, and one written by
    // hand under an old-looking name (older than everything indexed).
    let first = deliver(&mb, Folder::Inbox, "cccccccc-3", "plum");
    fs::remove_file(inbox.join(&doomed)).unwrap();
    fs::rename(inbox.join(&moved), inbox.join("renamed.md")).unwrap();
    let old = "19990101T000000-ER-old-eeeeeeee.md";
    fs::write(inbox.join(old), message_file("eeeeeeee-5", "t", "plum").1).unwrap();
    let second = deliver(&mb, Folder::Inbox, "dddddddd-4", "plum");
    assert_eq!(
        folders_of(&mut index, "plum"),
        [at(old), at(&first), at(&second), at("renamed.md")]
    );

    // A writer killed between its change and its journal line: a file linked unrecorded.
    settle(&mb, Folder::Inbox, &mut index);
    deliver(&mb, Folder::Inbox, "ffffffff-6", "plum");
    let unrecorded = message_file("99999999-9", "t", "plum");
    fs::write(inbox.join(&unrecorded.0), unrecorded.1).unwrap();
    assert_eq!(folders_of(&mut index, "plum").len(), 6);

    // A torn journal line, and a deleted journal.
    settle(&mb, Folder::Inbox, &mut index);
    let journal = mb.state_dir().join("changes.inbox");
    fs::OpenOptions::new()
        .append(true)
        .open(&journal)
        .and_then(|mut f| std::io::Write::write_all(&mut f, b"123\t45"))
        .unwrap();
    fs::remove_file(inbox.join(old)).unwrap();
    deliver(&mb, Folder::Inbox, "12121212-7", "plum");
    assert_eq!(folders_of(&mut index, "plum").len(), 6);
    settle(&mb, Folder::Inbox, &mut index);
    fs::remove_file(&journal).unwrap();
    fs::remove_file(inbox.join("renamed.md")).unwrap();
    deliver(&mb, Folder::Inbox, "13131313-8", "plum");
    assert_eq!(folders_of(&mut index, "plum").len(), 6);
}

#[test]
fn a_message_moved_between_folders_is_found_where_it_went() {
    let (_dir, mb) = mailbox();
    let mut index = Index::open(&mb).unwrap();
    for folder in Folder::ALL {
        settle(&mb, folder, &mut index);
    }
    let name = deliver(&mb, Folder::Inbox, "aaaaaaaa-1", "fig");
    assert_eq!(
        folders_of(&mut index, "fig"),
        [(Folder::Inbox, name.clone())]
    );
    // Resolved: claimed out of inbox/, published into done/, both through the store.
    let destination = crate::store::Destination {
        tmp: mb.tmp(),
        dir: mb.folder_path(Folder::Done),
        name: name.clone(),
    };
    crate::store::move_message(
        &mb.tmp(),
        &mb.folder_path(Folder::Inbox).join(&name),
        &[destination],
        |bytes| Ok(vec![bytes.to_vec()]),
    )
    .unwrap();
    assert_eq!(
        folders_of(&mut index, "fig"),
        [(Folder::Done, name.clone())]
    );
    // Rewritten in place (a new inode under the same name), then moved back by hand.
    crate::store::rewrite_in_place(&mb.tmp(), &mb.folder_path(Folder::Done).join(&name), |b| {
        Ok(String::from_utf8_lossy(b)
            .replace("fig", "date")
            .into_bytes())
    })
    .unwrap();
    assert!(folders_of(&mut index, "fig").is_empty());
    assert_eq!(
        folders_of(&mut index, "date"),
        [(Folder::Done, name.clone())]
    );
    fs::rename(
        mb.folder_path(Folder::Done).join(&name),
        mb.folder_path(Folder::Inbox).join(&name),
    )
    .unwrap();
    assert_eq!(folders_of(&mut index, "date"), [(Folder::Inbox, name)]);
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
fn a_kept_index_is_opened_again_when_its_database_is_replaced() {
    let (_dir, mb) = mailbox();
    put(&mb, Folder::Inbox, "aaaaaaaa-1", "t", "kiwi");
    let search = |word: &str| {
        let query = SearchQuery {
            text: word.into(),
            ..SearchQuery::default()
        };
        super::with_index(&mb, |index| index.search(&query))
            .unwrap()
            .into_iter()
            .map(|hit| hit.id)
            .collect::<Vec<_>>()
    };
    assert_eq!(search("kiwi"), ["aaaaaaaa-1"]);
    let db = mb.state_dir().join("index.db");
    assert!(super::kept::kept_now(&db).1);
    // Deleted: a look-up has no index to use, though a connection to the old file is kept.
    super::remove_database(&db).unwrap();
    assert!(super::with_existing(&mb, |_| Ok(())).unwrap().is_none());
    // Made again by another process: the kept connection is not used on the deleted file.
    drop(Index::open(&mb).unwrap());
    put(&mb, Folder::Inbox, "bbbbbbbb-2", "t", "plum");
    assert_eq!(search("plum"), ["bbbbbbbb-2"]);
    assert!(super::kept::kept_now(&db).1);
}

#[test]
fn at_most_a_few_indexes_are_kept_open() {
    let dir = tempfile::tempdir().unwrap();
    for n in 0..super::kept::KEPT + 3 {
        let agent = AgentId::new(&format!("a{n}")).unwrap();
        let mb = Mailbox::open(agent, dir.path().join(format!("a{n}"))).unwrap();
        super::with_index(&mb, |_| Ok(())).unwrap();
        let (count, kept) = super::kept::kept_now(&mb.state_dir().join("index.db"));
        assert!(kept);
        assert!(count <= super::kept::KEPT, "{count} kept");
    }
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

/// The listing the index serves, which must be there, and the same as reading the files.
fn served_as_read(mailbox: &Mailbox, folder: Folder) -> usize {
    let served = super::listing::from_index(mailbox, folder)
        .unwrap()
        .expect("the index is current: the listing is served from it");
    let read = mailbox.list(folder).unwrap();
    assert_eq!(
        format!("{:?}", served.messages),
        format!("{:?}", read.messages)
    );
    assert_eq!(
        format!("{:?}", served.problems),
        format!("{:?}", read.problems)
    );
    assert_eq!(
        format!("{:?}", super::list(mailbox, folder).unwrap().messages),
        format!("{:?}", read.messages)
    );
    pages_are_the_listings_pages(mailbox, folder, &read);
    served.messages.len()
}

/// Every page from the index, either order, is the same slice of the whole listing, with its
/// total and problems.
fn pages_are_the_listings_pages(mailbox: &Mailbox, folder: Folder, read: &Listing) {
    let oldest_first = format_each(&read.messages);
    let newest_first: Vec<String> = oldest_first.iter().rev().cloned().collect();
    for (order, whole) in [(false, &oldest_first), (true, &newest_first)] {
        for limit in [1, 2, 3, 50] {
            for offset in 0..=whole.len() + 1 {
                let page = Page {
                    offset,
                    limit,
                    newest_first: order,
                };
                let served = super::page(mailbox, folder, &page)
                    .unwrap()
                    .expect("the index is current: the page is served from it");
                let want: Vec<String> = whole.iter().skip(offset).take(limit).cloned().collect();
                assert_eq!(format_each(&served.messages), want, "{page:?}");
                assert_eq!(served.total, whole.len(), "{page:?}");
                assert_eq!(
                    format!("{:?}", served.problems),
                    format!("{:?}", read.problems)
                );
            }
        }
    }
}

fn format_each(messages: &[crate::mailbox::Envelope]) -> Vec<String> {
    messages.iter().map(|m| format!("{m:?}")).collect()
}

#[test]
fn a_listing_from_the_index_is_the_listing_from_the_files() {
    let (_dir, mb) = mailbox();
    let inbox = mb.folder_path(Folder::Inbox);
    // No index yet: a listing reads the files and builds none.
    assert!(
        super::listing::from_index(&mb, Folder::Inbox)
            .unwrap()
            .is_none()
    );
    assert!(!mb.state_dir().join("index.db").exists());
    for n in 0..5 {
        deliver(&mb, Folder::Inbox, &format!("{n:08}-1"), "delivered");
    }
    let whole = put(&mb, Folder::Inbox, "aaaaaaaa-1", "Whole", "a body");
    // A damaged copy of it (cut in its header), a file that is no message, a header whose
    // body is damaged, and two files of one second (listed in the order written).
    let text = fs::read_to_string(inbox.join(&whole)).unwrap();
    fs::write(
        inbox.join("20250627T153000-ER-cut-aaaaaaaa.md"),
        &text[..40],
    )
    .unwrap();
    fs::write(inbox.join("notes.md"), "just some notes\n").unwrap();
    fs::write(
        inbox.join("20250627T153001-ER-odd-bbbbbbbb.md"),
        text.replace("aaaaaaaa-1", "bbbbbbbb-2") + "\n### not a valid entry\n",
    )
    .unwrap();
    put(&mb, Folder::Inbox, "cccccccc-3", "Request 10", "x");
    put(&mb, Folder::Inbox, "dddddddd-4", "Request 2", "x");
    // Duplicates: a later copy of one message (it stands where the first copy stands, as the
    // most complete) and a copy of another in the same second under another name.
    let (_, copy) = message_file("cccccccc-3", "Request 10", "x\n\nwith more words");
    fs::write(inbox.join("20250627T153002-ER-copy-cccccccc.md"), copy).unwrap();
    let (_, copy) = message_file("dddddddd-4", "Request 2", "x");
    fs::write(inbox.join("20250627T153000-ER-again-dddddddd.md"), copy).unwrap();
    let mut index = Index::open(&mb).unwrap();
    settle(&mb, Folder::Inbox, &mut index);
    drop(index);
    let listed = served_as_read(&mb, Folder::Inbox);
    assert_eq!(listed, 9);
    assert_eq!(mb.list(Folder::Inbox).unwrap().problems.len(), 2);

    // Edited in place by hand after indexing: same inode, same size, new words.
    let edited = inbox.join(&whole);
    let ino = std::os::unix::fs::MetadataExt::ino(&fs::metadata(&edited).unwrap());
    let same_size = text.replace("Whole", "Wh0le");
    fs::OpenOptions::new()
        .write(true)
        .open(&edited)
        .and_then(|mut f| std::io::Write::write_all(&mut f, same_size.as_bytes()))
        .unwrap();
    assert_eq!(
        std::os::unix::fs::MetadataExt::ino(&fs::metadata(&edited).unwrap()),
        ino
    );
    served_as_read(&mb, Folder::Inbox);
    assert!(
        format!("{:?}", mb.list(Folder::Inbox).unwrap().messages).contains("Wh0le"),
        "the edit is listed"
    );

    // A stale index: a file written by hand just now (its folder's mtime too recent to trust
    // after the listing that catches up): the files are read, with the same result.
    put(&mb, Folder::Inbox, "eeeeeeee-5", "Late", "x");
    assert!(
        super::listing::from_index(&mb, Folder::Inbox)
            .unwrap()
            .is_none()
    );
    assert_eq!(
        format!("{:?}", super::list(&mb, Folder::Inbox).unwrap().messages),
        format!("{:?}", mb.list(Folder::Inbox).unwrap().messages)
    );
    // Once settled, and after a delivery caught up from the journal, served again.
    settle(&mb, Folder::Inbox, &mut Index::open(&mb).unwrap());
    deliver(&mb, Folder::Inbox, "ffffffff-6", "delivered");
    assert_eq!(served_as_read(&mb, Folder::Inbox), 11);

    // A folder entry a listing skips (a symlink): the files are read.
    std::os::unix::fs::symlink(&edited, inbox.join("link.md")).unwrap();
    settle(&mb, Folder::Inbox, &mut Index::open(&mb).unwrap());
    assert!(
        super::listing::from_index(&mb, Folder::Inbox)
            .unwrap()
            .is_none()
    );
    assert_eq!(
        format!("{:?}", super::list(&mb, Folder::Inbox).unwrap().problems),
        format!("{:?}", mb.list(Folder::Inbox).unwrap().problems)
    );
}

#[test]
fn the_write_ahead_log_outlives_a_connection_and_is_emptied_when_large() {
    let (_dir, mb) = mailbox();
    let wal = mb.state_dir().join("index.db-wal");
    let wal_len = || fs::metadata(&wal).map_or(0, |m| m.len());
    put(&mb, Folder::Inbox, "aaaaaaaa-1", "t", "kiwi");
    drop(Index::open(&mb).unwrap());
    // Closing did not checkpoint: the next process reads the index from the log.
    assert!(wal_len() > 0);
    assert_eq!(ids(&mut Index::open(&mb).unwrap(), "kiwi"), ["aaaaaaaa-1"]);
    // A sync that writes more than the limit leaves the log emptied into the database.
    for n in 0..200 {
        let body: String = (0..3_000).map(|w| format!("w{n}x{w} ")).collect();
        put(&mb, Folder::Inbox, &format!("{n:08}-big"), "t", &body);
    }
    drop(Index::open(&mb).unwrap());
    assert!(wal_len() < super::WAL_LIMIT, "{} bytes of log", wal_len());
    assert_eq!(
        ids(&mut Index::open(&mb).unwrap(), "w7x2999"),
        ["00000007-big"]
    );
}

#[test]
fn a_message_is_found_by_its_short_id_through_the_index_when_it_is_current() {
    use crate::mailbox::MessageRef;
    let (_dir, mb) = mailbox();
    let inbox = mb.folder_path(Folder::Inbox);
    put(&mb, Folder::Inbox, "aaaaaaaa-1", "Named", "x");
    // Named by another tool (no short id in the name), and a name whose short id lies.
    let (_, text) = message_file("bbbbbbbb-2", "Foreign", "x");
    fs::write(inbox.join("from-another-tool.md"), text).unwrap();
    let (_, text) = message_file("cccccccc-3", "Liar", "x");
    fs::write(inbox.join("20250627T153000-ER-liar-bbbbbbbb.md"), text).unwrap();
    let short = |s: &str| MessageRef::parse(s).unwrap();
    // No index yet: the folder is listed, and nothing is built.
    assert_eq!(super::with_short(&mb, Folder::Inbox, "bbbbbbbb"), None);
    assert!(!mb.state_dir().join("index.db").exists());
    let found = |r: &str| {
        mb.find(&short(r), &[Folder::Inbox])
            .map(|e| e.file.to_string())
    };
    assert_eq!(found("bbbbbbbb").unwrap(), "from-another-tool.md");

    settle(&mb, Folder::Inbox, &mut Index::open(&mb).unwrap());
    // The index names the candidates by the header's id, whatever the file is called.
    let names = |s: &str| {
        super::with_short(&mb, Folder::Inbox, s)
            .expect("the index is current")
            .iter()
            .map(|n| n.to_string())
            .collect::<Vec<_>>()
    };
    assert_eq!(names("bbbbbbbb"), ["from-another-tool.md"]);
    assert_eq!(names("cccccccc"), ["20250627T153000-ER-liar-bbbbbbbb.md"]);
    assert!(names("dddddddd").is_empty());
    assert_eq!(found("bbbbbbbb").unwrap(), "from-another-tool.md");
    assert_eq!(
        found("cccccccc-3").unwrap(),
        "20250627T153000-ER-liar-bbbbbbbb.md"
    );
    assert_eq!(
        found("aaaaaaaa").unwrap(),
        "20250627T153000-ER-x-aaaaaaaa.md"
    );
    assert!(matches!(
        mb.find(&short("dddddddd"), &[Folder::Inbox]),
        Err(crate::error::Error::NotFound { .. })
    ));

    // A file written by hand since: the index is not current, the folder is listed.
    put(&mb, Folder::Inbox, "dddddddd-4", "Late", "x");
    assert_eq!(super::with_short(&mb, Folder::Inbox, "dddddddd"), None);
    assert_eq!(
        found("dddddddd").unwrap(),
        "20250627T153000-ER-x-dddddddd.md"
    );
}

#[test]
fn threads_are_the_most_recently_active_first_with_their_counts() {
    let (_dir, mb) = mailbox();
    // (id, thread, in reply to, minute): thread a is the oldest but answered last.
    let messages = [
        ("aaaaaaaa-1", "aaaaaaaa-1", None, 1),
        ("bbbbbbbb-1", "bbbbbbbb-1", None, 2),
        ("cccccccc-1", "cccccccc-1", None, 3),
        ("cccccccc-2", "cccccccc-1", Some("cccccccc-1"), 4),
        ("aaaaaaaa-2", "aaaaaaaa-1", Some("aaaaaaaa-1"), 5),
        ("aaaaaaaa-3", "aaaaaaaa-1", Some("aaaaaaaa-2"), 6),
    ];
    for (id, thread, parent, minute) in messages {
        let mut header = Header::new(&MessageType::new("ER").unwrap(), &format!("about {thread}"));
        let at = format!("2025-06-27T15:{minute:02}:00Z");
        for (k, v) in [
            (field::MESSAGE_ID, id),
            (field::SENDER, "qa"),
            (field::RECEIVER, "dev"),
            (field::TIMESTAMP, at.as_str()),
            (field::THREAD_ID, thread),
        ] {
            header.set(k, v);
        }
        if let Some(parent) = parent {
            header.set(field::IN_REPLY_TO, parent);
        }
        let message = Message {
            header,
            body: "x".into(),
            conversation: Vec::new(),
            processing: Vec::new(),
        };
        let name = format!("20250627T15{minute:02}00-ER-x-{}.md", &id[..8]);
        fs::write(mb.folder_path(Folder::Inbox).join(name), render(&message)).unwrap();
    }
    let index = Index::open(&mb).unwrap();
    let summary = |limit| {
        index
            .threads(limit)
            .unwrap()
            .into_iter()
            .map(|t| (t.thread, t.messages, t.title))
            .collect::<Vec<_>>()
    };
    let all = [
        ("aaaaaaaa-1".to_owned(), 3, "about aaaaaaaa-1".to_owned()),
        ("cccccccc-1".to_owned(), 2, "about cccccccc-1".to_owned()),
        ("bbbbbbbb-1".to_owned(), 1, "about bbbbbbbb-1".to_owned()),
    ];
    assert_eq!(summary(0), all);
    assert_eq!(summary(2), all[..2]);
    assert_eq!(summary(1), all[..1]);
}

#[test]
fn a_catch_up_gives_back_the_larger_cache_it_ran_with() {
    let (_dir, mailbox) = mailbox();
    for n in 0..20 {
        deliver(
            &mailbox,
            Folder::Inbox,
            &format!("{n:08x}-0000-4000-8000-000000000000"),
            "hello",
        );
    }
    let index = Index::open(&mailbox).unwrap();
    let query = SearchQuery {
        text: "hello".into(),
        ..SearchQuery::default()
    };
    assert_eq!(index.search(&query).unwrap().len(), 20);
    // A process holding many indexes open (the hub) keeps the small cache of each.
    let cache: i64 = index
        .conn
        .query_row("PRAGMA cache_size", [], |r| r.get(0))
        .unwrap();
    assert_eq!(cache, -super::CACHE_KIB);
}
