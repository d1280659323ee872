//! Agent Assistant's human client (the origin's Flutter app and web page) at `GET /ws`: a
//! WebSocket of binary frames, each a protobuf `WebsocketMessage` (`proto.rs`). The client
//! logs in with a FileBox human's token (`UserLogin`), then sees that human's open questions
//! and work reports (`GetPendingMessages` on login, `AskQuestion` / `WorkReport` pushed as they
//! arrive), answers them (`AskQuestionReply` / `WorkReportReply`: the question's reply in the
//! files, the first answer wins), and is told when one leaves otherwise: answered elsewhere
//! (`…ReplyNotification`) or withdrawn by its agent (`RequestCancelled`). Plus what the
//! origin's clients expect around it: validity checks, the online list and chat between the
//! clients of one human (`presence.rs`).
//!
//! Files are the truth: a session keeps only which questions it has shown; on every live event
//! of the human's mailbox (and after a `resync` or a lag) it lists the open questions again
//! and tells the client the difference. The route sits behind the hub's guards (Host and
//! Origin), a session takes a slot of the event-stream bound when it logs in (never before: an
//! upgrade anyone can make must not take what a token holder's `/events` needs), one that has
//! not logged in within 10 s is closed, frames are bounded by the body limit, and a client
//! silent for 60 s (it answers the pings sent every 54 s) or one that takes nothing for the
//! idle timeout is dropped. Text frames are ignored, as the origin does.

mod presence;
pub(crate) mod proto;
mod questions;

use std::collections::BTreeMap;
use std::sync::Arc;
use std::time::Duration;

use axum::Router;
use axum::extract::State;
use axum::extract::ws::{Message, WebSocket, WebSocketUpgrade};
use axum::response::Response;
use axum::routing::get;
use prost::Message as _;
use tokio::sync::{broadcast, mpsc};
use tokio::time::Instant;

use crate::connect::proto::AnswerResponse;
use crate::hub::Hub;
use crate::limits::Slot;
use presence::Presence;
use proto::{
    ChatMessage, ChatMessageNotification, CheckMessageValidityResponse, GetOnlineUsersResponse,
    GetPendingMessagesResponse, OnlineUser, RequestCancelledNotification, UserLoginResponse,
    WebsocketMessage, cmd,
};
use questions::{Gone, Login, Shown};

/// How often the hub pings a client.
const PING: Duration = Duration::from_secs(54);
/// How long a client may send nothing (not even a pong) before it is dropped.
const SILENCE: Duration = Duration::from_secs(60);
/// How long a connection may stay without logging in. The origin's clients send `UserLogin`
/// as soon as the socket opens, so 10 s is ample for them; a socket that does not log in holds
/// one of the listener's `max_connections` meanwhile, so it must not hold it for long.
const LOG_IN_WITHIN: Duration = Duration::from_secs(10);
/// Messages waiting for one client from the others (chat, notices); past it they are dropped.
const OUTBOX: usize = 64;

#[derive(Clone)]
struct Ws {
    hub: Hub,
    presence: Arc<Presence>,
}

/// The route group: `GET /ws`.
pub(crate) fn routes(hub: &Hub) -> Router {
    let state = Ws {
        hub: hub.clone(),
        presence: Arc::default(),
    };
    Router::new().route("/ws", get(upgrade)).with_state(state)
}

async fn upgrade(State(ws): State<Ws>, upgrade: WebSocketUpgrade) -> Response {
    let limit = ws.hub.body_limit();
    upgrade
        .max_message_size(limit)
        .max_frame_size(limit)
        .on_upgrade(move |socket| Session::new(ws, socket).run())
}

/// One client's connection.
struct Session {
    ws: Ws,
    socket: WebSocket,
    /// The login, and this client's id and nickname.
    login: Option<(Login, OnlineUser)>,
    /// The session's slot of the event-stream bound (`Hub::streams`), taken at the first
    /// login and given back when the session ends.
    slot: Option<Slot>,
    /// The open questions this client has been shown, by id: `true` for a work report.
    shown: BTreeMap<String, bool>,
    outbox: mpsc::Sender<WebsocketMessage>,
    inbox: mpsc::Receiver<WebsocketMessage>,
}

/// Why a session ends.
enum End {
    /// The client went away, or its connection failed.
    Gone,
    /// The client is told why, then the connection closes.
    Refused(String),
}

impl Session {
    fn new(ws: Ws, socket: WebSocket) -> Session {
        let (outbox, inbox) = mpsc::channel(OUTBOX);
        Session {
            ws,
            socket,
            login: None,
            slot: None,
            shown: BTreeMap::new(),
            outbox,
            inbox,
        }
    }

