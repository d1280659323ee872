//! Search over 100,000 messages: index build time, then p50/p95 of a whole query as a command
//! runs it (open the index, sync it with the folders, query), against a plain scan of the files
//! (read every file, look for the words) in the same run.

use std::time::{Duration, Instant};

use filebox_core::index::{Index, SearchQuery};
use filebox_core::message::{Header, Message, MessageType, field, render};

use crate::Options;
use crate::fixture::{Fixture, Result};
use crate::report::{self, Samples};

const WORDS: [&str; 24] = [
    "login", "import", "export", "database", "cache", "timeout", "release", "deploy", "review",
    "memory", "parser", "thread", "用户", "管理", "批量", "导入", "登录", "页面", "性能", "测试",
    "接口", "数据", "文件", "错误",
];
const QUERIES: [&str; 8] = [
    "zebra17",
    "login timeout",
    "批量 导入",
    "用户",
    "parser",
    "性能 测试",
    "deploy review",
    "错误",
];

pub(crate) fn run(options: &Options) -> Result<()> {
    let count = if options.quick { 10_000 } else { 100_000 };
    let fixture = Fixture::new(options.dir.as_deref(), &["dev".to_owned()])?;
    let inbox = fixture.folder("dev", "inbox");
    let mut seed = 0x2545_f491_4f6c_dd1d_u64;
    let mut next = move || {
        seed ^= seed << 13;
        seed ^= seed >> 7;
        seed ^= seed << 17;
        seed
    };
    let kind = MessageType::new("DIS")?;
    for n in 0..count {
        let words: Vec<&str> = (0..40).map(|_| WORDS[(next() % 24) as usize]).collect();
        let mut header = Header::new(&kind, &format!("message {n} {}", words[0]));
        let id = format!("{:08x}-{n:012}", next() as u32);
        for (key, value) in [
            (field::MESSAGE_ID, id.as_str()),
            (field::SENDER, "qa"),
            (field::RECEIVER, "dev"),
            (field::TIMESTAMP, "2025-06-27T15:30:00Z"),
        ] {
            header.set(key, value);
        }
        let mut body = words.join(" ");
        if n % 10_000 == 7 {
            body.push_str(" zebra17");
        }
        let message = Message {
            header,
            body,
            conversation: Vec::new(),
            processing: Vec::new(),
        };
        std::fs::write(
            inbox.join(format!("20250627T153000-DIS-m-{}.md", &id[..8])),
            render(&message),
        )?;
    }
    let mailbox = fixture.mailroom("dev")?.my_mailbox()?;

    let start = Instant::now();
    let indexed = Index::open(&mailbox)?.file_count()?;
    let build = start.elapsed();
    // A folder changed in the last two seconds is listed again by every sync (its mtime is
    // not trusted yet); measure the steady state.
    std::thread::sleep(Duration::from_millis(2100));
    Index::open(&mailbox)?;

    let mut indexed_times = Vec::new();
    for round in 0..25 {
        for query in QUERIES {
            let start = Instant::now();
            let hits = Index::open(&mailbox)?.search(&SearchQuery {
                text: query.to_owned(),
                limit: 20,
                ..SearchQuery::default()
            })?;
            indexed_times.push(start.elapsed());
            if round == 0 && hits.is_empty() {
                return Err(format!("no hit for {query}").into());
            }
        }
    }
    let mut scan_times = Vec::new();
    for query in QUERIES.iter().take(3) {
        let start = Instant::now();
        let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
        let mut found = 0;
        for entry in std::fs::read_dir(&inbox)? {
            let text = std::fs::read_to_string(entry?.path())?.to_lowercase();
            if words.iter().all(|w| text.contains(w.as_str())) {
                found += 1;
            }
        }
        std::hint::black_box(found);
        scan_times.push(start.elapsed());
    }
    let indexed_samples = Samples::new(indexed_times);
    let scan = Samples::new(scan_times);
    report::table(
        &format!(
            "search over {count} messages (index built in {}, {indexed} files)",
            report::ms(build)
        ),
        &["method", "queries", "p50", "p95", "max"],
        &[
            vec![
                "index (open + sync + query)".into(),
                (QUERIES.len() * 25).to_string(),
                report::ms(indexed_samples.p50()),
                report::ms(indexed_samples.p95()),
                report::ms(indexed_samples.max()),
            ],
            vec![
                "baseline: scan every file".into(),
                "3".into(),
                report::ms(scan.p50()),
                report::ms(scan.p95()),
                report::ms(scan.max()),
            ],
        ],
    );
    Ok(())
}
