//! Word breaking for the full-text index: SQLite's `unicode61` tokenizer splits Latin text at
//! spaces and punctuation, but sees a run of Chinese (or Japanese, Korean) characters as one
//! word. So before indexing, such runs are rewritten as overlapping two-character words
//! (`用户管理` → `用户 户管 管理 理`), and a query is rewritten the same way as a phrase:
//! any two or more consecutive characters of the text are found, and one character by prefix.

/// Whether a character belongs to a script written without spaces between words.
fn is_cjk(c: char) -> bool {
    matches!(c as u32,
        0x3040..=0x30FF      // Hiragana, Katakana
        | 0x3400..=0x4DBF    // CJK Extension A
        | 0x4E00..=0x9FFF    // CJK Unified Ideographs
        | 0xAC00..=0xD7AF    // Hangul syllables
        | 0xF900..=0xFAFF    // CJK Compatibility Ideographs
        | 0x20000..=0x2FA1F) // CJK Extensions B..
}

/// Split `text` into runs: `(true, run)` for CJK runs, `(false, run)` for everything else.
fn runs(text: &str) -> impl Iterator<Item = (bool, &str)> {
    let mut rest = text;
    std::iter::from_fn(move || {
        let first = rest.chars().next()?;
        let cjk = is_cjk(first);
        let end = rest
            .char_indices()
            .find(|(_, c)| is_cjk(*c) != cjk)
            .map_or(rest.len(), |(i, _)| i);
        let (run, tail) = rest.split_at(end);
        rest = tail;
        Some((cjk, run))
    })
}

/// The words a CJK run is indexed as: every pair of neighbours, then the last character
/// alone (so that a one-character query, matched as a prefix, finds every position).
fn bigrams(run: &str) -> Vec<String> {
    let chars: Vec<char> = run.chars().collect();
    let mut words: Vec<String> = chars.windows(2).map(|w| w.iter().collect()).collect();
    if let Some(last) = chars.last() {
        words.push(last.to_string());
    }
    words
}

/// The text as it is handed to the tokenizer.
pub(crate) fn for_index(text: &str) -> String {
    let mut out = String::with_capacity(text.len() * 2);
    for (cjk, run) in runs(text) {
        if cjk {
            out.push(' ');
            out.push_str(&bigrams(run).join(" "));
            out.push(' ');
        } else {
            out.push_str(run);
        }
    }
    out
}

/// A user's query as an FTS5 expression: every word must occur (AND); a CJK run must occur
/// as written (a phrase of its bigrams). `None` when the query has no word at all.
pub(crate) fn to_match(query: &str) -> Option<String> {
    let mut terms = Vec::new();
    for (cjk, run) in runs(query) {
        if cjk {
            let chars: Vec<char> = run.chars().collect();
            if chars.len() == 1 {
                terms.push(format!("{}*", quote(run)));
            } else {
                let pairs: Vec<String> = chars.windows(2).map(|w| w.iter().collect()).collect();
                terms.push(quote(&pairs.join(" ")));
            }
        } else {
            terms.extend(
                run.split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .map(quote),
            );
        }
    }
    (!terms.is_empty()).then(|| terms.join(" AND "))
}

/// The words of a query as a reader sees them, for picking a snippet.
pub(crate) fn words(query: &str) -> Vec<String> {
    runs(query)
        .flat_map(|(cjk, run)| {
            if cjk {
                vec![run.to_owned()]
            } else {
                run.split(|c: char| !c.is_alphanumeric())
                    .filter(|w| !w.is_empty())
                    .map(str::to_owned)
                    .collect()
            }
        })
        .collect()
}

/// An FTS5 string literal.
fn quote(text: &str) -> String {
    format!("\"{}\"", text.replace('"', "\"\""))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cjk_runs_become_bigrams() {
        assert_eq!(for_index("ER用户管理ok"), "ER 用户 户管 管理 理 ok");
        assert_eq!(for_index("新"), " 新 ");
    }

    #[test]
    fn queries_are_phrases_of_bigrams() {
        assert_eq!(to_match("用户管").as_deref(), Some("\"用户 户管\""));
        assert_eq!(to_match("用").as_deref(), Some("\"用\"*"));
        assert_eq!(
            to_match("batch \"import\" 导入").as_deref(),
            Some("\"batch\" AND \"import\" AND \"导入\"")
        );
        assert_eq!(to_match("  -- "), None);
    }
}