    async fn run(mut self) {
        let stop = self.ws.hub.sessions();
        let mut events = self.ws.hub.events().live();
        let mut ping = tokio::time::interval_at(Instant::now() + PING, PING);
        let mut heard = Instant::now();
        let log_in_by = Instant::now() + LOG_IN_WITHIN;
        let end = loop {
            let step = tokio::select! {
                () = stop.cancelled() => Err(End::Gone),
                frame = self.socket.recv() => {
                    heard = Instant::now();
                    match frame {
                        Some(Ok(Message::Binary(bytes))) => self.on_frame(&bytes).await,
                        Some(Ok(Message::Close(_)) | Err(_)) | None => Err(End::Gone),
                        Some(Ok(_)) => Ok(()),
                    }
                }
                Some(message) = self.inbox.recv() => self.send(message).await,
                event = events.recv(), if self.login.is_some() => match event {
                    Ok(event) if !self.concerns(&event) => Ok(()),
                    Ok(_) | Err(broadcast::error::RecvError::Lagged(_)) => self.refresh().await,
                    Err(broadcast::error::RecvError::Closed) => Err(End::Gone),
                },
                () = tokio::time::sleep_until(heard + SILENCE) => Err(End::Gone),
                () = tokio::time::sleep_until(log_in_by), if self.login.is_none() => {
                    Err(End::Refused(format!(
                        "not logged in within {} s of connecting: send UserLogin first",
                        LOG_IN_WITHIN.as_secs()
                    )))
                }
                _ = ping.tick() => {
                    self.socket.send(Message::Ping(Default::default())).await.map_err(|_| End::Gone)
                }
            };
            if let Err(end) = step {
                break end;
            }
        };
        if let End::Refused(reason) = end {
            let _ = self.send(login_response("", Err(reason))).await;
            let _ = self.socket.send(Message::Close(None)).await;
        }
        if let Some((_, user)) = &self.login {
            self.ws.presence.leave(&user.client_id);
        }
    }

    /// Whether a live event may change the human's open questions.
    fn concerns(&self, event: &crate::events::HubEvent) -> bool {
        event.is_resync()
            || self
                .login
                .as_ref()
                .is_some_and(|(login, _)| event.agent == login.human.as_str())
    }

    async fn send(&mut self, message: WebsocketMessage) -> Result<(), End> {
        self.socket
            .send(Message::Binary(message.encode_to_vec().into()))
            .await
            .map_err(|_| End::Gone)
    }

    async fn on_frame(&mut self, bytes: &[u8]) -> Result<(), End> {
        // A frame that is not a `WebsocketMessage` is ignored, as an unknown command is.
        let Ok(message) = WebsocketMessage::decode(bytes) else {
            return Ok(());
        };
        if message.cmd == cmd::USER_LOGIN {
            return self.log_in(message).await;
        }
        let Some((login, user)) = self.login.clone() else {
            let refusal = login_response("", Err("log in first (UserLogin)".to_owned()));
            return self.send(refusal).await;
        };
        match message.cmd.as_str() {
            cmd::GET_PENDING_MESSAGES => self.pending(&login).await,
            cmd::CHECK_MESSAGE_VALIDITY => {
                let ids = message
                    .check_message_validity_request
                    .map(|r| r.request_ids)
                    .unwrap_or_default();
                self.validity(&login, ids).await
            }
            cmd::ASK_QUESTION_REPLY => {
                let response = message.ask_question_response;
                let id = replied_to(
                    message.ask_question_request.map(|r| r.id),
                    response.as_ref(),
                );
                self.answer(&login, &user, id, response, false).await
            }
            cmd::WORK_REPORT_REPLY | cmd::TASK_FINISH_REPLY => {
                let response = message.work_report_response;
                let id = replied_to(message.work_report_request.map(|r| r.id), response.as_ref());
                self.answer(&login, &user, id, response, true).await
            }
            cmd::GET_ONLINE_USERS => {
                let users = self.ws.presence.online(&login.human);
                let reply = WebsocketMessage {
                    cmd: cmd::GET_ONLINE_USERS.to_owned(),
                    get_online_users_response: Some(GetOnlineUsersResponse {
                        total_count: count(users.len()),
                        online_users: users,
                    }),
                    ..WebsocketMessage::default()
                };
                self.send(reply).await
            }
            cmd::SEND_CHAT_MESSAGE => {
                let Some(chat) = message.send_chat_message_request else {
                    return Ok(());
                };
                self.chat(&login, &user, chat.receiver_client_id, chat.content);
                Ok(())
            }
            _ => Ok(()),
        }
    }

