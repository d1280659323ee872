//! Claude Code's channel, over stdio: new inbox mail pushed into the running session as
//! `notifications/claude/channel` (a digest notice and its facts as `meta`), and tool-use
//! approvals the session relays (`notifications/claude/channel/permission_request`) asked of
//! the agent's human, the decision sent back as `notifications/claude/channel/permission`.
//!
//! The push claims mail under the same cursor as `wait_for_messages` (the core's change feed,
//! no polling), writes read receipts, sends, then commits: a pushed message is not returned by
//! the next wait, none is pushed twice (a restart included), and one whose send failed is
//! pushed or waited for again. A host cannot be asked whether it listens (Claude Code drops
//! channel events silently unless started with the channel), so the push runs only when the
//! client declares `experimental["claude/channel"]` or the server was started with
//! `--channel`: a host that does not listen loses nothing to it.

use std::sync::{Arc, Mutex, OnceLock, PoisonError};
use std::time::Duration;

use filebox_api::Notice;
use filebox_api::advice::Surface;
use filebox_core::message::{field, is_question};
use filebox_core::permission::{PermissionRequest, RelayWait, Relayed};
use filebox_core::{Envelope, Mailbox, Mailroom};
use rmcp::model::{CustomNotification, ServerNotification};
use rmcp::service::{Peer, RoleServer};
use serde::Deserialize;
use serde_json::json;
use tokio::runtime::Handle;
use tokio::task::JoinHandle;
use tokio_util::sync::CancellationToken;

/// The capability that makes this server a channel.
pub(crate) const CHANNEL: &str = "claude/channel";
/// The capability that asks the host to relay its permission prompts.
pub(crate) const PERMISSION: &str = "claude/channel/permission";
const PUSH: &str = "notifications/claude/channel";
pub(crate) const PERMISSION_REQUEST: &str = "notifications/claude/channel/permission_request";
const PERMISSION_DECISION: &str = "notifications/claude/channel/permission";
/// How long a relayed prompt waits for the human before it is withdrawn.
pub(crate) const PERMISSION_TIMEOUT: Duration = Duration::from_secs(300);
/// How long the push rests after a failed look before it looks again.
const RETRY: Duration = Duration::from_secs(1);

/// When the server pushes mail.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ChannelMode {
    /// When the client declares `experimental["claude/channel"]` in `initialize`.
    WhenDeclared,
    /// Always (`filebox mcp --channel`: the host was started with this channel enabled).
    Always,
}

/// One stdio session's channel: the push, the relayed prompts, and what stops them.
#[derive(Debug)]
pub(crate) struct Channel {
    mode: ChannelMode,
    stop: CancellationToken,
    /// The relayed prompts still waiting: each is told why once the session goes on.
    waiting: Mutex<Vec<Arc<OnceLock<String>>>>,
    /// The blocking work to let finish when the session ends (withdrawals, the push).
    tasks: Mutex<Vec<JoinHandle<()>>>,
}

/// `notifications/claude/channel/permission_request`'s params.
#[derive(Debug, Deserialize)]
struct PermissionParams {
    request_id: String,
    tool_name: String,
    #[serde(default)]
    description: String,
    #[serde(default)]
    input_preview: String,
}

impl Channel {
    pub(crate) fn new(mode: ChannelMode) -> Self {
        Channel {
            mode,
            stop: CancellationToken::new(),
            waiting: Mutex::new(Vec::new()),
            tasks: Mutex::new(Vec::new()),
        }
    }

    /// Whether `server/discover` is refused, so the client negotiates with `initialize`: a
    /// server started as a channel (`--channel`) is. Claude Code delivers channel events only
    /// on a connection of the handshake revisions (2025-11-25 and before); on one it opened
    /// with `server/discover` (2026-07-28) it skips channels ("this connection's protocol
    /// version has no channel delivery path"), and a push is sent only once `initialize` is
    /// done (`Channel::start`).
    pub(crate) fn refuses_discover(&self) -> bool {
        self.mode == ChannelMode::Always
    }

    /// Start pushing, once the session is initialized, if the client listens (see the module).
    pub(crate) fn start(&self, mailroom: Arc<Mailroom>, peer: Peer<RoleServer>) {
        let declared = peer
            .peer_info()
            .and_then(|info| info.capabilities.experimental.clone())
            .is_some_and(|experimental| experimental.contains_key(CHANNEL));
        if self.mode == ChannelMode::WhenDeclared && !declared {
            return;
        }
        let stop = self.stop.clone();
        let runtime = Handle::current();
        self.keep(tokio::task::spawn_blocking(move || {
            push(&mailroom, &peer, &runtime, &stop);
        }));
    }

    /// A notification from the session: a permission request is relayed to the human; any
    /// other says the session went on.
    pub(crate) fn notified(
        &self,
        mailroom: Arc<Mailroom>,
        peer: Peer<RoleServer>,
        notification: &CustomNotification,
    ) {
        if notification.method != PERMISSION_REQUEST {
            self.went_on(&format!("the session went on ({})", notification.method));
            return;
        }
        let params = match notification.params_as::<PermissionParams>() {
            Ok(Some(params)) => params,
            Ok(None) | Err(_) => {
                tracing::warn!("a permission request without its params was ignored");
                return;
            }
        };
        // Prompts come one at a time: a new one means the last was answered in the terminal.
        self.went_on("a later permission prompt came from the session");
        let gone = Arc::new(OnceLock::new());
        self.lock_waiting().push(Arc::clone(&gone));
        let client = peer.peer_info().map(|info| info.client_info.name.clone());
        let runtime = Handle::current();
        self.keep(tokio::task::spawn_blocking(move || {
            relay(&mailroom, &peer, &runtime, params, &gone, client.as_deref());
        }));
    }

