//! The messages of Agent Assistant's human-client WebSocket (its `agentassist.proto`, package
//! `agentassistproto`): `WebsocketMessage`, one per binary frame, and what it carries beyond
//! the Connect service's messages (`connect::proto`, shared). Written by hand with prost's
//! derive, field names and numbers as the origin has them (upstream's `TaskFinish…` renamed
//! `WorkReport…`, the same numbers); binary only, as the origin's clients speak it.

use std::collections::BTreeMap;

use crate::connect::proto::{AnswerResponse, AskQuestionRequest, TaskFinishRequest};

/// `WebsocketMessage`: `Cmd` says what it is and which fields are set.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct WebsocketMessage {
    #[prost(string, tag = "1")]
    pub(crate) cmd: String,
    #[prost(message, optional, tag = "2")]
    pub(crate) ask_question_request: Option<AskQuestionRequest>,
    /// `WorkReportRequest` (formerly `TaskFinishRequest`).
    #[prost(message, optional, tag = "3")]
    pub(crate) work_report_request: Option<TaskFinishRequest>,
    #[prost(message, optional, tag = "4")]
    pub(crate) ask_question_response: Option<AnswerResponse>,
    #[prost(message, optional, tag = "5")]
    pub(crate) work_report_response: Option<AnswerResponse>,
    #[prost(string, tag = "12")]
    pub(crate) str_param: String,
    #[prost(message, optional, tag = "13")]
    pub(crate) check_message_validity_request: Option<CheckMessageValidityRequest>,
    #[prost(message, optional, tag = "14")]
    pub(crate) check_message_validity_response: Option<CheckMessageValidityResponse>,
    #[prost(message, optional, tag = "15")]
    pub(crate) get_pending_messages_request: Option<GetPendingMessagesRequest>,
    #[prost(message, optional, tag = "16")]
    pub(crate) get_pending_messages_response: Option<GetPendingMessagesResponse>,
    #[prost(message, optional, tag = "17")]
    pub(crate) request_cancelled_notification: Option<RequestCancelledNotification>,
    #[prost(string, tag = "18")]
    pub(crate) nickname: String,
    #[prost(message, optional, tag = "19")]
    pub(crate) get_online_users_request: Option<GetOnlineUsersRequest>,
    #[prost(message, optional, tag = "20")]
    pub(crate) get_online_users_response: Option<GetOnlineUsersResponse>,
    #[prost(message, optional, tag = "21")]
    pub(crate) send_chat_message_request: Option<SendChatMessageRequest>,
    #[prost(message, optional, tag = "22")]
    pub(crate) chat_message_notification: Option<ChatMessageNotification>,
    #[prost(message, optional, tag = "23")]
    pub(crate) user_login_response: Option<UserLoginResponse>,
    #[prost(message, optional, tag = "24")]
    pub(crate) user_connection_status_notification: Option<UserConnectionStatusNotification>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct CheckMessageValidityRequest {
    #[prost(string, repeated, tag = "1")]
    pub(crate) request_ids: Vec<String>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct CheckMessageValidityResponse {
    #[prost(btree_map = "string, bool", tag = "1")]
    pub(crate) validity: BTreeMap<String, bool>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct GetPendingMessagesRequest {
    #[prost(string, tag = "1")]
    pub(crate) user_token: String,
}

/// One open question or work report.
#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct PendingMessage {
    /// `AskQuestion` or `WorkReport`.
    #[prost(string, tag = "1")]
    pub(crate) message_type: String,
    #[prost(message, optional, tag = "2")]
    pub(crate) ask_question_request: Option<AskQuestionRequest>,
    #[prost(message, optional, tag = "3")]
    pub(crate) work_report_request: Option<TaskFinishRequest>,
    /// Unix seconds.
    #[prost(int64, tag = "4")]
    pub(crate) created_at: i64,
    /// Seconds.
    #[prost(int32, tag = "5")]
    pub(crate) timeout: i32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct GetPendingMessagesResponse {
    #[prost(message, repeated, tag = "1")]
    pub(crate) pending_messages: Vec<PendingMessage>,
    #[prost(int32, tag = "2")]
    pub(crate) total_count: i32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct RequestCancelledNotification {
    #[prost(string, tag = "1")]
    pub(crate) request_id: String,
    #[prost(string, tag = "2")]
    pub(crate) reason: String,
    /// `AskQuestion` or `WorkReport`.
    #[prost(string, tag = "3")]
    pub(crate) message_type: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct OnlineUser {
    #[prost(string, tag = "1")]
    pub(crate) client_id: String,
    #[prost(string, tag = "2")]
    pub(crate) nickname: String,
    /// Unix seconds.
    #[prost(int64, tag = "3")]
    pub(crate) connected_at: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct GetOnlineUsersRequest {
    #[prost(string, tag = "1")]
    pub(crate) user_token: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct GetOnlineUsersResponse {
    #[prost(message, repeated, tag = "1")]
    pub(crate) online_users: Vec<OnlineUser>,
    #[prost(int32, tag = "2")]
    pub(crate) total_count: i32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ChatMessage {
    #[prost(string, tag = "1")]
    pub(crate) message_id: String,
    #[prost(string, tag = "2")]
    pub(crate) sender_client_id: String,
    #[prost(string, tag = "3")]
    pub(crate) sender_nickname: String,
    #[prost(string, tag = "4")]
    pub(crate) receiver_client_id: String,
    #[prost(string, tag = "5")]
    pub(crate) receiver_nickname: String,
    #[prost(string, tag = "6")]
    pub(crate) content: String,
    /// Unix seconds.
    #[prost(int64, tag = "7")]
    pub(crate) sent_at: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct SendChatMessageRequest {
    #[prost(string, tag = "1")]
    pub(crate) receiver_client_id: String,
    #[prost(string, tag = "2")]
    pub(crate) content: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct ChatMessageNotification {
    #[prost(message, optional, tag = "1")]
    pub(crate) chat_message: Option<ChatMessage>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct UserLoginResponse {
    #[prost(string, tag = "1")]
    pub(crate) client_id: String,
    #[prost(bool, tag = "2")]
    pub(crate) success: bool,
    #[prost(string, tag = "3")]
    pub(crate) error_message: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub(crate) struct UserConnectionStatusNotification {
    #[prost(message, optional, tag = "1")]
    pub(crate) user: Option<OnlineUser>,
    /// `connected` or `disconnected`.
    #[prost(string, tag = "2")]
    pub(crate) status: String,
    /// Unix seconds.
    #[prost(int64, tag = "3")]
    pub(crate) timestamp: i64,
}

/// The `Cmd` values.
pub(crate) mod cmd {
    pub(crate) const USER_LOGIN: &str = "UserLogin";
    pub(crate) const ASK_QUESTION: &str = "AskQuestion";
    pub(crate) const WORK_REPORT: &str = "WorkReport";
    pub(crate) const ASK_QUESTION_REPLY: &str = "AskQuestionReply";
    pub(crate) const WORK_REPORT_REPLY: &str = "WorkReportReply";
    /// The older name of `WorkReportReply`, still accepted.
    pub(crate) const TASK_FINISH_REPLY: &str = "TaskFinishReply";
    pub(crate) const ASK_QUESTION_REPLY_NOTIFICATION: &str = "AskQuestionReplyNotification";
    pub(crate) const WORK_REPORT_REPLY_NOTIFICATION: &str = "WorkReportReplyNotification";
    pub(crate) const REQUEST_CANCELLED: &str = "RequestCancelled";
    pub(crate) const GET_PENDING_MESSAGES: &str = "GetPendingMessages";
    pub(crate) const CHECK_MESSAGE_VALIDITY: &str = "CheckMessageValidity";
    pub(crate) const GET_ONLINE_USERS: &str = "GetOnlineUsers";
    pub(crate) const SEND_CHAT_MESSAGE: &str = "SendChatMessage";
    pub(crate) const CHAT_MESSAGE_NOTIFICATION: &str = "ChatMessageNotification";
    pub(crate) const USER_CONNECTION_STATUS: &str = "UserConnectionStatusNotification";
}
