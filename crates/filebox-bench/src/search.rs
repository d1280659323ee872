//! Search over 100,000 messages: index build time, then p50/p95 of a whole query as a command
//! runs it (open the index, sync it with the folders, query), per class of query, against a
//! plain scan of the files (read every file, look for the words) in the same run.
//!
//! The corpus is meant to look like mail: words drawn from a Zipf-like distribution over a
//! vocabulary of a few thousand made-up words (so a few words are in nearly every message and
//! most are rare), a Chinese sentence in a third of the messages, one message a minute or so.
//! Queries come in classes by how many messages they match: rare, medium and common words,
//! and two- and three-character Chinese queries.

use std::time::{Duration, Instant};

use filebox_core::SendRequest;
use filebox_core::index::{Index, SearchQuery};
use filebox_core::message::{Header, Message, MessageType, field, render};

use crate::fixture::{Fixture, Result};
use crate::options::Options;
use crate::report::{self, Samples};

/// Distinct Latin words.
const VOCABULARY: usize = 3_000;
/// Distinct Chinese two-character words.
const CHINESE_VOCABULARY: usize = 800;
/// Words per message, and Chinese words in a message that has a Chinese sentence.
const WORDS_PER_MESSAGE: usize = 40;
const CHINESE_WORDS: usize = 12;
/// Each query class is run this many times over its queries.
const ROUNDS: usize = 25;
/// Characters Chinese words are made of.
const HANZI: &str = "的一是在不了有和人这中大为上个国我以要他时来用们生到作地于出就分对成会可主发年动\
    同工也能下过子说产种面而方后多定行学法所民得经十三之进着等部度家电力里如水化高自二理起小物现实加量都两\
    体制机当使点从业本去把性好应开它合还因由其些然前外天政四日那社义事平形相全表间样与关各重新线内数正心反\
    你明看原又么利比或但质气第向道命此变条只没结解问意建月公无系军很情者最立代想已通并提直题党程展五果料象\
    员革位入常文总次品式活设及管特件长求老头基资边流路级少图山统接知较将组见计别她手角期根论运农指几九区强\
    放决西被干做必战先回则任取据处队南给色光门即保治北造百规热领七海口东导器压志世金增争济阶油思术极交受联\
    什认六共权收证改清己美再采转更单风切打白教速花带安场身车例真务具万每目至达走积示议声报斗完类八离华名确\
    才科张信马节话米整空元况今集温传土许步群广石记需段研界拉林律叫且究观越织装影算低持音众书布复容儿须际商\
    非验连断深难近矿千周委素技备半办青省列习响约支般史感劳便团往酸历市克何除消构府称太准精值号率族维划选标\
    写存候毛亲快效斯院查江型眼王按格养易置派层片始却专状育厂京识适属圆包火住调满县局照参红细引听该铁价严";

/// One kind of query and its queries.
struct Class {
    name: &'static str,
    queries: Vec<String>,
}

