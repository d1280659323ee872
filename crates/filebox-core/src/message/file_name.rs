//! File names: `YYYYMMDDTHHMMSS-TYPE-slug-id8.md`, and caller-given names validated so they
//! cannot leave a folder.

use std::fmt;

use jiff::Timestamp;

use super::kind::MessageType;
use crate::error::{Error, Result};
use crate::time;

/// Longest slug, in bytes: keeps every name far below the 255-byte limit of file systems.
const MAX_SLUG: usize = 60;

/// A validated message file name: a single `.md` path component.
#[derive(Debug, Clone, PartialEq, Eq, Hash, PartialOrd, Ord)]
pub struct FileName(String);

impl FileName {
    /// Validate a file name from a caller or a directory listing.
    pub fn new(value: &str) -> Result<Self> {
        let reason = if !value.ends_with(".md") || value.len() <= 3 {
            Some("a message file name ends in .md")
        } else if value.len() > 255 {
            Some("it is longer than 255 bytes")
        } else if value.starts_with('.') {
            Some("it must not start with `.`")
        } else if value.contains(['/', '\\']) || value.contains("..") {
            Some("it must not contain path separators or `..`")
        } else if value.chars().any(char::is_control) {
            Some("it must not contain control characters")
        } else {
            None
        };
        match reason {
            Some(reason) => Err(Error::invalid("file name", value, reason)),
            None => Ok(FileName(value.to_owned())),
        }
    }

    pub fn as_str(&self) -> &str {
        &self.0
    }

    /// The `YYYYMMDDTHHMMSS` prefix, when the name follows the convention.
    pub fn compact_time(&self) -> Option<&str> {
        let prefix = self.0.get(..15)?;
        time::listing_form(prefix).map(|_| prefix)
    }

    /// The 8-character short id at the end, when the name follows the convention.
    pub fn short_id(&self) -> Option<&str> {
        let stem = self.0.strip_suffix(".md")?;
        let (_, short) = stem.rsplit_once('-')?;
        (short.len() == 8 && short.bytes().all(|b| b.is_ascii_hexdigit())).then_some(short)
    }
}

impl fmt::Display for FileName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

/// A message id's first 8 characters: what file names end with and what `read` accepts.
pub struct MessageIdShort;

impl MessageIdShort {
    /// The short form of an id.
    pub fn of(id: &str) -> String {
        id.chars().take(8).collect::<String>().to_ascii_lowercase()
    }

    /// Whether a caller's reference looks like a short id.
    pub fn is_short(reference: &str) -> bool {
        reference.len() == 8 && reference.bytes().all(|b| b.is_ascii_hexdigit())
    }
}

/// An ASCII slug of a title: transliterated (Chinese becomes pinyin), lower case, `-` between
/// words, at most 60 bytes, cut at a word boundary; `message` when nothing is left.
pub fn slug(title: &str) -> String {
    let ascii = deunicode::deunicode(title).to_ascii_lowercase();
    let mut slug = String::with_capacity(MAX_SLUG);
    for word in ascii
        .split(|c: char| !c.is_ascii_alphanumeric())
        .filter(|w| !w.is_empty())
    {
        let extra = usize::from(!slug.is_empty()) + word.len();
        if slug.len() + extra > MAX_SLUG {
            if slug.is_empty() {
                slug.push_str(&word[..MAX_SLUG]);
            }
            break;
        }
        if !slug.is_empty() {
            slug.push('-');
        }
        slug.push_str(word);
    }
    if slug.is_empty() {
        slug.push_str("message");
    }
    slug
}

/// The file name for a new message.
pub fn file_name_for(timestamp: Timestamp, kind: &MessageType, title: &str, id: &str) -> FileName {
    FileName(format!(
        "{}-{}-{}-{}.md",
        time::compact(timestamp),
        kind,
        slug(title),
        MessageIdShort::of(id)
    ))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn names_follow_the_naming_rule() {
        let ts = "2025-06-27T15:30:00Z".parse().unwrap();
        let kind = MessageType::new("ER").unwrap();
        let name = file_name_for(ts, &kind, "New feature: batch import!", "60bd0e69-aaaa");
        assert_eq!(
            name.as_str(),
            "20250627T153000-ER-new-feature-batch-import-60bd0e69.md"
        );
        assert_eq!(name.compact_time(), Some("20250627T153000"));
        assert_eq!(name.short_id(), Some("60bd0e69"));
    }

    #[test]
    fn chinese_titles_give_readable_ascii() {
        let s = slug("新功能请求：用户管理模块增加批量导入功能");
        assert!(s.starts_with("xin-gong-neng-qing-qiu"), "{s}");
        assert!(s.len() <= MAX_SLUG && s.is_ascii());
        assert_eq!(slug("!!!"), "message");
        assert_eq!(slug(&"a".repeat(300)).len(), MAX_SLUG);
    }

    #[test]
    fn rejects_names_that_leave_the_folder() {
        for bad in ["../x.md", "a/b.md", ".x.md", "x.txt", "a\0.md", "..md"] {
            assert!(FileName::new(bad).is_err(), "{bad:?}");
        }
    }
}
