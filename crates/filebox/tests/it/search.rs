//! `search`, `reindex` and `status`: the derived index found every message a listing shows,
//! in English and Chinese, and follows files written behind its back.

use serde_json::Value;

use crate::support::Test;

fn hits(t: &Test, agent: &str, args: &[&str]) -> Vec<Value> {
    let out = t
        .as_agent(agent)
        .args(["--json", "search"])
        .args(args)
        .success();
    serde_json::from_str::<Value>(&out).expect("search --json")["hits"]
        .as_array()
        .expect("search --json has hits")
        .to_vec()
}

fn ids(hits: &[Value]) -> Vec<String> {
    let mut ids: Vec<String> = hits
        .iter()
        .map(|h| h["id"].as_str().unwrap().to_owned())
        .collect();
    ids.sort();
    ids
}

#[test]
fn finds_english_and_chinese_in_every_folder() {
    let t = Test::new().agents(["qa", "dev"]);
    let en = t.send(
        "qa",
        "dev",
        "ER",
        "Batch import\n\nUsers want to import CSV files.",
    );
    let zh = t.send(
        "qa",
        "dev",
        "BR",
        "新功能请求：用户管理模块增加批量导入功能",
    );
    t.as_agent("dev").args(["resolved", &zh, "done"]).success();

    assert_eq!(ids(&hits(&t, "dev", &["csv"])), [en.clone()]);
    assert_eq!(ids(&hits(&t, "dev", &["导入"])), [zh.clone()]);
    assert_eq!(ids(&hits(&t, "dev", &["用户管"])), [zh.clone()]);
    assert!(hits(&t, "dev", &["导出"]).is_empty());
    let hit = &hits(&t, "dev", &["批量"])[0];
    for key in ["id", "file", "folder", "title", "snippet", "status"] {
        assert!(hit.get(key).is_some(), "{key} in {hit}");
    }
    assert_eq!(hit["folder"], "done");
    assert_eq!(hit["status"], "replied");
    assert!(hit["snippet"].as_str().unwrap().contains("批量导入"));
    // The sender finds its outbox copies.
    assert_eq!(ids(&hits(&t, "qa", &["import"])), [en.clone()]);
    // Filters.
    assert_eq!(ids(&hits(&t, "dev", &["", "--type", "BR"])), [zh.clone()]);
    assert_eq!(
        ids(&hits(&t, "dev", &["", "--folder", "inbox"])),
        [en.clone()]
    );
    assert_eq!(hits(&t, "dev", &["", "--from", "qa"]).len(), 2);
    assert!(hits(&t, "dev", &["", "--from", "dev"]).is_empty());
    assert!(hits(&t, "dev", &["", "--since", "2999-01-01"]).is_empty());
    assert_eq!(hits(&t, "dev", &["", "--since", "2000-01-01"]).len(), 2);
    assert_eq!(hits(&t, "dev", &["", "--limit", "1"]).len(), 1);
    // Text output: one hit per entry with its snippet.
    let text = t.as_agent("dev").args(["search", "csv"]).success();
    assert!(text.contains("inbox") && text.contains("CSV"), "{text}");
}

#[test]
fn all_searches_every_mailbox() {
    let t = Test::new().agents(["qa", "dev", "pm"]);
    let id = t.send("dev", "pm", "DIS", "kiwi plan");
    let everywhere = hits(&t, "qa", &["kiwi", "--all"]);
    let mut places: Vec<String> = everywhere
        .iter()
        .map(|h| {
            format!(
                "{}/{}",
                h["mailbox"].as_str().unwrap(),
                h["folder"].as_str().unwrap()
            )
        })
        .collect();
    places.sort();
    assert_eq!(places, ["dev/outbox", "pm/inbox"]);
    assert!(everywhere.iter().all(|h| h["id"] == id.as_str()));
    assert!(hits(&t, "qa", &["kiwi"]).is_empty());
}

