//! `list` pages: the newest 50 by default, its last line naming `--page` and `--all`, the same
//! pages whether the files or a current index serve them, and a read by short id found
//! through the index.

use serde_json::Value;

use crate::support::Test;

/// A hand-written message file `Request N`, one second after `Request N-1`.
fn request(n: usize) -> (String, String) {
    let id = format!("{n:08x}-0000-4000-8000-000000000000");
    let (minute, second) = (n / 60, n % 60);
    let name = format!(
        "20250627T15{minute:02}{second:02}-ER-request-{n}-{}.md",
        &id[..8]
    );
    let text = format!(
        "# ER: Request {n}\n\n**Message ID:** {id}\n**Sender:** qa\n**Receiver:** dev\n\
         **Timestamp:** 2025-06-27T15:{minute:02}:{second:02}Z\n\n---\n\n\
         ## Original Request/Content\n\nPlease handle request {n}.\n"
    );
    (name, text)
}

/// The titles a text listing shows, in its order.
fn titles(listing: &str) -> Vec<String> {
    listing
        .lines()
        .filter(|line| !line.starts_with('…'))
        .map(|line| {
            let title = line.split_once(" ER ").expect("a listing line").1;
            title.rsplit_once(" (").expect("a file name").0.to_owned()
        })
        .collect()
}

fn requests(numbers: impl Iterator<Item = usize>) -> Vec<String> {
    numbers.map(|n| format!("Request {n}")).collect()
}

/// Every paging form of `list`, checked on `t` (52 requests in dev's inbox).
fn check_pages(t: &Test) {
    let (page, stderr) = t.as_agent("dev").args(["list"]).expect_code(0);
    assert_eq!(titles(&page), requests((2..52).rev()));
    assert_eq!(
        page.lines().last(),
        Some("… 2 more: --page 2 for the next 50, --all for every one")
    );
    assert_eq!(stderr, "");
    let page = t.as_agent("dev").args(["list", "--page", "2"]).success();
    assert_eq!(titles(&page), requests((0..2).rev()));
    assert!(!page.contains("more"), "{page}");
    let page = t
        .as_agent("dev")
        .args(["list", "inbox", "--limit", "5", "--page", "3"])
        .success();
    assert_eq!(titles(&page), requests((37..42).rev()));
    assert_eq!(
        page.lines().last(),
        Some("… 37 more: --page 4 for the next 5, --all for every one")
    );
    let all = t.as_agent("dev").args(["list", "--all"]).success();
    assert_eq!(titles(&all), requests((0..52).rev()));
    assert!(!all.contains("more"), "{all}");
    let oldest = t
        .as_agent("dev")
        .args(["list", "--oldest-first", "--limit", "3"])
        .success();
    assert_eq!(titles(&oldest), requests(0..3));
    let json: Value = serde_json::from_str(
        &t.as_agent("dev")
            .args(["--json", "list", "--limit", "2", "--offset", "1"])
            .success(),
    )
    .expect("JSON");
    assert_eq!(json["total"], 52, "{json}");
    assert_eq!(json["offset"], 1, "{json}");
    assert_eq!(json["newest_first"], true, "{json}");
    assert_eq!(json["messages"].as_array().map(Vec::len), Some(2), "{json}");
}

#[test]
fn list_shows_the_newest_page_and_says_how_to_see_more() {
    let t = Test::new().agents(["dev", "qa"]);
    for n in 0..52 {
        let (name, text) = request(n);
        t.put("dev", "inbox", &name, text);
    }
    // From the files (no index), then from a current index: the same pages.
    check_pages(&t);
    t.as_agent("dev").args(["reindex"]).success();
    assert!(t.mailbox("dev").join(".filebox/index.db").exists());
    check_pages(&t);
    // A second copy of a message, newer: the listing still shows one entry for it, where the
    // first copy stands.
    let (_, text) = request(51);
    t.put("dev", "inbox", "20250627T160000-ER-copy-00000033.md", text);
    t.as_agent("dev").args(["reindex"]).success();
    check_pages(&t);
    // A read by short id, through the index.
    let read = t.as_agent("dev").args(["read", "00000007"]).success();
    assert!(read.contains("Please handle request 7."), "{read}");
}
