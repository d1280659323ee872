//! The `email.*` and `agents.list` handlers: each turns the method's params into the arguments
//! of a verb of `filebox_api::verbs` (a new message's threadId, callback and metadata, which
//! no verb schema has, as the send's `filebox_api::Extras`), acting as the agent the params
//! name, and answers with the copy as an `AgentEmail`: a send's as the verb wrote it, any
//! other as stored.

use filebox_api::access::token_sha256;
use filebox_api::verbs::{
    ForkThread, GetThread, HoldMessage, ListAgents, ListMessages, ListThreads, MessageStatus,
    ReadMessage, RejectMessage, ReplyMessage, ResolveMessage, SearchMessages, SendMessage,
};
use filebox_api::{
    AgentInfo, Extras, ForkArgs, HoldArgs, ListAgentsArgs, ListArgs, MessageDetail, ReadArgs,
    RecipientView, Recipients, RejectArgs, ReplyArgs, ResolveArgs, SearchArgs, SearchResult,
    SendArgs, Sent, StatusArgs, ThreadArgs, ThreadResult, ThreadsArgs, ThreadsResult,
    TransitionResult, Verb, VerbContext,
};
use filebox_core::message::field;
use filebox_core::{AgentId, Folder, Mailroom, MessageRef, MessageType, REPLIER_COPY_FOLDERS};
use schemars::JsonSchema;
use serde::Serialize;

use super::view::{METADATA, agent_email};
use super::wire::{
    AgentEmail, EmailCallback, ForkParams, IdParams, InboxParams, NoParams, ReadParams,
    ReplyParams, SearchParams, SendParams, ThreadsParams, TransitionParams,
};
use crate::rpc::{Ctx, RpcError};
use crate::settings::HubSection;
use crate::webhook::{self, Webhook, check_endpoint, webhooks_of};

/// The message type of a send or reply that names none.
const DEFAULT_TYPE: &str = "DIS";

/// `email.status`: the message as its sender's record sees it, and each recipient's copy.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct EmailStatus {
    #[serde(flatten)]
    pub(crate) email: AgentEmail,
    /// For a message in the viewer's outbox: where each recipient's copy is.
    pub(crate) recipients: Vec<RecipientView>,
    /// For a message with a `callback`: each reply's webhook and how far it got.
    #[serde(default, skip_serializing_if = "Vec::is_empty")]
    pub(crate) webhooks: Vec<Webhook>,
}

/// An entry of `agents.list`: `list_agents`'s, and whether it needs a token.
#[derive(Debug, Clone, Serialize, JsonSchema)]
#[serde(rename_all = "camelCase")]
pub(crate) struct AgentView {
    #[serde(flatten)]
    pub(crate) agent: AgentInfo,
    /// Whether acting for it needs a bearer token.
    pub(crate) has_token: bool,
}

/// Run a verb as `mailroom`'s agent; its value (a listing's warnings are not part of the
/// `email.*` answers).
fn run<V: Verb>(mailroom: &Mailroom, args: V::Args) -> Result<V::Output, RpcError> {
    Ok(V::run(&VerbContext::new(mailroom), args)?.value)
}

pub(crate) fn send(ctx: &Ctx, p: SendParams) -> Result<AgentEmail, RpcError> {
    // Who sends is decided first: a refused call changes nothing.
    let mailroom = ctx.act_as(&p.from, "from")?;
    let hub = ctx.hub_section()?;
    if let Some(callback) = &p.callback {
        check_callback(hub, callback)?;
    }
    let kind = message_type(p.kind.as_deref())?;
    let cx = VerbContext::new(&mailroom);
    let cc = p.cc.map(Recipients::Many);
    if let Some(answered) = p.in_reply_to {
        // A reply continues its message: to the recipients given, its header as it is.
        let args = SendArgs {
            cc,
            reply_to: Some(answered),
            attachments: p.attachments,
            idempotency_key: p.idempotency_key,
            ..SendArgs::new(p.to.join(","), kind, p.body)
        };
        let sent = SendMessage::run_with(&cx, args, &Extras::default())?;
        return reply_copy(&mailroom, sent);
    }
    if let Some(agent) = &p.reply_to {
        AgentId::new(agent).map_err(|e| RpcError::invalid_params("replyTo", e))?;
    }
    let extras = Extras::default()
        .with(field::THREAD_ID, p.thread_id)
        .with(field::CALLBACK, json_text(p.callback.as_ref())?)
        .with(METADATA, json_text(p.metadata.as_ref())?);
    let args = SendArgs {
        cc,
        title: Some(p.subject),
        priority: p.priority,
        source_type: Some(p.source_type),
        reply_to_agent: p.reply_to,
        attachments: p.attachments,
        idempotency_key: p.idempotency_key,
        to: Recipients::Many(p.to),
        ..SendArgs::new(String::new(), kind, p.body)
    };
    let sent = SendMessage::run_with(&cx, args, &extras)?;
    match sent.record {
        // My record as written, with its recipients' status at that moment: not read back.
        Some(record) => Ok(agent_email(mailroom.me().as_str(), &record)),
        // A keyed repeat: the earlier send's record, as it is now.
        None => stored_copy(&mailroom, &sent.outcome.value.file, &[Folder::Outbox]),
    }
}

