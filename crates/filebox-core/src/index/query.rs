//! Questions the index answers: full-text search with filters, the files of a thread or of a
//! message id, and a mailbox's threads by latest activity.

use std::collections::HashSet;

use rusqlite::types::Value;

use super::record::{Row, activity_key};
use super::{Index, segment};
use crate::agent::AgentId;
use crate::error::Result;
use crate::folder::Folder;
use crate::mailbox::Status;

/// Characters of context on each side of the first match in a snippet.
const SNIPPET_CONTEXT: usize = 40;

/// A search: words (any language) and filters, all optional.
#[derive(Debug, Clone, Default)]
pub struct SearchQuery {
    /// Words that must all occur (title, body or conversation); empty: filters only.
    pub text: String,
    /// Anyone who wrote part of it: its original sender or the author of a reply.
    pub from: Option<String>,
    /// The message type.
    pub kind: Option<String>,
    pub folder: Option<Folder>,
    pub thread: Option<String>,
    pub status: Option<Status>,
    /// Only messages active (sent or answered) at or after this time, `2025-06-27T15:30:00Z`.
    pub since: Option<String>,
    /// At most this many hits (0: no limit).
    pub limit: usize,
}

/// One message found: the copy's place and header fields, and where the words occur.
#[derive(Debug, Clone)]
pub struct Hit {
    /// Whose mailbox the copy is in.
    pub mailbox: AgentId,
    pub folder: Folder,
    pub file: String,
    pub id: String,
    pub thread: String,
    pub kind: String,
    pub title: String,
    pub sender: String,
    pub receiver: String,
    pub timestamp: String,
    pub activity: String,
    pub status: Status,
    /// A line of text around the first match (or the start of the body).
    pub snippet: String,
}

/// A thread as a mailbox knows it.
#[derive(Debug, Clone)]
pub struct ThreadActivity {
    pub thread: String,
    /// The root's title when this mailbox holds the root, else its earliest message's.
    pub title: String,
    /// Messages of the thread in this mailbox and the replies in their conversations: the
    /// nodes the thread tree draws from this mailbox.
    pub messages: usize,
    pub last_activity: String,
}

const ROW_COLUMNS: &str = "m.folder, m.name, m.id, m.thread, m.kind, m.title, m.sender, \
    m.receiver, m.timestamp, m.activity, m.status, m.in_reply_to, m.forked_from, m.fork_reason";

fn read_row(r: &rusqlite::Row<'_>) -> rusqlite::Result<Row> {
    let folder: String = r.get(0)?;
    let status: String = r.get(10)?;
    Ok(Row {
        folder: folder.parse().unwrap_or(Folder::Inbox),
        name: r.get(1)?,
        id: r.get(2)?,
        thread: r.get(3)?,
        kind: r.get(4)?,
        title: r.get(5)?,
        sender: r.get(6)?,
        receiver: r.get(7)?,
        timestamp: r.get(8)?,
        activity: r.get(9)?,
        status: Status::parse(&status).unwrap_or(Status::Delivered),
        in_reply_to: r.get(11)?,
        forked_from: r.get(12)?,
        fork_reason: r.get(13)?,
    })
}

