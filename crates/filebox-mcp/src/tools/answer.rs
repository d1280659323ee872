//! A human's answer as MCP content: the text comes from the verb's rendering; each
//! attached file becomes `ImageContent`, `AudioContent`, or an `EmbeddedResource` blob with
//! its MIME type, read from the asker's mailbox.

use base64::Engine;
use filebox_api::verbs::{self, MediaKind};
use filebox_core::Mailroom;
use rmcp::model::{ContentBlock, ResourceContents};
use serde_json::Value;

/// The content blocks of the attachments of the answer a verb result carries (none when the
/// result has no answer). Blocking: reads files.
pub(super) fn attachments(mailroom: &Mailroom, value: &Value) -> Vec<ContentBlock> {
    let id = value["id"].as_str().unwrap_or_default();
    let Some(attached) = value["answer"]["attachments"].as_array() else {
        return Vec::new();
    };
    attached
        .iter()
        .map(|file| {
            let name = file["name"].as_str().unwrap_or_default();
            let mime = file["mime_type"]
                .as_str()
                .unwrap_or("application/octet-stream");
            match verbs::attachment(mailroom, id, name) {
                Ok(bytes) => block(&bytes, mime, file["path"].as_str().unwrap_or(name)),
                Err(e) => ContentBlock::text(format!("(attachment {name} could not be read: {e})")),
            }
        })
        .collect()
}

fn block(bytes: &[u8], mime: &str, path: &str) -> ContentBlock {
    let data = base64::engine::general_purpose::STANDARD.encode(bytes);
    match MediaKind::of(mime) {
        MediaKind::Image => ContentBlock::image(data, mime),
        MediaKind::Audio => ContentBlock::audio(data, mime),
        MediaKind::Resource => ContentBlock::resource(
            ResourceContents::blob(data, format!("file://{path}")).with_mime_type(mime),
        ),
    }
}