#[test]
fn the_index_is_derived_and_never_stale() {
    let t = Test::new().agents(["qa", "dev"]);
    let first = t.send("qa", "dev", "ER", "mango one");
    assert_eq!(ids(&hits(&t, "dev", &["mango"])), [first.clone()]);
    // Written by hand while no filebox process ran.
    let text = std::fs::read_to_string(t.folder("dev", "inbox").join(&t.files("dev", "inbox")[0]))
        .unwrap()
        .replace(&first, "abcdef12-hand-written")
        .replace("mango one", "mango two");
    t.put(
        "dev",
        "inbox",
        "20250101T000000-ER-by-hand-abcdef12.md",
        text,
    );
    let found = hits(&t, "dev", &["mango"]);
    assert_eq!(found.len(), 2, "{found:?}");
    // Moved by hand: found in its new folder, never twice.
    std::fs::rename(
        t.folder("dev", "inbox")
            .join("20250101T000000-ER-by-hand-abcdef12.md"),
        t.folder("dev", "done")
            .join("20250101T000000-ER-by-hand-abcdef12.md"),
    )
    .unwrap();
    let two = hits(&t, "dev", &["two"]);
    assert_eq!(two.len(), 1);
    assert_eq!(two[0]["folder"], "done");
    // Deleted index: the next search rebuilds it.
    std::fs::remove_dir_all(t.mailbox("dev").join(".filebox")).unwrap();
    assert_eq!(hits(&t, "dev", &["mango"]).len(), 2);
    let out = t.as_agent("dev").args(["--json", "reindex"]).success();
    let v: Value = serde_json::from_str(&out).unwrap();
    assert_eq!(v["mailboxes"][0]["indexed"], 2);
}

#[test]
fn bad_search_arguments_are_errors() {
    let t = Test::new().agents(["qa", "dev"]);
    let err = t
        .as_agent("dev")
        .args(["search", "x", "--since", "yesterday"])
        .failure();
    assert!(err.contains("date"), "{err}");
    let err = t
        .as_agent("dev")
        .args(["search", "x", "--status", "lost"])
        .usage_error();
    assert!(err.contains("'lost'") && err.contains("pending"), "{err}");
    t.as_agent("dev")
        .args(["search", "x", "--folder", "tmp"])
        .usage_error();
    // Punctuation only is no words: every message, filtered.
    assert!(hits(&t, "dev", &["\"*)(-"]).is_empty());
}

#[test]
fn status_follows_the_folders_and_shows_the_routing_fields() {
    let t = Test::new().agents(["qa", "dev", "pm"]);
    let id = t
        .as_agent("qa")
        .args([
            "send",
            "dev",
            "ER",
            "do it",
            "--cc",
            "pm",
            "--priority",
            "urgent",
        ])
        .args(["--source-type", "external", "--reply-to-agent", "pm"])
        .success()
        .trim()
        .to_owned();
    let status = |agent: &str| -> Value {
        serde_json::from_str(&t.as_agent(agent).args(["--json", "status", &id]).success()).unwrap()
    };
    let s = status("qa");
    assert_eq!(s["status"], "delivered");
    assert_eq!(s["folder"], "outbox");
    assert_eq!(s["source_type"], "external");
    assert_eq!(s["priority"], "urgent");
    assert_eq!(s["reply_to"], "pm");
    assert_eq!(s["recipients"].as_array().unwrap().len(), 2);
    assert_eq!(status("dev")["status"], "delivered");
    t.as_agent("dev").args(["onhold", &id, "soon"]).success();
    assert_eq!(status("dev")["status"], "processing");
    assert_eq!(status("qa")["status"], "delivered", "pm has not looked yet");
    t.as_agent("pm").args(["resolved", &id, "ok"]).success();
    assert_eq!(status("qa")["status"], "processing");
    t.as_agent("dev").args(["reject", &id, "no"]).success();
    assert_eq!(status("dev")["status"], "failed");
    assert_eq!(status("qa")["status"], "failed");
    let err = t.as_agent("qa").args(["status", "deadbeef"]).failure();
    assert!(err.contains("deadbeef"), "{err}");
}
