//! How long a header may be: one table of bounds, checked wherever a new message's header is
//! made from what a caller or another tool hands FileBox (`send` and everything built on it:
//! a fork, a question, the hub's `email.send`; a foreign delivery). So every header the store
//! acknowledges is one every reader reads: a listing reads at most the first MiB of a file
//! for its header ([`HEADER_LIMIT`]) and skips a file whose header is longer.

use super::header::Header;
use crate::error::{Error, Result};

/// A title is a subject line: 1,000 characters is more than any subject a person writes
/// (a mail client shows 80), and at most 4,000 bytes in UTF-8. Longer text is a body.
pub const TITLE_CHARS: usize = 1_000;

/// One header field's value: 64 KiB holds the largest structured value a caller puts in a
/// header (the hub's `metadata` JSON, a callback, a question's options), with room to spare.
pub const FIELD_BYTES: usize = 64 * 1024;

/// The whole header, every field together: a quarter of what a listing reads, so a header
/// never comes near the point where readers give up on a file.
pub const HEADER_BYTES: usize = 256 * 1024;

/// How much of a file a reader (a listing, `crate::mailbox`) reads at most to find a header that
/// did not fit in its first read: a header is a few lines, so a file without one (a log, a huge
/// file) is not read whole.
pub(crate) const HEADER_LIMIT: usize = 1024 * 1024;

const _: () = assert!(4 * HEADER_BYTES <= HEADER_LIMIT);
const _: () = assert!(4 * TITLE_CHARS + FIELD_BYTES <= HEADER_BYTES);

/// Refuse a header over any bound, naming the field and its limit.
pub(crate) fn check(header: &Header) -> Result<()> {
    let title = header.title.chars().count();
    if title > TITLE_CHARS {
        return Err(too_long(
            "title".to_owned(),
            title,
            TITLE_CHARS,
            "characters",
        ));
    }
    let mut total = header.kind.len() + header.title.len();
    for (key, value) in header.fields() {
        if value.len() > FIELD_BYTES {
            let field = format!("header field {key:?}");
            return Err(too_long(field, value.len(), FIELD_BYTES, "bytes"));
        }
        // `**KEY:** VALUE` and its newline.
        total += key.len() + value.len() + 7;
    }
    if total > HEADER_BYTES {
        let field = "header (all its fields together)".to_owned();
        return Err(too_long(field, total, HEADER_BYTES, "bytes"));
    }
    Ok(())
}

fn too_long(field: String, size: usize, limit: usize, unit: &'static str) -> Error {
    Error::FieldTooLong {
        field,
        size,
        limit,
        unit,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::message::MessageType;

    fn header(title: &str, fields: &[(&str, &str)]) -> Header {
        let mut header = Header::new(&MessageType::new("ER").unwrap(), title);
        for (key, value) in fields {
            header.set(key, value);
        }
        header
    }

    #[test]
    fn each_bound_names_its_field_and_limit() {
        assert!(check(&header(&"é".repeat(TITLE_CHARS), &[])).is_ok());
        let error = check(&header(&"é".repeat(TITLE_CHARS + 1), &[])).unwrap_err();
        assert_eq!(
            error.to_string(),
            "the title is 1001 characters, over the limit of 1000 characters; nothing was written"
        );
        let big = "x".repeat(FIELD_BYTES + 1);
        let error = check(&header("t", &[("Metadata", &big)])).unwrap_err();
        assert!(
            error.to_string().starts_with(
                "the header field \"Metadata\" is 65537 bytes, over the limit of 65536 bytes"
            ),
            "{error}"
        );
        let fits = "x".repeat(FIELD_BYTES);
        let many: Vec<(String, &str)> = (0..5).map(|n| (format!("K{n}"), fits.as_str())).collect();
        let many: Vec<(&str, &str)> = many.iter().map(|(k, v)| (k.as_str(), *v)).collect();
        let error = check(&header("t", &many)).unwrap_err();
        assert!(
            error.to_string().contains("all its fields together"),
            "{error}"
        );
    }
}