/// The SQL of a search and its parameters.
pub(super) fn search_sql(query: &SearchQuery) -> (String, Vec<Value>) {
    let mut clauses = vec!["m.problem IS NULL".to_owned()];
    let mut values: Vec<Value> = Vec::new();
    let mut filter = |clause: &str, value: Option<Value>| {
        if let Some(value) = value {
            values.push(value);
            clauses.push(clause.replace('?', &format!("?{}", values.len())));
        }
    };
    let text = segment::to_match(&query.text);
    filter("fts MATCH ?", text.clone().map(Value::Text));
    // `from`: anyone who wrote part of the message (see `record::authors`).
    filter(
        "instr(m.authors, ?) > 0",
        query
            .from
            .as_ref()
            .map(|from| Value::Text(format!(",{from},"))),
    );
    filter("m.kind = ?", query.kind.clone().map(Value::Text));
    filter(
        "m.folder = ?",
        query.folder.map(|f| Value::Text(f.as_str().to_owned())),
    );
    filter("m.thread = ?", query.thread.clone().map(Value::Text));
    filter(
        "m.status = ?",
        query.status.map(|s| Value::Text(s.as_str().to_owned())),
    );
    filter("m.activity >= ?", query.since.clone().map(Value::Text));
    // Rowids follow activity (see `record::activity_key`): newest first is rowid order,
    // which FTS5 (or the table) walks without sorting, so stepping stops after `limit`
    // hits. The bound on the rowid lets a `since` search skip older rows.
    let rowid = if text.is_some() {
        "fts.rowid"
    } else {
        "m.rowid"
    };
    filter(
        &format!("{rowid} >= ?"),
        query
            .since
            .as_deref()
            .map(|s| Value::Integer(activity_key(s))),
    );
    // CROSS JOIN: FTS5 drives, in rowid order; each match looks its row up by rowid.
    let from = if text.is_some() {
        "fts CROSS JOIN messages m ON m.rowid = fts.rowid"
    } else {
        "messages m"
    };
    let sql = format!(
        "SELECT {ROW_COLUMNS}, m.text FROM {from} WHERE {} ORDER BY {rowid} DESC",
        clauses.join(" AND ")
    );
    (sql, values)
}

impl Index {
    /// Search this mailbox: newest activity first, one hit per Message ID.
    pub fn search(&self, query: &SearchQuery) -> Result<Vec<Hit>> {
        let (sql, values) = search_sql(query);
        let words = segment::words(&query.text);
        let limit = if query.limit == 0 {
            usize::MAX
        } else {
            query.limit
        };
        let mut statement = self.conn.prepare_cached(&sql).map_err(|e| self.error(e))?;
        let mut rows = statement
            .query(rusqlite::params_from_iter(values))
            .map_err(|e| self.error(e))?;
        let mut seen = HashSet::new();
        let mut hits = Vec::new();
        while hits.len() < limit {
            let Some(r) = rows.next().map_err(|e| self.error(e))? else {
                break;
            };
            let row = read_row(r).map_err(|e| self.error(e))?;
            if !seen.insert(row.id.clone()) {
                continue;
            }
            let text: String = r.get(14).map_err(|e| self.error(e))?;
            hits.push(Hit {
                mailbox: self.mailbox.owner().clone(),
                snippet: snippet(&text, &words),
                folder: row.folder,
                file: row.name,
                id: row.id,
                thread: row.thread,
                kind: row.kind,
                title: row.title,
                sender: row.sender,
                receiver: row.receiver,
                timestamp: row.timestamp,
                activity: row.activity,
                status: row.status,
            });
        }
        Ok(hits)
    }

    /// Every file of a thread in this mailbox (several copies of a message included).
    pub(crate) fn thread_rows(&self, thread: &str) -> Result<Vec<Row>> {
        self.rows("m.thread = ?1 OR m.id = ?1", thread)
    }

    /// Every file holding a message id in this mailbox.
    pub(crate) fn id_rows(&self, id: &str) -> Result<Vec<Row>> {
        self.rows("m.id = ?1", id)
    }

    fn rows(&self, clause: &str, value: &str) -> Result<Vec<Row>> {
        let sql =
            format!("SELECT {ROW_COLUMNS} FROM messages m WHERE m.problem IS NULL AND ({clause})");
        let mut statement = self.conn.prepare_cached(&sql).map_err(|e| self.error(e))?;
        statement
            .query_map([value], read_row)
            .and_then(|rows| rows.collect())
            .map_err(|e| self.error(e))
    }

    /// How many message files are indexed (unreadable ones not counted).
    pub fn file_count(&self) -> Result<usize> {
        self.conn
            .query_row(
                "SELECT COUNT(*) FROM messages WHERE problem IS NULL",
                [],
                |r| r.get::<_, i64>(0),
            )
            .map(|n| n as usize)
            .map_err(|e| self.error(e))
    }