pub(crate) fn run(options: &Options) -> Result<()> {
    let count = if options.quick { 10_000 } else { 100_000 };
    let fixture = Fixture::new(options.dir.as_deref(), &["dev".to_owned(), "qa".to_owned()])?;
    let inbox = fixture.folder("dev", "inbox");
    let corpus = Corpus::new();
    let mut random = Random(0x2545_f491_4f6c_dd1d);
    let kind = MessageType::new("DIS")?;
    // 2025-01-01T00:00:00Z, then a message every 1-60 s.
    let mut second = 1_735_689_600_i64;
    for n in 0..count {
        second += 1 + (random.next() % 60) as i64;
        let mut words: Vec<&str> = (0..WORDS_PER_MESSAGE)
            .map(|_| corpus.latin(&mut random))
            .collect();
        if n % 1_000 == 7 {
            words.push("zebra17"); // in one message of a thousand
        }
        let mut body = words.join(" ");
        if n % 3 == 0 {
            body.push_str("\n\n");
            for _ in 0..CHINESE_WORDS {
                body.push_str(corpus.chinese(&mut random));
            }
            body.push('。');
        }
        let mut header = Header::new(&kind, &format!("{} {} {n}", words[0], words[1]));
        let id = format!("{:08x}-{n:012}", random.next() as u32);
        let (iso, compact) = timestamps(second);
        for (key, value) in [
            (field::MESSAGE_ID, id.as_str()),
            (field::SENDER, "qa"),
            (field::RECEIVER, "dev"),
            (field::TIMESTAMP, iso.as_str()),
        ] {
            header.set(key, value);
        }
        let message = Message {
            header,
            body,
            conversation: Vec::new(),
            processing: Vec::new(),
        };
        std::fs::write(
            inbox.join(format!("{compact}-DIS-m-{}.md", &id[..8])),
            render(&message),
        )?;
    }
    let mailbox = fixture.mailroom("dev")?.my_mailbox()?;

    let start = Instant::now();
    let indexed = Index::open(&mailbox)?.file_count()?;
    let build = start.elapsed();
    // A folder changed very recently is listed again by every sync (its mtime is not trusted
    // yet); measure the steady state.
    std::thread::sleep(Duration::from_millis(2100));
    Index::open(&mailbox)?;

    let classes = corpus.classes();
    let mut rows = Vec::new();
    let mut all = Vec::new();
    let mut scans = Vec::new();
    for class in &classes {
        let mut times = Vec::new();
        let mut matched = Vec::new();
        for round in 0..ROUNDS {
            for query in &class.queries {
                let start = Instant::now();
                let hits = Index::open(&mailbox)?.search(&SearchQuery {
                    text: query.clone(),
                    limit: 20,
                    ..SearchQuery::default()
                })?;
                times.push(start.elapsed());
                if round == 0 {
                    if hits.is_empty() {
                        return Err(format!("no hit for {query}").into());
                    }
                    matched.push(hits.len());
                }
            }
        }
        // The baseline: one query of the class, by reading every file.
        let start = Instant::now();
        let found = scan(&inbox, &class.queries[0])?;
        scans.push((class.name, class.queries[0].clone(), found, start.elapsed()));
        all.extend(times.iter().copied());
        let samples = Samples::new(times);
        rows.push(vec![
            class.name.to_owned(),
            class.queries.join(", "),
            (class.queries.len() * ROUNDS).to_string(),
            report::ms(samples.p50()),
            report::ms(samples.p95()),
            report::ms(samples.max()),
        ]);
    }
    // The first query after a delivery: `filebox send` (here the same library call) publishes a
    // new file into the inbox, and the next search must find it. The index catches up from the
    // inbox's change journal. A file another tool writes is not in the journal: the index
    // lists the folder's 100,000 names again and compares them (what every delivery cost
    // before the journal), so both are measured, alternately, in the same run.
    let sender = fixture.mailroom("qa")?;
    let (mut journaled, mut by_hand, mut listing) = (Vec::new(), Vec::new(), Vec::new());
    for n in 0..40 {
        let hand = n % 2 == 1;
        let body = format!("newcomer {n}\n\n{}", corpus.latin[60]);
        if hand {
            let mut header = Header::new(&kind, &format!("newcomer {n}"));
            let id = format!("{:08x}-hand-{n:04}", random.next() as u32);
            header.set(field::MESSAGE_ID, &id);
            header.set(field::SENDER, "qa");
            let message = Message {
                header,
                body,
                conversation: Vec::new(),
                processing: Vec::new(),
            };
            let staged = fixture.path().join("staged.md");
            std::fs::write(&staged, render(&message))?;
            std::fs::rename(
                &staged,
                inbox.join(format!("20300101T0000{n:02}-DIS-hand-{}.md", &id[..8])),
            )?;
        } else {
            sender.send(&SendRequest::new("dev", kind.clone(), body))?;
        }
        let start = Instant::now();
        let hits = Index::open(&mailbox)?.search(&SearchQuery {
            text: "newcomer".into(),
            limit: 0,
            ..SearchQuery::default()
        })?;
        let took = start.elapsed();
        if hand {
            by_hand.push(took)
        } else {
            journaled.push(took)
        }
        if hits.len() != n + 1 {
            return Err(format!("after delivery {n}, {} messages found", hits.len()).into());
        }
        // The floor of any sync that looks at the folder: listing its names once.
        let start = Instant::now();
        let names = std::fs::read_dir(&inbox)?.count();
        listing.push(start.elapsed());
        if names < count {
            return Err(format!("the inbox lists {names} names").into());
        }
        // Past the 100 ms in which a listed folder's mtime is not trusted yet, then caught
        // up: each delivery is measured from an index that is current.
        std::thread::sleep(Duration::from_millis(200));
        Index::open(&mailbox)?;
    }
    let runs = all.len();
    let samples = Samples::new(all);
    rows.push(vec![
        "all".into(),
        String::new(),
        runs.to_string(),
        report::ms(samples.p50()),
        report::ms(samples.p95()),
        report::ms(samples.max()),
    ]);
    report::table(
        &format!(
            "search over {count} messages, 20 hits newest first (index built in {}, {indexed} \
             files); each query opens the index, syncs it and queries",
            report::ms(build)
        ),
        &["queries", "words", "runs", "p50", "p95", "max"],
        &rows,
    );
    let row = |what: &str, times: Vec<Duration>| {
        let runs = times.len().to_string();
        let samples = Samples::new(times);
        vec![
            what.to_owned(),
            runs,
            report::ms(samples.p50()),
            report::ms(samples.p95()),
            report::ms(samples.max()),
        ]
    };
    report::table(
        &format!(
            "search right after a delivery into the inbox of {count} messages (the new \
             message found)"
        ),
        &["what", "runs", "p50", "p95", "max"],
        &[
            row(
                "open + sync + search after `send` (from the journal)",
                journaled,
            ),
            row(
                "open + sync + search after a file written by hand (listing)",
                by_hand,
            ),
            row("baseline: readdir of the inbox", listing),
        ],
    );
    report::table(
        "baseline: one query per class by a plain scan (read every file, all words present)",
        &["class", "query", "files matching", "time"],
        &scans
            .into_iter()
            .map(|(class, query, found, time)| {
                vec![class.to_owned(), query, found.to_string(), report::ms(time)]
            })
            .collect::<Vec<_>>(),
    );
    Ok(())
}