    /// The session did something after its prompts (a tool call, a notification): they were
    /// answered in the terminal, so withdraw them, saying `why`.
    pub(crate) fn went_on(&self, why: &str) {
        for gone in self.lock_waiting().drain(..) {
            let _ = gone.set(why.to_owned());
        }
    }

    /// The session ended: withdraw the waiting prompts, stop the push, and let both finish.
    pub(crate) async fn end(&self) {
        self.went_on("the session ended");
        self.stop.cancel();
        let tasks: Vec<_> =
            std::mem::take(&mut *self.tasks.lock().unwrap_or_else(PoisonError::into_inner));
        for task in tasks {
            let _ = task.await;
        }
    }

    fn keep(&self, task: JoinHandle<()>) {
        let mut tasks = self.tasks.lock().unwrap_or_else(PoisonError::into_inner);
        tasks.retain(|task| !task.is_finished());
        tasks.push(task);
    }

    fn lock_waiting(&self) -> std::sync::MutexGuard<'_, Vec<Arc<OnceLock<String>>>> {
        self.waiting.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Push every message that reaches the inbox until `stop` or the client is gone. A failed look
/// is reported on stderr and tried again.
fn push(mailroom: &Mailroom, peer: &Peer<RoleServer>, runtime: &Handle, stop: &CancellationToken) {
    let stopped = || stop.is_cancelled() || peer.is_transport_closed();
    let mailbox = match mailroom.my_mailbox() {
        Ok(mailbox) => mailbox,
        Err(e) => {
            tracing::warn!("channel: cannot open the inbox: {e}");
            return;
        }
    };
    while !stopped() {
        match push_next(mailroom, &mailbox, peer, runtime, &stopped) {
            Ok(()) => {}
            Err(e) => {
                tracing::warn!("channel: {e}");
                std::thread::sleep(RETRY);
            }
        }
    }
}

/// Claim the next mail (waiting for it), write its receipts, send a notice of each, then
/// commit the claim. A send that fails leaves the claim uncommitted: the mail stays new.
fn push_next(
    mailroom: &Mailroom,
    mailbox: &Mailbox,
    peer: &Peer<RoleServer>,
    runtime: &Handle,
    stopped: &dyn Fn() -> bool,
) -> filebox_core::Result<()> {
    let (arrived, mut claim) = mailbox.claim_mail(None, stopped)?;
    for problem in &arrived.unreadable {
        tracing::warn!(
            "channel: skipped {}: {}",
            problem.path.display(),
            problem.reason
        );
    }
    let me = mailroom.me().as_str();
    let shown: Vec<Envelope> = arrived
        .messages
        .into_iter()
        .filter(|envelope| !answer_to_my_question(envelope, me))
        .collect();
    claim.mark_read(&shown, me, "channel")?;
    for envelope in &shown {
        // Moved on since it was claimed (held, answered by another process): nothing to say.
        let Ok(message) = mailbox.read(envelope) else {
            continue;
        };
        let notice = Notice::new(mailroom.config(), envelope, &message, Surface::Tools);
        let params = json!({ "content": notice.content, "meta": notice.meta });
        if !send(peer, runtime, PUSH, params) {
            return Ok(());
        }
    }
    claim.commit()
}

/// An answer to a question I asked (`ask_question`, a relayed prompt): the call waiting for
/// it takes it, so it is not pushed as mail.
fn answer_to_my_question(envelope: &Envelope, me: &str) -> bool {
    is_question(&envelope.header.kind)
        && envelope
            .header
            .get(field::ORIGINAL_SENDER)
            .or(envelope.header.get(field::SENDER))
            == Some(me)
}

/// Ask the human about one prompt and send the decision, unless the prompt is withdrawn.
fn relay(
    mailroom: &Mailroom,
    peer: &Peer<RoleServer>,
    runtime: &Handle,
    params: PermissionParams,
    gone: &OnceLock<String>,
    client: Option<&str>,
) {
    let request = PermissionRequest {
        request_id: params.request_id,
        tool_name: params.tool_name,
        description: params.description,
        input_preview: params.input_preview,
    };
    let project = std::env::current_dir()
        .map(|dir| dir.display().to_string())
        .unwrap_or_default();
    let wait = RelayWait {
        timeout: PERMISSION_TIMEOUT,
        gone: &|| gone.get().cloned(),
    };
    match mailroom.relay_permission(&request, &project, client, &wait) {
        Ok(Relayed::Decided { behavior, .. }) => {
            let params = json!({ "request_id": request.request_id, "behavior": behavior.as_str() });
            send(peer, runtime, PERMISSION_DECISION, params);
        }
        Ok(Relayed::Withdrawn(_)) => {}
        Err(e) => tracing::warn!("permission request {}: {e}", request.request_id),
    }
}

/// Send one notification from a blocking thread; `false` once the client is gone.
fn send(
    peer: &Peer<RoleServer>,
    runtime: &Handle,
    method: &str,
    params: serde_json::Value,
) -> bool {
    let notification = CustomNotification::new(method, Some(params));
    runtime
        .block_on(peer.send_notification(ServerNotification::CustomNotification(notification)))
        .is_ok()
}
