//! A question's outcome as the response message: the text the MCP tool returns, then each
//! attached file as an image, audio or embedded resource block (read from the asker's
//! mailbox), and the question's id, type and status in `Meta`.

use std::collections::BTreeMap;

use base64::Engine;
use filebox_api::verbs::{self, MediaKind};
use filebox_api::{AttachmentView, QuestionResult, QuestionStatus, render};
use filebox_core::Mailroom;

use super::proto::{AnswerResponse, EmbeddedResource, McpResultContent, MediaContent, TextContent};

/// `McpResultContent.type` values.
const TEXT: i32 = 1;
const IMAGE: i32 = 2;
const AUDIO: i32 = 3;
const EMBEDDED_RESOURCE: i32 = 4;

/// The response to request `id`. Blocking: reads the attached files.
pub(super) fn response(mailroom: &Mailroom, id: String, result: &QuestionResult) -> AnswerResponse {
    let mut contents = vec![text(render::question(result))];
    if let Some(answer) = &result.answer {
        contents.extend(
            answer
                .attachments
                .iter()
                .map(|file| attachment(mailroom, &result.id, file)),
        );
    }
    let status = match result.status {
        QuestionStatus::Open => "open",
        QuestionStatus::Answered => "answered",
        QuestionStatus::Withdrawn => "withdrawn",
    };
    let meta = BTreeMap::from([
        ("question_id".to_owned(), result.id.clone()),
        ("type".to_owned(), result.kind.clone()),
        ("status".to_owned(), status.to_owned()),
    ]);
    AnswerResponse {
        id,
        is_error: false,
        meta,
        contents,
    }
}

fn text(text: String) -> McpResultContent {
    McpResultContent {
        kind: TEXT,
        text: Some(TextContent {
            kind: "text".to_owned(),
            text,
        }),
        ..McpResultContent::default()
    }
}

fn attachment(mailroom: &Mailroom, question: &str, file: &AttachmentView) -> McpResultContent {
    let bytes = match verbs::attachment(mailroom, question, &file.name) {
        Ok(bytes) => bytes,
        Err(e) => return text(format!("(attachment {} could not be read: {e})", file.name)),
    };
    let media = |kind: &str| MediaContent {
        kind: kind.to_owned(),
        data: base64::engine::general_purpose::STANDARD.encode(&bytes),
        mime_type: file.mime_type.clone(),
    };
    match MediaKind::of(&file.mime_type) {
        MediaKind::Image => McpResultContent {
            kind: IMAGE,
            image: Some(media("image")),
            ..McpResultContent::default()
        },
        MediaKind::Audio => McpResultContent {
            kind: AUDIO,
            audio: Some(media("audio")),
            ..McpResultContent::default()
        },
        MediaKind::Resource => McpResultContent {
            kind: EMBEDDED_RESOURCE,
            embedded_resource: Some(EmbeddedResource {
                kind: "embedded_resource".to_owned(),
                uri: format!("file://{}", file.path),
                mime_type: file.mime_type.clone(),
                data: bytes,
            }),
            ..McpResultContent::default()
        },
    }
}
