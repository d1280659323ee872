//! Resources: `filebox://inbox` (my inbox as a Markdown list) and `filebox://thread/{id}` (the
//! thread of that message, merged across every mailbox, as a Markdown tree).

use std::sync::Arc;

use filebox_api::verbs::{GetThread, ListMessages};
use filebox_api::{ListArgs, ThreadArgs, Verb, VerbContext, render};
use filebox_core::Mailroom;
use filebox_core::message::FileName;
use rmcp::ErrorData;
use rmcp::model::{
    ListResourceTemplatesResult, ListResourcesResult, ReadResourceResult, Resource,
    ResourceContents, ResourceTemplate,
};

use crate::blocking::{self, Failure};

const INBOX: &str = "filebox://inbox";
const THREAD_PREFIX: &str = "filebox://thread/";
const THREAD_TEMPLATE: &str = "filebox://thread/{id}";
const MARKDOWN: &str = "text/markdown";

/// A resource URI this server serves.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) enum ResourceUri {
    Inbox,
    /// Any message of the thread: id, short id, file name or `id#n`.
    Thread(String),
}

impl ResourceUri {
    pub(crate) fn parse(uri: &str) -> Option<ResourceUri> {
        if uri == INBOX {
            return Some(ResourceUri::Inbox);
        }
        let id = uri.strip_prefix(THREAD_PREFIX)?;
        (!id.is_empty()).then(|| ResourceUri::Thread(id.to_owned()))
    }

    /// Whether a change of these inbox files (arrived or gone) updates this resource. For a
    /// thread, only a change of the named message's own file counts: a reply to it moves that
    /// file back into my inbox. Other messages of the thread changing (in any mailbox) are not
    /// noticed; re-read the resource, or call get_thread, to see them.
    pub(crate) fn is_updated_by(&self, changed: &[FileName]) -> bool {
        match self {
            ResourceUri::Inbox => !changed.is_empty(),
            ResourceUri::Thread(id) => changed.iter().any(|file| {
                file.as_str() == id || file.short_id().is_some_and(|short| id.starts_with(short))
            }),
        }
    }
}

pub(crate) fn list() -> ListResourcesResult {
    ListResourcesResult::with_all_items(vec![
        Resource::new(INBOX, "inbox")
            .with_title("My inbox")
            .with_description(
                "The messages waiting in your inbox, oldest first, one line each: short id, type, sender, age, title and file name (either is an id every tool accepts). \
                 Subscribe to hear when mail arrives.",
            )
            .with_mime_type(MARKDOWN),
    ])
}

pub(crate) fn templates() -> ListResourceTemplatesResult {
    ListResourceTemplatesResult::with_all_items(vec![
        ResourceTemplate::new(THREAD_TEMPLATE, "thread")
            .with_title("A message thread")
            .with_description(
                "The whole thread of a message (id, short id or file name), merged from every \
                 mailbox, as a Markdown tree: each message and reply with its sender, \
                 recipient, type, title, status and id, forks and obsolete nodes marked.",
            )
            .with_mime_type(MARKDOWN),
    ])
}

pub(crate) async fn read(
    mailroom: &Arc<Mailroom>,
    uri: &str,
) -> Result<ReadResourceResult, ErrorData> {
    let markdown = match ResourceUri::parse(uri) {
        Some(ResourceUri::Inbox) => {
            blocking::run(Arc::clone(mailroom), |m| {
                let all = ListArgs::whole_folder(None);
                let listing = ListMessages::run(&VerbContext::new(&m), all)?;
                Ok(render::inbox(m.me().as_str(), &listing.value))
            })
            .await
        }
        Some(ResourceUri::Thread(id)) => {
            blocking::run(Arc::clone(mailroom), move |m| {
                let thread = GetThread::run(&VerbContext::new(&m), ThreadArgs { id })?;
                Ok(render::thread(&thread.value))
            })
            .await
        }
        None => {
            return Err(ErrorData::resource_not_found(
                format!(
                    "no resource {uri:?}: resources/list and resources/templates/list name them"
                ),
                None,
            ));
        }
    };
    match markdown {
        Ok(markdown) => Ok(ReadResourceResult::new(vec![
            ResourceContents::text(markdown, uri).with_mime_type(MARKDOWN),
        ])),
        Err(Failure::Mail(filebox_core::Error::NotFound { .. })) => Err(
            ErrorData::resource_not_found(format!("no message for {uri:?}"), None),
        ),
        Err(Failure::Mail(error)) => Err(ErrorData::invalid_params(error.to_string(), None)),
        Err(Failure::Internal(error)) => Err(error),
    }
}
