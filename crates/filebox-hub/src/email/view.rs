//! `AgentEmail` from a mailbox copy (`filebox_api::MessageDetail`): header fields to the wire's
//! camelCase names, and the times (`createdAt`, `deliveredAt`, `repliedAt`) derived from the
//! file. Who the message is from and to is the core's (`filebox_core::copy`), as the thread
//! graph draws it.

use filebox_api::MessageDetail;
use filebox_core::message::{comma_list, field};

use filebox_core::{Priority, SourceType};

use super::wire::{AgentEmail, EmailCallback, EmailEvent, EmailReply};

/// The header field that keeps an email's `metadata` (one line of JSON).
pub(crate) const METADATA: &str = "Metadata";

/// `owner`'s copy of a message as an `AgentEmail`.
///
/// `createdAt` is the Timestamp header. Delivery is publication in the holder's folder, so
/// `deliveredAt` is the time of the latest reply (when the file moved to its holder), else the
/// creation time, for any status but pending. `repliedAt` is, for a replied message, the
/// latest reply's time, else the latest processing entry's (a resolution).
pub(crate) fn agent_email(owner: &str, detail: &MessageDetail) -> AgentEmail {
    let header = |key: &str| {
        detail
            .headers
            .iter()
            .find(|(k, _)| k.eq_ignore_ascii_case(key))
            .map(|(_, v)| v.trim().to_owned())
            .filter(|v| !v.is_empty())
    };
    let list = |key: &str| header(key).as_deref().map(comma_list).unwrap_or_default();
    let last_reply = detail.conversation.last().map(|c| c.timestamp.clone());
    let delivered_at = (detail.status != "pending").then(|| {
        last_reply
            .clone()
            .unwrap_or_else(|| detail.timestamp.clone())
    });
    let replied_at = (detail.status == "replied")
        .then(|| last_reply.or_else(|| detail.processing.last().map(|p| p.timestamp.clone())))
        .flatten();
    let fork_from = header(field::FORKED_FROM);
    AgentEmail {
        id: detail.id.clone(),
        from: detail.original_sender.clone(),
        to: detail.original_recipients.clone(),
        cc: list(field::CC),
        subject: detail.title.clone(),
        body: detail.body.clone(),
        kind: detail.kind.clone(),
        in_reply_to: header(field::IN_REPLY_TO),
        thread_id: header(field::THREAD_ID)
            .or_else(|| list(field::REFERENCES).into_iter().next())
            .unwrap_or_else(|| detail.id.clone()),
        priority: header(field::PRIORITY)
            .and_then(|p| Priority::parse(&p))
            .unwrap_or(Priority::Normal),
        metadata: header(METADATA).and_then(|json| serde_json::from_str(&json).ok()),
        status: detail.status.clone(),
        created_at: detail.timestamp.clone(),
        delivered_at,
        replied_at,
        source_type: header(field::SOURCE_TYPE)
            .and_then(|s| SourceType::parse(&s))
            .unwrap_or(SourceType::Agent),
        reply_to: header(field::REPLY_TO),
        callback: header(field::CALLBACK).and_then(|json| parse_callback(&json)),
        compressed_context: fork_from.as_ref().map(|_| detail.body.clone()),
        fork_from,
        fork_reason: header(field::FORK_REASON),
        obsoletes: list(field::OBSOLETES),
        mailbox: owner.to_owned(),
        folder: detail.folder,
        file: detail.file.clone(),
        replies: detail
            .conversation
            .iter()
            .map(|c| EmailReply {
                from: c.from.clone(),
                to: c.to.clone(),
                kind: c.kind.clone(),
                body: c.body.clone(),
                created_at: c.timestamp.clone(),
            })
            .collect(),
        history: detail
            .processing
            .iter()
            .map(|p| EmailEvent {
                at: p.timestamp.clone(),
                action: p.action.clone(),
                by: p.by.clone(),
                details: p.details.clone(),
            })
            .collect(),
    }
}

/// A `Callback` header as the hub writes it (the callback's JSON).
pub(crate) fn parse_callback(json: &str) -> Option<EmailCallback> {
    serde_json::from_str(json).ok()
}