/// How many files hold every word of `query` (case-insensitively): what a search without an
/// index has to do.
fn scan(folder: &std::path::Path, query: &str) -> Result<usize> {
    let words: Vec<String> = query.split_whitespace().map(str::to_lowercase).collect();
    let mut found = 0;
    for entry in std::fs::read_dir(folder)? {
        let text = std::fs::read_to_string(entry?.path())?.to_lowercase();
        if words.iter().all(|w| text.contains(w.as_str())) {
            found += 1;
        }
    }
    Ok(found)
}

/// xorshift64: the same corpus every run.
struct Random(u64);

impl Random {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 << 13;
        self.0 ^= self.0 >> 7;
        self.0 ^= self.0 << 17;
        self.0
    }

    /// Uniform in [0, 1).
    fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
}

/// The vocabularies and their Zipf-like weights (the word of rank r has weight 1/r).
struct Corpus {
    latin: Vec<String>,
    latin_cumulative: Vec<f64>,
    chinese: Vec<String>,
    chinese_cumulative: Vec<f64>,
}

impl Corpus {
    fn new() -> Corpus {
        const SYLLABLES: [&str; 24] = [
            "ka", "lo", "mi", "ne", "ru", "sa", "to", "vi", "ze", "po", "qu", "di", "fa", "go",
            "hi", "ju", "be", "co", "xa", "wy", "el", "an", "or", "is",
        ];
        // Rank 0 is "ka", then "lo", ... two-syllable words, then three: distinct and
        // deterministic.
        let latin = (0..VOCABULARY)
            .map(|mut i| {
                let mut word = String::new();
                loop {
                    word.push_str(SYLLABLES[i % SYLLABLES.len()]);
                    i /= SYLLABLES.len();
                    if i == 0 {
                        break word;
                    }
                    i -= 1;
                }
            })
            .collect();
        let hanzi: Vec<char> = HANZI.chars().filter(|c| !c.is_whitespace()).collect();
        let mut random = Random(0x9e37_79b9_7f4a_7c15);
        let mut chinese: Vec<String> = Vec::new();
        while chinese.len() < CHINESE_VOCABULARY {
            let word: String = (0..2)
                .map(|_| hanzi[(random.next() % hanzi.len() as u64) as usize])
                .collect();
            if !chinese.contains(&word) {
                chinese.push(word);
            }
        }
        Corpus {
            latin_cumulative: cumulative(VOCABULARY),
            latin,
            chinese_cumulative: cumulative(CHINESE_VOCABULARY),
            chinese,
        }
    }