    /// `UserLogin`: `StrParam` the token, `Nickname` the name shown to the others. A refused
    /// login ends the connection.
    async fn log_in(&mut self, message: WebsocketMessage) -> Result<(), End> {
        let hub = self.ws.hub.clone();
        let token = message.str_param;
        let login = blocking(move || {
            let login = Login::new(&hub, &token)?;
            let open = login.open()?;
            Ok((login, open))
        })
        .await;
        let (login, open) = login.map_err(End::Refused)?;
        if self.slot.is_none() {
            let slot = self.ws.hub.streams().enter();
            self.slot = Some(slot.map_err(|full| End::Refused(full.to_string()))?);
        }
        if let Some((_, before)) = self.login.take() {
            self.ws.presence.leave(&before.client_id);
        }
        let client_id = filebox_api::access::new_token()
            .map(|token| token[..16].to_owned())
            .map_err(|e| End::Refused(format!("no client id: {e}")))?;
        let nickname = Some(message.nickname.trim().to_owned())
            .filter(|n| !n.is_empty())
            .unwrap_or_else(|| login.human.to_string());
        let user = OnlineUser {
            client_id: client_id.clone(),
            nickname,
            connected_at: filebox_core::time::now().as_second(),
        };
        // What is open now is the client's pending list (`GetPendingMessages`); what comes
        // after is pushed.
        self.shown = open.iter().map(|s| (s.id.clone(), s.is_report())).collect();
        self.ws
            .presence
            .join(&login.human, user.clone(), self.outbox.clone());
        self.login = Some((login, user));
        self.send(login_response(&client_id, Ok(()))).await
    }

    async fn pending(&mut self, login: &Login) -> Result<(), End> {
        let open = list(login).await?;
        for shown in &open {
            self.shown.insert(shown.id.clone(), shown.is_report());
        }
        let pending: Vec<_> = open.into_iter().map(|s| s.pending).collect();
        let reply = WebsocketMessage {
            cmd: cmd::GET_PENDING_MESSAGES.to_owned(),
            get_pending_messages_response: Some(GetPendingMessagesResponse {
                total_count: count(pending.len()),
                pending_messages: pending,
            }),
            ..WebsocketMessage::default()
        };
        self.send(reply).await
    }

    async fn validity(&mut self, login: &Login, ids: Vec<String>) -> Result<(), End> {
        let open = list(login).await?;
        let validity = ids
            .into_iter()
            .map(|id| {
                let valid = open.iter().any(|s| s.id == id);
                (id, valid)
            })
            .collect();
        let reply = WebsocketMessage {
            cmd: cmd::CHECK_MESSAGE_VALIDITY.to_owned(),
            check_message_validity_response: Some(CheckMessageValidityResponse { validity }),
            ..WebsocketMessage::default()
        };
        self.send(reply).await
    }

    /// A reply from this client. Refused (answered or withdrawn meanwhile, a bad id): the
    /// client is told with a `RequestCancelled` naming the reason, so it drops the question.
    async fn answer(
        &mut self,
        login: &Login,
        user: &OnlineUser,
        id: Option<String>,
        response: Option<AnswerResponse>,
        report: bool,
    ) -> Result<(), End> {
        let Some(id) = id.filter(|id| !id.is_empty()) else {
            return Ok(());
        };
        let answering = login.clone();
        let question = id.clone();
        let response = response.unwrap_or_default();
        // Noted before the answer is written: the other clients' sessions hear of the answer
        // from the files at once, and must find who gave it.
        self.ws
            .presence
            .answered(&id, &user.client_id, &user.nickname);
        let answered = blocking(move || answering.answer(&question, response)).await;
        self.shown.remove(&id);
        match answered {
            Ok(()) => Ok(()),
            Err(reason) => {
                self.ws.presence.not_answered(&id, &user.client_id);
                let reason = format!("not answered: {reason}");
                self.send(cancelled(&id, report, reason)).await
            }
        }
    }

    fn chat(&self, login: &Login, user: &OnlineUser, receiver: String, content: String) {
        let presence = &self.ws.presence;
        let Some(receiver_nickname) = presence.nickname(&login.human, &receiver) else {
            return;
        };
        let message_id = filebox_api::access::new_token()
            .map(|token| token[..16].to_owned())
            .unwrap_or_default();
        let notification = WebsocketMessage {
            cmd: cmd::CHAT_MESSAGE_NOTIFICATION.to_owned(),
            chat_message_notification: Some(ChatMessageNotification {
                chat_message: Some(ChatMessage {
                    message_id,
                    sender_client_id: user.client_id.clone(),
                    sender_nickname: user.nickname.clone(),
                    receiver_client_id: receiver.clone(),
                    receiver_nickname,
                    content,
                    sent_at: filebox_core::time::now().as_second(),
                }),
            }),
            ..WebsocketMessage::default()
        };
        // The sender sees its message in the conversation as the receiver does.
        presence.send_to(&login.human, &receiver, notification.clone());
        presence.send_to(&login.human, &user.client_id, notification);
    }