/// A value as the one line of JSON a header field keeps.
fn json_text(value: Option<&impl Serialize>) -> Result<Option<String>, RpcError> {
    Ok(value.map(serde_json::to_string).transpose()?)
}

/// My copy of what a reply answered, as the reply wrote it (a keyed repeat wrote nothing: the
/// copy as stored, in a replier's folders).
fn reply_copy(mailroom: &Mailroom, sent: Sent) -> Result<AgentEmail, RpcError> {
    match sent.record {
        Some(record) => email_of(mailroom, record),
        None => stored_copy(mailroom, &sent.outcome.value.file, &REPLIER_COPY_FOLDERS),
    }
}

pub(crate) fn inbox(ctx: &Ctx, p: InboxParams) -> Result<Vec<AgentEmail>, RpcError> {
    let mailroom = ctx.act_as(&p.agent, "agent")?;
    // The verb pages the summaries; only the messages on the page are read whole.
    // `email.inbox` is the whole folder, oldest first, unless told (its documented default).
    let whole = ListArgs::whole_folder(p.folder);
    let args = ListArgs {
        unread: p.unread,
        limit: p.limit.or(whole.limit),
        offset: p.offset,
        newest_first: p.newest_first.or(whole.newest_first),
        before: p.before,
        ..whole
    };
    let listed = run::<ListMessages>(&mailroom, args)?;
    let folder = [p.folder.unwrap_or(Folder::Inbox)];
    listed
        .messages
        .iter()
        .map(|m| stored_copy(&mailroom, &m.file, &folder))
        .collect()
}

pub(crate) fn read(ctx: &Ctx, p: ReadParams) -> Result<AgentEmail, RpcError> {
    let mailroom = ctx.act_as(&p.agent, "agent")?;
    let cx =
        VerbContext::new(&mailroom).with_receipts(ctx.caller.reads_as(&ctx.config, mailroom.me()));
    let args = ReadArgs {
        id: p.id,
        folder: None,
    };
    let read = ReadMessage::run(&cx, args)?.value;
    email_of(&mailroom, read.message)
}

/// A reply goes where `filebox_core::Mailroom::reply_target` says (the message's `replyTo`,
/// else its source type and sender).
pub(crate) fn reply(ctx: &Ctx, p: ReplyParams) -> Result<AgentEmail, RpcError> {
    let mailroom = ctx.act_as(&p.from, "from")?;
    let kind = p
        .kind
        .as_deref()
        .map(|k| message_type(Some(k)))
        .transpose()?;
    let args = ReplyArgs {
        id: p.id,
        content: p.body,
        kind,
        attachments: p.attachments,
        idempotency_key: p.idempotency_key,
    };
    let sent = ReplyMessage::run_recorded(&VerbContext::new(&mailroom), args)?;
    reply_copy(&mailroom, sent)
}

pub(crate) fn threads(ctx: &Ctx, p: ThreadsParams) -> Result<ThreadsResult, RpcError> {
    let mailroom = ctx.act_as(&p.agent, "agent")?;
    run::<ListThreads>(&mailroom, ThreadsArgs { limit: p.limit })
}

/// The tree as the mailboxes within the caller's reach hold it.
pub(crate) fn thread(ctx: &Ctx, p: IdParams) -> Result<ThreadResult, RpcError> {
    let mailroom = viewer(ctx, p.agent.as_deref())?;
    run::<GetThread>(&mailroom, ThreadArgs { id: p.id })
}

pub(crate) fn fork(ctx: &Ctx, p: ForkParams) -> Result<AgentEmail, RpcError> {
    let mailroom = ctx.act_as(&p.from, "from")?;
    let forked = run::<ForkThread>(
        &mailroom,
        ForkArgs {
            from: p.fork_from,
            reason: p.fork_reason,
            context: p.compressed_context,
            to: p.to.map(Recipients::Many),
            thread: None,
        },
    )?;
    stored_copy(&mailroom, &forked.file, &[Folder::Outbox])
}

