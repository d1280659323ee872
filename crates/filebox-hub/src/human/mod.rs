//! The human channel's surface (seed 001): the web page at `/` (embedded in the binary, plain
//! HTML/CSS/JS, no build step), the attachments it shows, and the `questions.open` method.
//!
//! Architecture Invariant: the page writes only through JSON-RPC (`email.reply`,
//! `email.send`, ...), i.e. through the verbs; these routes only read.

mod attachments;
mod page;
mod questions;

use axum::Router;

use crate::hub::Hub;

pub use page::{PAGE_ASSETS, PageAsset};
pub(crate) use questions::{OpenParams, open_questions};

/// The route group: the page, its assets and attachments.
pub(crate) fn routes(hub: &Hub) -> Router {
    page::routes().merge(attachments::routes(hub))
}