    fn latin(&self, random: &mut Random) -> &str {
        &self.latin[pick(&self.latin_cumulative, random)]
    }

    fn chinese(&self, random: &mut Random) -> &str {
        &self.chinese[pick(&self.chinese_cumulative, random)]
    }

    fn classes(&self) -> Vec<Class> {
        let latin = |ranks: &[usize]| ranks.iter().map(|&r| self.latin[r].clone()).collect();
        vec![
            Class {
                name: "rare words",
                queries: [
                    vec!["zebra17".to_owned()],
                    latin(&[1_700, 2_100, 2_500, 2_999]),
                    vec![format!("{} {}", self.latin[40], self.latin[2_200])],
                ]
                .concat(),
            },
            Class {
                name: "medium words",
                queries: [
                    latin(&[30, 60, 120, 250]),
                    vec![format!("{} {}", self.latin[20], self.latin[35])],
                ]
                .concat(),
            },
            Class {
                name: "common words",
                queries: [
                    latin(&[0, 1, 3, 6]),
                    vec![format!("{} {}", self.latin[0], self.latin[2])],
                ]
                .concat(),
            },
            Class {
                name: "Chinese, 2-3 characters",
                queries: vec![
                    self.chinese[0].clone(),
                    self.chinese[5].clone(),
                    self.chinese[50].clone(),
                    self.chinese[400].clone(),
                    // Three characters across two words: a phrase of two bigrams.
                    format!(
                        "{}{}",
                        self.chinese[0],
                        self.chinese[1].chars().next().unwrap_or('的')
                    ),
                    format!(
                        "{}{}",
                        self.chinese[3],
                        self.chinese[9].chars().next().unwrap_or('的')
                    ),
                ],
            },
        ]
    }
}

/// Running sums of 1/rank, normalized to end at 1.
fn cumulative(n: usize) -> Vec<f64> {
    let mut sum = 0.0;
    let mut out: Vec<f64> = (1..=n)
        .map(|rank| {
            sum += 1.0 / rank as f64;
            sum
        })
        .collect();
    for value in &mut out {
        *value /= sum;
    }
    out
}

fn pick(cumulative: &[f64], random: &mut Random) -> usize {
    let u = random.unit();
    cumulative
        .partition_point(|&c| c < u)
        .min(cumulative.len() - 1)
}

/// `2025-06-27T15:30:00Z` and `20250627T153000` for seconds since the epoch.
fn timestamps(seconds: i64) -> (String, String) {
    let days = seconds.div_euclid(86_400);
    let rest = seconds.rem_euclid(86_400);
    let (hour, minute, second) = (rest / 3_600, rest % 3_600 / 60, rest % 60);
    // Howard Hinnant's civil_from_days.
    let z = days + 719_468;
    let era = z.div_euclid(146_097);
    let doe = z - era * 146_097;
    let yoe = (doe - doe / 1_460 + doe / 36_524 - doe / 146_096) / 365;
    let doy = doe - (365 * yoe + yoe / 4 - yoe / 100);
    let mp = (5 * doy + 2) / 153;
    let day = doy - (153 * mp + 2) / 5 + 1;
    let month = if mp < 10 { mp + 3 } else { mp - 9 };
    let year = yoe + era * 400 + i64::from(month <= 2);
    (
        format!("{year:04}-{month:02}-{day:02}T{hour:02}:{minute:02}:{second:02}Z"),
        format!("{year:04}{month:02}{day:02}T{hour:02}{minute:02}{second:02}"),
    )
}