/// Seen from `agent`, else the token's agent, else the first mailbox holding the sender's
/// record (its outbox copy), else any copy. The status and the copy it is read from are the
/// core's (`Mailroom::status`); the times follow from that status.
pub(crate) fn status(ctx: &Ctx, p: IdParams) -> Result<EmailStatus, RpcError> {
    let mailroom = viewer_of(ctx, p.agent.as_deref(), &p.id)?;
    let status = run::<MessageStatus>(&mailroom, StatusArgs { id: p.id.clone() })?;
    let (copy, message) = mailroom
        .my_mailbox()?
        .read_settled(&MessageRef::parse(&status.file)?, &[status.folder])?;
    let detail = MessageDetail {
        status: status.status.to_string(),
        ..MessageDetail::new(mailroom.me(), &copy, &message)
    };
    let email = agent_email(mailroom.me().as_str(), &detail);
    // The webhooks are the sender's business: a recipient learns nothing of other replies.
    let webhooks = match &email.callback {
        Some(_) if email.from == mailroom.me().as_str() => {
            webhooks_of(&mailroom, &email.id, &copy.file)
        }
        _ => Vec::new(),
    };
    Ok(EmailStatus {
        email,
        recipients: status.recipients,
        webhooks,
    })
}

pub(crate) fn resolve(ctx: &Ctx, p: TransitionParams) -> Result<AgentEmail, RpcError> {
    let mailroom = ctx.act_as(&p.agent, "agent")?;
    let moved = run::<ResolveMessage>(
        &mailroom,
        ResolveArgs {
            id: p.id,
            details: p.details,
        },
    )?;
    moved_copy(&mailroom, &moved)
}

pub(crate) fn reject(ctx: &Ctx, p: TransitionParams) -> Result<AgentEmail, RpcError> {
    let mailroom = ctx.act_as(&p.agent, "agent")?;
    let moved = run::<RejectMessage>(
        &mailroom,
        RejectArgs {
            id: p.id,
            reason: p.details,
        },
    )?;
    moved_copy(&mailroom, &moved)
}

pub(crate) fn hold(ctx: &Ctx, p: TransitionParams) -> Result<AgentEmail, RpcError> {
    let mailroom = ctx.act_as(&p.agent, "agent")?;
    let moved = run::<HoldMessage>(
        &mailroom,
        HoldArgs {
            id: p.id,
            reason: p.details,
        },
    )?;
    moved_copy(&mailroom, &moved)
}

fn moved_copy(mailroom: &Mailroom, moved: &TransitionResult) -> Result<AgentEmail, RpcError> {
    stored_copy(mailroom, &moved.file, &[moved.folder])
}

/// One agent's mailbox; without `agent`, the token's agent's, or (without a token) every
/// mailbox within the caller's reach.
pub(crate) fn search(ctx: &Ctx, p: SearchParams) -> Result<SearchResult, RpcError> {
    let all = p.agent.is_none() && ctx.caller.agent().is_none();
    let mailroom = viewer(ctx, p.agent.as_deref())?;
    let kind = p
        .kind
        .as_deref()
        .map(|k| message_type(Some(k)))
        .transpose()?;
    let status = p
        .status
        .as_deref()
        .map(|s| s.parse().map_err(|e| RpcError::invalid_params("status", e)))
        .transpose()?;
    run::<SearchMessages>(
        &mailroom,
        SearchArgs {
            query: p.query,
            all: Some(all),
            from: p.from,
            kind,
            folder: None,
            thread: p.thread_id,
            status,
            since: p.since,
            limit: p.limit,
        },
    )
}

pub(crate) fn agents(ctx: &Ctx, _p: NoParams) -> Result<Vec<AgentView>, RpcError> {
    let listed = run::<ListAgents>(&viewer(ctx, None)?, ListAgentsArgs {})?;
    Ok(listed
        .agents
        .into_iter()
        .map(|agent| AgentView {
            has_token: AgentId::new(&agent.id)
                .ok()
                .and_then(|id| ctx.config.file.agents.get(&id))
                .is_some_and(|e| token_sha256(e).is_some()),
            agent,
        })
        .collect())
}

/// Whose view a call that looks across mailboxes runs from: `agent`, the token's agent, or
/// (without a token) the config's current agent, else the first mailbox the caller may look
/// into; its reach is the caller's.
fn viewer(ctx: &Ctx, agent: Option<&str>) -> Result<Mailroom, RpcError> {
    if let Some(agent) = agent {
        return ctx.act_as(agent, "agent");
    }
    let first = match ctx.caller.agent() {
        Some(me) => Some(me.clone()),
        // The config's current agent when the caller may act as it, else the first it may.
        None => ctx
            .config
            .current_agent(None)
            .ok()
            .filter(|current| ctx.caller.check(&ctx.config, current).is_ok())
            .or_else(|| ctx.caller.visible(&ctx.config).next()),
    };
    let first = first.ok_or_else(|| {
        RpcError::unauthorized("every mailbox has a token: send `Authorization: Bearer <token>`")
    })?;
    Ok(ctx.caller.act_as(&ctx.config, &first)?)
}

