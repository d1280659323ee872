//! The human channel's surface: the web page at `/` (embedded in the binary, plain
//! HTML/CSS/JS, no build step) and the attachments it shows. The questions it lists are the
//! `open_questions` verb (JSON-RPC `questions.open`).
//!
//! Architecture Invariant: the page writes only through JSON-RPC (`email.reply`,
//! `email.send`, ...), i.e. through the verbs; these routes only read.

mod attachments;
mod page;
pub(crate) mod session;

use axum::Router;

use crate::hub::Hub;

pub use page::{PAGE_ASSETS, PageAsset};

/// The route group: the page, its assets and attachments.
pub(crate) fn routes(hub: &Hub) -> Router {
    page::routes(hub).merge(attachments::routes(hub))
}
