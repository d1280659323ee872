//! The page's files (`ui/`), embedded with `include_str!` and listed once in [`PAGE_ASSETS`]:
//! each is served at its path with its content type and a strict Content Security Policy
//! (scripts, styles, images and connections only from the hub itself; images also from the
//! `blob:` URLs of files the human is about to send, previewed in the answer box; never of an
//! attachment someone else sent, which the page draws as pixels or offers as a download: see
//! `ui/markdown.js`). Forms only to the hub: the download link of an attachment posts there.
//! The page itself (`/`) also hands its browser the page's session (`session.rs`).

use axum::Router;
use axum::http::header;
use axum::response::{IntoResponse, Response};
use axum::routing::get;

use crate::hub::Hub;

/// One file of the page.
#[derive(Debug)]
pub struct PageAsset {
    /// Where it is served.
    pub path: &'static str,
    pub content_type: &'static str,
    pub body: &'static str,
}

const HTML: &str = "text/html; charset=utf-8";
const CSS: &str = "text/css; charset=utf-8";
const JS: &str = "text/javascript; charset=utf-8";
const SVG: &str = "image/svg+xml";

const fn asset(path: &'static str, content_type: &'static str, body: &'static str) -> PageAsset {
    PageAsset {
        path,
        content_type,
        body,
    }
}

/// Every file of the page. The scripts are ES modules: `main.js` imports the others.
pub const PAGE_ASSETS: &[PageAsset] = &[
    asset("/", HTML, include_str!("../../ui/index.html")),
    asset("/app.css", CSS, include_str!("../../ui/app.css")),
    asset("/favicon.svg", SVG, include_str!("../../ui/favicon.svg")),
    asset("/main.js", JS, include_str!("../../ui/main.js")),
    asset("/dom.js", JS, include_str!("../../ui/dom.js")),
    asset("/rpc.js", JS, include_str!("../../ui/rpc.js")),
    asset("/markdown.js", JS, include_str!("../../ui/markdown.js")),
    asset("/table.js", JS, include_str!("../../ui/table.js")),
    asset("/dates.js", JS, include_str!("../../ui/dates.js")),
    asset("/kinds.js", JS, include_str!("../../ui/kinds.js")),
    asset("/events.js", JS, include_str!("../../ui/events.js")),
    asset("/notify.js", JS, include_str!("../../ui/notify.js")),
    asset("/questions.js", JS, include_str!("../../ui/questions.js")),
    asset("/card.js", JS, include_str!("../../ui/card.js")),
    asset(
        "/answer-files.js",
        JS,
        include_str!("../../ui/answer-files.js"),
    ),
    asset("/mail.js", JS, include_str!("../../ui/mail.js")),
    asset("/reader.js", JS, include_str!("../../ui/reader.js")),
    asset("/thread.js", JS, include_str!("../../ui/thread.js")),
    asset("/compose.js", JS, include_str!("../../ui/compose.js")),
];

/// No inline script or style, no framing, no plugins, no foreign connections.
const CSP: &str = "default-src 'none'; script-src 'self'; style-src 'self'; connect-src 'self'; \
                   img-src 'self' blob: data:; base-uri 'none'; form-action 'self'; \
                   frame-ancestors 'none'";

pub(super) fn routes(hub: &Hub) -> Router {
    let cookie = hub.page_session().map(super::session::set_cookie);
    PAGE_ASSETS.iter().fold(Router::new(), |router, asset| {
        let cookie = cookie.clone().filter(|_| asset.path == "/");
        router.route(
            asset.path,
            get(move || async move {
                let mut response = serve(asset);
                if let Some(value) = cookie.and_then(|c| c.parse().ok()) {
                    response.headers_mut().insert(header::SET_COOKIE, value);
                }
                response
            }),
        )
    })
}

fn serve(asset: &'static PageAsset) -> Response {
    (
        [
            (header::CONTENT_TYPE, asset.content_type),
            (header::CONTENT_SECURITY_POLICY, CSP),
            (header::X_CONTENT_TYPE_OPTIONS, "nosniff"),
            // No referrer leaves the hub; a form posted to the hub (an attachment's download)
            // keeps its Origin, which `no-referrer` would make `null` and the guard refuse.
            (header::REFERRER_POLICY, "same-origin"),
            (header::CACHE_CONTROL, "no-cache"),
        ],
        asset.body,
    )
        .into_response()
}
