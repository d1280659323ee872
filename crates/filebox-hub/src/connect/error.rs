//! Connect errors: a code from the protocol's closed set, sent as HTTP status plus a JSON body
//! `{"code", "message"}` whatever the request's codec (the Connect unary protocol's rule).

use axum::http::{HeaderValue, StatusCode, header};
use axum::response::{IntoResponse, Response};
use serde_json::json;

/// The Connect error codes this service answers with.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Code {
    InvalidArgument,
    NotFound,
    PermissionDenied,
    Unauthenticated,
    FailedPrecondition,
    ResourceExhausted,
    Unimplemented,
    Internal,
    Unavailable,
}

impl Code {
    /// The code's name on the wire.
    pub(crate) fn name(self) -> &'static str {
        match self {
            Code::InvalidArgument => "invalid_argument",
            Code::NotFound => "not_found",
            Code::PermissionDenied => "permission_denied",
            Code::Unauthenticated => "unauthenticated",
            Code::FailedPrecondition => "failed_precondition",
            Code::ResourceExhausted => "resource_exhausted",
            Code::Unimplemented => "unimplemented",
            Code::Internal => "internal",
            Code::Unavailable => "unavailable",
        }
    }

    /// The HTTP status the protocol pairs with the code.
    pub(crate) fn status(self) -> StatusCode {
        match self {
            Code::InvalidArgument | Code::FailedPrecondition => StatusCode::BAD_REQUEST,
            Code::NotFound => StatusCode::NOT_FOUND,
            Code::PermissionDenied => StatusCode::FORBIDDEN,
            Code::Unauthenticated => StatusCode::UNAUTHORIZED,
            Code::ResourceExhausted => StatusCode::TOO_MANY_REQUESTS,
            Code::Unimplemented => StatusCode::NOT_IMPLEMENTED,
            Code::Internal => StatusCode::INTERNAL_SERVER_ERROR,
            Code::Unavailable => StatusCode::SERVICE_UNAVAILABLE,
        }
    }
}

/// A failed call.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct ConnectError {
    pub(crate) code: Code,
    pub(crate) message: String,
}

impl ConnectError {
    pub(crate) fn new(code: Code, message: impl Into<String>) -> Self {
        ConnectError {
            code,
            message: message.into(),
        }
    }
}

impl IntoResponse for ConnectError {
    fn into_response(self) -> Response {
        let body = json!({ "code": self.code.name(), "message": self.message });
        (
            self.code.status(),
            [(
                header::CONTENT_TYPE,
                HeaderValue::from_static("application/json"),
            )],
            body.to_string(),
        )
            .into_response()
    }
}

/// A domain failure: its code by what the caller can do about it, its message with the next
/// step (`filebox_api::advice`).
impl From<filebox_core::Error> for ConnectError {
    fn from(error: filebox_core::Error) -> Self {
        use filebox_core::Error;
        let code = match &error {
            Error::Invalid { .. }
            | Error::Ambiguous { .. }
            | Error::TooLarge { .. }
            | Error::FieldTooLong { .. }
            | Error::KeyReused { .. } => Code::InvalidArgument,
            Error::UnknownAgent(_) | Error::NotFound { .. } => Code::NotFound,
            Error::AlreadyHandled { .. }
            | Error::NotInThread { .. }
            | Error::NotParticipant { .. }
            | Error::NoReplyTarget { .. }
            | Error::NotMine { .. }
            | Error::NoConfig
            | Error::NoCurrentAgent
            | Error::Config { .. } => Code::FailedPrecondition,
            Error::NotSent { .. } | Error::Undelivered { .. } => Code::Unavailable,
            Error::Unapproved { .. } => Code::PermissionDenied,
            Error::Malformed { .. }
            | Error::Foreign { .. }
            | Error::Index { .. }
            | Error::Io { .. } => Code::Internal,
        };
        let advice = filebox_api::advice::advice(&error);
        ConnectError::new(code, format!("{error}. {advice}"))
    }
}

/// A refusal of the access policy: no proof of who calls, or proof of someone else.
impl From<filebox_api::access::Denied> for ConnectError {
    fn from(denied: filebox_api::access::Denied) -> Self {
        use filebox_api::access::Denied;
        match denied {
            Denied::Agent(error) => error.into(),
            denied if denied.is_unauthenticated() => {
                ConnectError::new(Code::Unauthenticated, denied.to_string())
            }
            denied => ConnectError::new(Code::PermissionDenied, denied.to_string()),
        }
    }
}