    /// List the open questions again and tell the client what changed: each new one pushed,
    /// each one gone as withdrawn or answered elsewhere.
    async fn refresh(&mut self) -> Result<(), End> {
        let Some((login, user)) = self.login.clone() else {
            return Ok(());
        };
        let open = list(&login).await?;
        let gone: Vec<(String, bool)> = self
            .shown
            .iter()
            .filter(|(id, _)| !open.iter().any(|s| &s.id == *id))
            .map(|(id, report)| (id.clone(), *report))
            .collect();
        for shown in open {
            if self.shown.contains_key(&shown.id) {
                continue;
            }
            self.shown.insert(shown.id.clone(), shown.is_report());
            self.send(pushed(shown)).await?;
        }
        for (id, report) in gone {
            self.shown.remove(&id);
            let asking = login.clone();
            let question = id.clone();
            let outcome = blocking(move || asking.gone(&question)).await;
            let notice = match outcome {
                Ok(Gone::Withdrawn) => cancelled(
                    &id,
                    report,
                    "the agent stopped waiting: the question was withdrawn".to_owned(),
                ),
                Ok(Gone::Answered) | Err(_) => {
                    let by = self.ws.presence.who_answered(&id);
                    if by
                        .as_ref()
                        .is_some_and(|(client, _)| client == &user.client_id)
                    {
                        continue;
                    }
                    answered_elsewhere(&id, report, by, &login.token)
                }
            };
            self.send(notice).await?;
        }
        Ok(())
    }
}

/// The open questions; a login the access policy no longer allows ends the session.
async fn list(login: &Login) -> Result<Vec<Shown>, End> {
    let listing = login.clone();
    blocking(move || listing.open()).await.map_err(End::Refused)
}

/// Run `f` on a blocking thread (it reads and writes files).
async fn blocking<T: Send + 'static>(
    f: impl FnOnce() -> Result<T, String> + Send + 'static,
) -> Result<T, String> {
    tokio::task::spawn_blocking(f)
        .await
        .unwrap_or_else(|e| Err(format!("the call failed: {e}")))
}

/// The question a reply answers: its request's `ID`, else its response's.
fn replied_to(request: Option<String>, response: Option<&AnswerResponse>) -> Option<String> {
    request
        .filter(|id| !id.is_empty())
        .or_else(|| response.map(|r| r.id.clone()))
}

fn count(n: usize) -> i32 {
    i32::try_from(n).unwrap_or(i32::MAX)
}

fn login_response(client_id: &str, outcome: Result<(), String>) -> WebsocketMessage {
    WebsocketMessage {
        cmd: cmd::USER_LOGIN.to_owned(),
        user_login_response: Some(UserLoginResponse {
            client_id: client_id.to_owned(),
            success: outcome.is_ok(),
            error_message: outcome.err().unwrap_or_default(),
        }),
        ..WebsocketMessage::default()
    }
}

/// A new question or work report, pushed.
fn pushed(shown: Shown) -> WebsocketMessage {
    let pending = shown.pending;
    WebsocketMessage {
        cmd: pending.message_type.clone(),
        ask_question_request: pending.ask_question_request,
        work_report_request: pending.work_report_request,
        ..WebsocketMessage::default()
    }
}

fn message_type(report: bool) -> &'static str {
    if report {
        cmd::WORK_REPORT
    } else {
        cmd::ASK_QUESTION
    }
}

fn cancelled(id: &str, report: bool, reason: String) -> WebsocketMessage {
    WebsocketMessage {
        cmd: cmd::REQUEST_CANCELLED.to_owned(),
        request_cancelled_notification: Some(RequestCancelledNotification {
            request_id: id.to_owned(),
            reason,
            message_type: message_type(report).to_owned(),
        }),
        ..WebsocketMessage::default()
    }
}

/// Question `id` was answered by someone else: `Nickname` says who (the client's nickname, or
/// "FileBox" for the page, the CLI and the other surfaces), `StrParam` the answering client's
/// id when it was one of these clients.
fn answered_elsewhere(
    id: &str,
    report: bool,
    by: Option<(String, String)>,
    token: &str,
) -> WebsocketMessage {
    let (client_id, nickname) = by.unwrap_or_else(|| (String::new(), "FileBox".to_owned()));
    let mut notice = WebsocketMessage {
        str_param: client_id,
        nickname,
        ..WebsocketMessage::default()
    };
    if report {
        notice.cmd = cmd::WORK_REPORT_REPLY_NOTIFICATION.to_owned();
        notice.work_report_request = Some(crate::connect::proto::TaskFinishRequest {
            id: id.to_owned(),
            user_token: token.to_owned(),
            ..Default::default()
        });
    } else {
        notice.cmd = cmd::ASK_QUESTION_REPLY_NOTIFICATION.to_owned();
        notice.ask_question_request = Some(crate::connect::proto::AskQuestionRequest {
            id: id.to_owned(),
            user_token: token.to_owned(),
            ..Default::default()
        });
    }
    notice
}