    /// This mailbox's threads, the most recently active first. The rows are walked newest
    /// activity first (rowid order) until `limit` threads are met, and only those threads are
    /// counted, so the newest threads of a mailbox of a million cost what a small one does.
    pub fn threads(&self, limit: usize) -> Result<Vec<ThreadActivity>> {
        let limit = if limit == 0 { usize::MAX } else { limit };
        let mut newest: Vec<String> = Vec::new();
        {
            let mut walk = self
                .conn
                .prepare_cached(
                    "SELECT thread FROM messages WHERE problem IS NULL ORDER BY rowid DESC",
                )
                .map_err(|e| self.error(e))?;
            let mut rows = walk.query([]).map_err(|e| self.error(e))?;
            let mut met = std::collections::HashSet::new();
            while newest.len() < limit {
                let Some(row) = rows.next().map_err(|e| self.error(e))? else {
                    break;
                };
                let thread: String = row.get(0).map_err(|e| self.error(e))?;
                if met.insert(thread.clone()) {
                    newest.push(thread);
                }
            }
        }
        let mut statement = self
            .conn
            .prepare_cached(
                // One row per message (its copies: the longest conversation), then for the
                // thread: the message and its replies, as many nodes as the thread tree draws.
                "SELECT MAX(t.last), SUM(1 + t.replies),
                    COALESCE((SELECT r.title FROM messages r WHERE r.id = ?1 LIMIT 1),
                             MIN(t.title))
                 FROM (SELECT m.id, MAX(m.activity) AS last, MAX(m.replies) AS replies,
                              MIN(m.title) AS title
                       FROM messages m WHERE m.thread = ?1 AND m.problem IS NULL
                       GROUP BY m.id) t",
            )
            .map_err(|e| self.error(e))?;
        let mut threads = Vec::with_capacity(newest.len());
        for thread in newest {
            let activity = statement
                .query_row([&thread], |r| {
                    Ok(ThreadActivity {
                        thread: thread.clone(),
                        last_activity: r.get(0)?,
                        messages: r.get::<_, i64>(1)? as usize,
                        title: r.get(2)?,
                    })
                })
                .map_err(|e| self.error(e))?;
            threads.push(activity);
        }
        Ok(threads)
    }
}

/// One line of `text` around the first of `words` found (case-insensitively), else its start.
fn snippet(text: &str, words: &[String]) -> String {
    let chars: Vec<char> = text.chars().collect();
    // Lower-casing can turn one character into several (`İ` → `i̇`), so remember which
    // character of `text` each byte of `lower` came from.
    let mut lower = String::with_capacity(text.len());
    let mut origin = Vec::with_capacity(text.len());
    for (i, c) in chars.iter().enumerate() {
        for l in c.to_lowercase() {
            lower.push(l);
            origin.extend(std::iter::repeat_n(i, l.len_utf8()));
        }
    }
    let found = words
        .iter()
        .filter_map(|w| lower.find(&w.to_lowercase()))
        .min()
        .and_then(|byte| origin.get(byte).copied())
        .unwrap_or(0);
    let start = found.saturating_sub(SNIPPET_CONTEXT);
    let end = (found + SNIPPET_CONTEXT * 2).min(chars.len());
    let mut out: String = chars[start..end]
        .iter()
        .map(|c| if c.is_whitespace() { ' ' } else { *c })
        .collect();
    out = out.split_whitespace().collect::<Vec<_>>().join(" ");
    if start > 0 {
        out.insert(0, '…');
    }
    if end < chars.len() {
        out.push('…');
    }
    out
}

#[cfg(test)]
mod tests {
    use super::snippet;

    #[test]
    fn characters_that_grow_when_lower_cased_do_not_break_snippets() {
        let text = format!("{} needle and more", "İ".repeat(100));
        let got = snippet(&text, &["needle".to_owned()]);
        assert!(got.contains("needle"), "{got}");
    }

    #[test]
    fn snippets_surround_the_first_match() {
        let text = format!("{}needle here{}", "x ".repeat(100), " y".repeat(100));
        let s = snippet(&text, &["NEEDLE".into()]);
        assert!(
            s.starts_with('…') && s.ends_with('…') && s.contains("needle here"),
            "{s}"
        );
        assert_eq!(
            snippet("短文本：用户管理", &["管理".into()]),
            "短文本：用户管理"
        );
    }
}
