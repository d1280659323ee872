//! A refusal of the access policy (`filebox_api::access`) as a plain HTTP answer, for the
//! routes that do not speak JSON-RPC or Connect: `/events`, `/mcp`, attachments.

use axum::http::StatusCode;
use filebox_api::access::Denied;

/// 401 when the caller did not prove who it is, 404 for an agent the config does not have,
/// 403 when it proved it is someone else; the body says why.
pub(crate) fn refused(denied: &Denied) -> (StatusCode, String) {
    let status = match denied {
        Denied::Agent(filebox_core::Error::UnknownAgent(_)) => StatusCode::NOT_FOUND,
        Denied::Agent(_) => StatusCode::BAD_REQUEST,
        denied if denied.is_unauthenticated() => StatusCode::UNAUTHORIZED,
        _ => StatusCode::FORBIDDEN,
    };
    (status, denied.to_string())
}
