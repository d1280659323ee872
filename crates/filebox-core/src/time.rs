//! Timestamps as the message format writes them: ISO 8601 UTC to the second.

use jiff::Timestamp;

/// Now, truncated to whole seconds (the format's precision).
pub fn now() -> Timestamp {
    let now = Timestamp::now();
    Timestamp::from_second(now.as_second()).unwrap_or(now)
}

/// `2025-06-27T15:30:00Z`, the header form.
pub fn iso(ts: Timestamp) -> String {
    ts.strftime("%Y-%m-%dT%H:%M:%SZ").to_string()
}

/// `20250627T153000`, the file-name form.
pub fn compact(ts: Timestamp) -> String {
    ts.strftime("%Y%m%dT%H%M%S").to_string()
}

/// A Unix time another program sent, in seconds or (from 10^11 on, past the year 5000 in
/// seconds) milliseconds, in the header form; `None` for 0, a negative or an impossible time.
pub fn from_unix(value: i64) -> Option<String> {
    let ts = match value {
        ..=0 => return None,
        100_000_000_000.. => Timestamp::from_millisecond(value).ok()?,
        _ => Timestamp::from_second(value).ok()?,
    };
    Some(iso(Timestamp::from_second(ts.as_second()).ok()?))
}

/// Parse a header timestamp; tolerant of fractional seconds and offsets.
pub fn parse_iso(value: &str) -> Option<Timestamp> {
    value.trim().parse().ok()
}

/// How long ago a header timestamp was, in its largest whole unit: `40s`, `12m`, `3h`, `5d`
/// (a time in the future, from a skewed clock, is `0s`).
pub fn age(timestamp: &str, now: Timestamp) -> Option<String> {
    let seconds = (now.as_second() - parse_iso(timestamp)?.as_second()).max(0);
    Some(match seconds {
        0..60 => format!("{seconds}s"),
        60..3600 => format!("{}m", seconds / 60),
        3600..86400 => format!("{}h", seconds / 3600),
        _ => format!("{}d", seconds / 86400),
    })
}

/// `20250627T153000` → `2025-06-27T153000`, the form `filebox list` prints.
pub fn listing_form(compact: &str) -> Option<String> {
    let bytes = compact.as_bytes();
    let well_formed = bytes.len() == 15
        && bytes[8] == b'T'
        && bytes[..8].iter().chain(&bytes[9..]).all(u8::is_ascii_digit);
    well_formed.then(|| format!("{}-{}-{}", &compact[..4], &compact[4..6], &compact[6..]))
}

/// A caller's "since": a date (`2025-06-27`, midnight UTC) or a timestamp, in the header form.
pub fn parse_since(value: &str) -> Option<String> {
    let value = value.trim();
    let full = if value.len() == 10 {
        format!("{value}T00:00:00Z")
    } else {
        value.to_owned()
    };
    parse_iso(&full).map(iso)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn unix_times_in_seconds_or_milliseconds_read_alike() {
        assert_eq!(
            from_unix(1_751_038_200).as_deref(),
            Some("2025-06-27T15:30:00Z")
        );
        assert_eq!(
            from_unix(1_751_038_200_123).as_deref(),
            Some("2025-06-27T15:30:00Z")
        );
        assert_eq!(from_unix(0), None);
        assert_eq!(from_unix(-5), None);
    }

    #[test]
    fn forms_round_trip() {
        let ts: Timestamp = "2025-06-27T15:30:00Z".parse().unwrap();
        assert_eq!(iso(ts), "2025-06-27T15:30:00Z");
        assert_eq!(compact(ts), "20250627T153000");
        assert_eq!(
            listing_form("20250627T153000").unwrap(),
            "2025-06-27T153000"
        );
        assert_eq!(listing_form("2025062xT153000"), None);
    }

    #[test]
    fn an_age_is_its_largest_whole_unit() {
        let now: Timestamp = "2025-06-27T15:30:00Z".parse().unwrap();
        let age = |ts| age(ts, now).unwrap();
        assert_eq!(age("2025-06-27T15:29:21Z"), "39s");
        assert_eq!(age("2025-06-27T15:00:00Z"), "30m");
        assert_eq!(age("2025-06-27T11:00:00Z"), "4h");
        assert_eq!(age("2025-06-20T15:30:00Z"), "7d");
        assert_eq!(age("2025-06-28T15:30:00Z"), "0s");
        assert_eq!(super::age("yesterday", now), None);
    }
}
