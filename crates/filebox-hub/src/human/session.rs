//! The page's own session: a secret the hub draws at start and keeps in memory only, handed to
//! the browser that loads the page as an `HttpOnly`, `SameSite=Strict` cookie, which the page's
//! requests carry back. It marks a tokenless request as the page's
//! (`filebox_api::access::Caller::Page`), which alone of the tokenless ones may answer a
//! permission prompt: a bare `POST /rpc` from some local process carries no such cookie. It is
//! no secret from a process that loads the page itself; the human's token is (README.md, "What
//! protects a permission answer").

use axum::http::{HeaderMap, header};

/// The cookie's name.
const COOKIE: &str = "filebox_page";

/// The `Set-Cookie` value that hands the session to the page's browser.
pub(crate) fn set_cookie(secret: &str) -> String {
    format!("{COOKIE}={secret}; Path=/; HttpOnly; SameSite=Strict")
}

/// Whether the request's cookies hold the page's session `secret` (`None`: the hub has none).
pub(crate) fn presented(headers: &HeaderMap, secret: Option<&str>) -> bool {
    let Some(secret) = secret else {
        return false;
    };
    headers
        .get_all(header::COOKIE)
        .iter()
        .filter_map(|value| value.to_str().ok())
        .flat_map(|value| value.split(';'))
        .filter_map(|pair| pair.trim().split_once('='))
        .any(|(name, value)| {
            name == COOKIE && filebox_api::access::constant_time_eq(value.trim(), secret)
        })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn only_the_secret_under_its_name_is_the_session() {
        let with = |cookie: &str| {
            let mut headers = HeaderMap::new();
            headers.insert(header::COOKIE, cookie.parse().unwrap());
            headers
        };
        assert!(presented(&with("a=b; filebox_page=s3cret"), Some("s3cret")));
        assert!(!presented(&with("filebox_page=other"), Some("s3cret")));
        assert!(!presented(&with("other=s3cret"), Some("s3cret")));
        assert!(!presented(&with("filebox_page="), None));
        assert!(!presented(&HeaderMap::new(), Some("s3cret")));
    }
}
