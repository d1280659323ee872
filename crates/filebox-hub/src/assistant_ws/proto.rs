//! The messages of Agent Assistant's human-client WebSocket (its `agentassist.proto`, package
//! `agentassistproto`): `WebsocketMessage`, one per binary frame, and what it carries beyond
//! the Connect service's messages (`connect::proto`, shared). Written by hand with prost's
//! derive, field names and numbers as the origin has them (upstream's `TaskFinish…` renamed
//! `WorkReport…`, the same numbers); binary only, as the origin's clients speak it.

use std::collections::BTreeMap;

use crate::connect::proto::{AnswerResponse, AskQuestionRequest, TaskFinishRequest};

/// `WebsocketMessage`: `Cmd` says what it is and which fields are set.
#[derive(Clone, PartialEq, prost::Message)]
pub struct WebsocketMessage {
    #[prost(string, tag = "1")]
    pub cmd: String,
    #[prost(message, optional, tag = "2")]
    pub ask_question_request: Option<AskQuestionRequest>,
    /// `WorkReportRequest` (formerly `TaskFinishRequest`).
    #[prost(message, optional, tag = "3")]
    pub work_report_request: Option<TaskFinishRequest>,
    #[prost(message, optional, tag = "4")]
    pub ask_question_response: Option<AnswerResponse>,
    #[prost(message, optional, tag = "5")]
    pub work_report_response: Option<AnswerResponse>,
    #[prost(string, tag = "12")]
    pub str_param: String,
    #[prost(message, optional, tag = "13")]
    pub check_message_validity_request: Option<CheckMessageValidityRequest>,
    #[prost(message, optional, tag = "14")]
    pub check_message_validity_response: Option<CheckMessageValidityResponse>,
    #[prost(message, optional, tag = "15")]
    pub get_pending_messages_request: Option<GetPendingMessagesRequest>,
    #[prost(message, optional, tag = "16")]
    pub get_pending_messages_response: Option<GetPendingMessagesResponse>,
    #[prost(message, optional, tag = "17")]
    pub request_cancelled_notification: Option<RequestCancelledNotification>,
    #[prost(string, tag = "18")]
    pub nickname: String,
    #[prost(message, optional, tag = "19")]
    pub get_online_users_request: Option<GetOnlineUsersRequest>,
    #[prost(message, optional, tag = "20")]
    pub get_online_users_response: Option<GetOnlineUsersResponse>,
    #[prost(message, optional, tag = "21")]
    pub send_chat_message_request: Option<SendChatMessageRequest>,
    #[prost(message, optional, tag = "22")]
    pub chat_message_notification: Option<ChatMessageNotification>,
    #[prost(message, optional, tag = "23")]
    pub user_login_response: Option<UserLoginResponse>,
    #[prost(message, optional, tag = "24")]
    pub user_connection_status_notification: Option<UserConnectionStatusNotification>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct CheckMessageValidityRequest {
    #[prost(string, repeated, tag = "1")]
    pub request_ids: Vec<String>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct CheckMessageValidityResponse {
    #[prost(btree_map = "string, bool", tag = "1")]
    pub validity: BTreeMap<String, bool>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct GetPendingMessagesRequest {
    #[prost(string, tag = "1")]
    pub user_token: String,
}

/// One open question or work report.
#[derive(Clone, PartialEq, prost::Message)]
pub struct PendingMessage {
    /// `AskQuestion` or `WorkReport`.
    #[prost(string, tag = "1")]
    pub message_type: String,
    #[prost(message, optional, tag = "2")]
    pub ask_question_request: Option<AskQuestionRequest>,
    #[prost(message, optional, tag = "3")]
    pub work_report_request: Option<TaskFinishRequest>,
    /// Unix seconds.
    #[prost(int64, tag = "4")]
    pub created_at: i64,
    /// Seconds.
    #[prost(int32, tag = "5")]
    pub timeout: i32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct GetPendingMessagesResponse {
    #[prost(message, repeated, tag = "1")]
    pub pending_messages: Vec<PendingMessage>,
    #[prost(int32, tag = "2")]
    pub total_count: i32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct RequestCancelledNotification {
    #[prost(string, tag = "1")]
    pub request_id: String,
    #[prost(string, tag = "2")]
    pub reason: String,
    /// `AskQuestion` or `WorkReport`.
    #[prost(string, tag = "3")]
    pub message_type: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct OnlineUser {
    #[prost(string, tag = "1")]
    pub client_id: String,
    #[prost(string, tag = "2")]
    pub nickname: String,
    /// Unix seconds.
    #[prost(int64, tag = "3")]
    pub connected_at: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct GetOnlineUsersRequest {
    #[prost(string, tag = "1")]
    pub user_token: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct GetOnlineUsersResponse {
    #[prost(message, repeated, tag = "1")]
    pub online_users: Vec<OnlineUser>,
    #[prost(int32, tag = "2")]
    pub total_count: i32,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ChatMessage {
    #[prost(string, tag = "1")]
    pub message_id: String,
    #[prost(string, tag = "2")]
    pub sender_client_id: String,
    #[prost(string, tag = "3")]
    pub sender_nickname: String,
    #[prost(string, tag = "4")]
    pub receiver_client_id: String,
    #[prost(string, tag = "5")]
    pub receiver_nickname: String,
    #[prost(string, tag = "6")]
    pub content: String,
    /// Unix seconds.
    #[prost(int64, tag = "7")]
    pub sent_at: i64,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct SendChatMessageRequest {
    #[prost(string, tag = "1")]
    pub receiver_client_id: String,
    #[prost(string, tag = "2")]
    pub content: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct ChatMessageNotification {
    #[prost(message, optional, tag = "1")]
    pub chat_message: Option<ChatMessage>,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct UserLoginResponse {
    #[prost(string, tag = "1")]
    pub client_id: String,
    #[prost(bool, tag = "2")]
    pub success: bool,
    #[prost(string, tag = "3")]
    pub error_message: String,
}

#[derive(Clone, PartialEq, prost::Message)]
pub struct UserConnectionStatusNotification {
    #[prost(message, optional, tag = "1")]
    pub user: Option<OnlineUser>,
    /// `connected` or `disconnected`.
    #[prost(string, tag = "2")]
    pub status: String,
    /// Unix seconds.
    #[prost(int64, tag = "3")]
    pub timestamp: i64,
}

/// The `Cmd` values.
pub mod cmd {
    pub const USER_LOGIN: &str = "UserLogin";
    pub const ASK_QUESTION: &str = "AskQuestion";
    pub const WORK_REPORT: &str = "WorkReport";
    pub const ASK_QUESTION_REPLY: &str = "AskQuestionReply";
    pub const WORK_REPORT_REPLY: &str = "WorkReportReply";
    /// The older name of `WorkReportReply`, still accepted.
    pub const TASK_FINISH_REPLY: &str = "TaskFinishReply";
    pub const ASK_QUESTION_REPLY_NOTIFICATION: &str = "AskQuestionReplyNotification";
    pub const WORK_REPORT_REPLY_NOTIFICATION: &str = "WorkReportReplyNotification";
    pub const REQUEST_CANCELLED: &str = "RequestCancelled";
    pub const GET_PENDING_MESSAGES: &str = "GetPendingMessages";
    pub const CHECK_MESSAGE_VALIDITY: &str = "CheckMessageValidity";
    pub const GET_ONLINE_USERS: &str = "GetOnlineUsers";
    pub const SEND_CHAT_MESSAGE: &str = "SendChatMessage";
    pub const CHAT_MESSAGE_NOTIFICATION: &str = "ChatMessageNotification";
    pub const USER_CONNECTION_STATUS: &str = "UserConnectionStatusNotification";
}