/// Whose view a message's status is read from (see [`status`]): its original sender's, whose
/// outbox record follows every recipient, when that mailbox may be read; else any holder's.
fn viewer_of(ctx: &Ctx, agent: Option<&str>, id: &str) -> Result<Mailroom, RpcError> {
    if agent.is_some() || ctx.caller.agent().is_some() {
        return viewer(ctx, agent);
    }
    let reference = MessageRef::parse(id)?;
    let readable = |agent: &AgentId| ctx.caller.check(&ctx.config, agent).is_ok();
    let holder = ctx
        .config
        .file
        .agents
        .keys()
        .filter(|agent| readable(agent))
        .find_map(|agent| {
            let mailroom = ctx.caller.act_as(&ctx.config, agent).ok()?;
            let copy = mailroom
                .my_mailbox()
                .ok()?
                .find(&reference, &Folder::ALL)
                .ok()?;
            Some((mailroom, copy))
        });
    let Some((holder, copy)) = holder else {
        return Err(filebox_core::Error::NotFound {
            reference: id.to_owned(),
            searched: "any mailbox of the config".into(),
        }
        .into());
    };
    let sender = copy
        .header
        .get(field::ORIGINAL_SENDER)
        .and_then(|name| AgentId::new(name).ok())
        .filter(|sender| readable(sender));
    let sender_record = sender.and_then(|sender| {
        let mailroom = ctx.caller.act_as(&ctx.config, &sender).ok()?;
        mailroom
            .my_mailbox()
            .ok()?
            .find(&reference, &[Folder::Outbox])
            .ok()?;
        Some(mailroom)
    });
    Ok(sender_record.unwrap_or(holder))
}

/// `me`'s copy of a message, found by reference in `folders`, as an `AgentEmail`. Every
/// caller gives the file name a verb answered with: one open per folder, where an id would
/// read each folder the index is not current for (an outbox grows by every send).
fn stored_copy(
    mailroom: &Mailroom,
    reference: &str,
    folders: &[Folder],
) -> Result<AgentEmail, RpcError> {
    let mailbox = mailroom.my_mailbox()?;
    // Settled: a webhook attempt being recorded, or a transition, may be moving the file.
    let (envelope, message) = mailbox.read_settled(&MessageRef::parse(reference)?, folders)?;
    email_of(
        mailroom,
        MessageDetail::new(mailroom.me(), &envelope, &message),
    )
}

/// `me`'s copy as an `AgentEmail`. The record of a message I started stands for how far its
/// recipients got, as `email.status` says (mail to another machine is pending until its hub
/// has it, so it has no deliveredAt yet); any other copy, a reply's record included, for itself.
fn email_of(mailroom: &Mailroom, mut detail: MessageDetail) -> Result<AgentEmail, RpcError> {
    if detail.folder == Folder::Outbox && detail.original_sender == mailroom.me().as_str() {
        // By file name (every copy of a message has its name): an open per folder, where the
        // id would read each folder of mine and of every recipient's the index is behind on.
        detail.status = mailroom
            .status(&MessageRef::parse(&detail.file)?)?
            .status
            .to_string();
    }
    Ok(agent_email(mailroom.me().as_str(), &detail))
}

/// A callback the hub can fire: an allowed `http://` endpoint (an rpc callback's `url`, with
/// a method name), and a secret to sign with.
fn check_callback(hub: &HubSection, callback: &EmailCallback) -> Result<(), RpcError> {
    let (target, field) = callback.target();
    let Some(target) = target else {
        return Err(RpcError::invalid_params(
            "callback.url",
            "an rpc callback needs the url of the JSON-RPC endpoint that has the method",
        ));
    };
    if let Some(method) = callback.method() {
        webhook::check_method(method)
            .map_err(|why| RpcError::invalid_params("callback.endpoint", why))?;
    }
    if !hub.allows_callback(target) {
        return Err(RpcError::invalid_params(
            field,
            "not allowed: it must be under an entry of the config's hub.callback_allow (the same scheme, host and port, the entry's path as whole segments, no user name)",
        ));
    }
    check_endpoint(target).map_err(|why| RpcError::invalid_params(field, why))?;
    if hub.webhook_secret.is_none() {
        return Err(RpcError::invalid_params(
            "callback",
            "the config has no hub.webhook_secret, so callbacks cannot be signed",
        ));
    }
    Ok(())
}

fn message_type(kind: Option<&str>) -> Result<MessageType, RpcError> {
    MessageType::new(kind.unwrap_or(DEFAULT_TYPE)).map_err(|e| RpcError::invalid_params("type", e))
}
