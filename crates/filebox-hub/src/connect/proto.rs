//! The messages of `proto/agentassist.proto` (package `agentassistproto`), written by hand
//! with prost's derive (no `protoc` at build time) and serde attributes for the Connect JSON
//! codec (proto3's canonical JSON: the fields' JSON names, defaults left out, `bytes` as
//! base64, an `int32` read from a number or a string, `null` read as the default, unknown
//! fields ignored). Field numbers and types follow the .proto exactly; the tests encode and
//! decode them against that file (`tests/human/connect.test.mjs` loads it with protobufjs).

use std::collections::BTreeMap;

use serde::{Deserialize, Serialize};

/// `AskQuestionRequest`.
#[derive(Clone, PartialEq, prost::Message, Deserialize)]
#[serde(default)]
pub struct AskQuestionRequest {
    /// The caller's request id, echoed in the response.
    #[prost(string, tag = "1")]
    #[serde(rename = "ID", deserialize_with = "json::string")]
    pub id: String,
    /// A FileBox token: the call asks as its agent.
    #[prost(string, tag = "2")]
    #[serde(rename = "UserToken", deserialize_with = "json::string")]
    pub user_token: String,
    #[prost(message, optional, tag = "3")]
    #[serde(rename = "Request")]
    pub request: Option<McpAskQuestionRequest>,
    /// When the client sent it, by its clock (Unix seconds, or milliseconds); 0: not said.
    #[prost(int64, tag = "4")]
    #[serde(rename = "Timestamp", deserialize_with = "json::int64")]
    pub timestamp: i64,
}

/// `McpAskQuestionRequest`.
#[derive(Clone, PartialEq, prost::Message, Deserialize)]
#[serde(default)]
pub struct McpAskQuestionRequest {
    #[prost(string, tag = "1")]
    #[serde(rename = "ProjectDirectory", deserialize_with = "json::string")]
    pub project_directory: String,
    #[prost(string, tag = "2")]
    #[serde(rename = "Question", deserialize_with = "json::string")]
    pub question: String,
    /// Seconds; 0 is the default.
    #[prost(int32, tag = "3")]
    #[serde(rename = "Timeout", deserialize_with = "json::int32")]
    pub timeout: i32,
    /// The asking agent's own name.
    #[prost(string, tag = "4")]
    #[serde(rename = "AgentName", deserialize_with = "json::string")]
    pub agent_name: String,
    /// The model it runs on.
    #[prost(string, tag = "5")]
    #[serde(rename = "ReasoningModelName", deserialize_with = "json::string")]
    pub reasoning_model_name: String,
    /// The MCP client it runs in.
    #[prost(string, tag = "6")]
    #[serde(rename = "McpClientName", deserialize_with = "json::string")]
    pub mcp_client_name: String,
}

/// `TaskFinishRequest`, which the origin renamed `WorkReportRequest` (same fields and numbers).
#[derive(Clone, PartialEq, prost::Message, Deserialize)]
#[serde(default)]
pub struct TaskFinishRequest {
    #[prost(string, tag = "1")]
    #[serde(rename = "ID", deserialize_with = "json::string")]
    pub id: String,
    #[prost(string, tag = "2")]
    #[serde(rename = "UserToken", deserialize_with = "json::string")]
    pub user_token: String,
    #[prost(message, optional, tag = "3")]
    #[serde(rename = "Request")]
    pub request: Option<McpTaskFinishRequest>,
    /// When the client sent it, by its clock (Unix seconds, or milliseconds); 0: not said.
    #[prost(int64, tag = "4")]
    #[serde(rename = "Timestamp", deserialize_with = "json::int64")]
    pub timestamp: i64,
}

/// `McpTaskFinishRequest`, renamed `McpWorkReportRequest` upstream.
#[derive(Clone, PartialEq, prost::Message, Deserialize)]
#[serde(default)]
pub struct McpTaskFinishRequest {
    #[prost(string, tag = "1")]
    #[serde(rename = "ProjectDirectory", deserialize_with = "json::string")]
    pub project_directory: String,
    #[prost(string, tag = "2")]
    #[serde(rename = "Summary", deserialize_with = "json::string")]
    pub summary: String,
    #[prost(int32, tag = "3")]
    #[serde(rename = "Timeout", deserialize_with = "json::int32")]
    pub timeout: i32,
    /// The asking agent's own name.
    #[prost(string, tag = "4")]
    #[serde(rename = "AgentName", deserialize_with = "json::string")]
    pub agent_name: String,
    /// The model it runs on.
    #[prost(string, tag = "5")]
    #[serde(rename = "ReasoningModelName", deserialize_with = "json::string")]
    pub reasoning_model_name: String,
    /// The MCP client it runs in.
    #[prost(string, tag = "6")]
    #[serde(rename = "McpClientName", deserialize_with = "json::string")]
    pub mcp_client_name: String,
}

/// `SendMcpClientInfo`'s request: the MCP client the agent runs in.
#[derive(Clone, PartialEq, prost::Message, Deserialize)]
#[serde(default)]
pub struct McpClientInfoRequest {
    #[prost(string, tag = "1")]
    #[serde(rename = "ID", deserialize_with = "json::string")]
    pub id: String,
    #[prost(string, tag = "2")]
    #[serde(rename = "UserToken", deserialize_with = "json::string")]
    pub user_token: String,
    #[prost(message, optional, tag = "3")]
    #[serde(rename = "Request")]
    pub request: Option<McpClientInfoData>,
    #[prost(int64, tag = "4")]
    #[serde(rename = "Timestamp", deserialize_with = "json::int64")]
    pub timestamp: i64,
}

/// `McpClientInfoData`: what the client said in `initialize`.
#[derive(Clone, PartialEq, prost::Message, Deserialize)]
#[serde(default)]
pub struct McpClientInfoData {
    #[prost(string, tag = "1")]
    #[serde(rename = "ProtocolVersion", deserialize_with = "json::string")]
    pub protocol_version: String,
    /// Its capabilities as JSON (not kept).
    #[prost(string, tag = "2")]
    #[serde(rename = "CapabilitiesJson", deserialize_with = "json::string")]
    pub capabilities_json: String,
    #[prost(string, tag = "3")]
    #[serde(rename = "ClientName", deserialize_with = "json::string")]
    pub client_name: String,
    #[prost(string, tag = "4")]
    #[serde(rename = "ClientVersion", deserialize_with = "json::string")]
    pub client_version: String,
}

/// `McpClientInfoResponse`.
#[derive(Clone, PartialEq, prost::Message, Serialize)]
pub struct McpClientInfoResponse {
    #[prost(bool, tag = "1")]
    #[serde(rename = "Success", skip_serializing_if = "std::ops::Not::not")]
    pub success: bool,
}

/// `AskQuestionResponse` and `TaskFinishResponse` (`WorkReportResponse`): messages of the same
/// fields and numbers, so one type encodes them all.
#[derive(Clone, PartialEq, prost::Message, Serialize)]
pub struct AnswerResponse {
    #[prost(string, tag = "1")]
    #[serde(rename = "ID", skip_serializing_if = "String::is_empty")]
    pub id: String,
    #[prost(bool, tag = "2")]
    #[serde(rename = "IsError", skip_serializing_if = "std::ops::Not::not")]
    pub is_error: bool,
    #[prost(btree_map = "string, string", tag = "3")]
    #[serde(rename = "Meta", skip_serializing_if = "BTreeMap::is_empty")]
    pub meta: BTreeMap<String, String>,
    #[prost(message, repeated, tag = "4")]
    #[serde(skip_serializing_if = "Vec::is_empty")]
    pub contents: Vec<McpResultContent>,
}

/// `McpResultContent`: `kind` says which one field is set.
#[derive(Clone, PartialEq, prost::Message, Serialize)]
pub struct McpResultContent {
    /// 1 text, 2 image, 3 audio, 4 embedded resource.
    #[prost(int32, tag = "1")]
    #[serde(rename = "type", skip_serializing_if = "json::is_zero")]
    pub kind: i32,
    #[prost(message, optional, tag = "2")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub text: Option<TextContent>,
    #[prost(message, optional, tag = "3")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub image: Option<MediaContent>,
    #[prost(message, optional, tag = "4")]
    #[serde(skip_serializing_if = "Option::is_none")]
    pub audio: Option<MediaContent>,
    #[prost(message, optional, tag = "5")]
    #[serde(rename = "embeddedResource", skip_serializing_if = "Option::is_none")]
    pub embedded_resource: Option<EmbeddedResource>,
}

/// `TextContent`.
#[derive(Clone, PartialEq, prost::Message, Serialize)]
pub struct TextContent {
    /// "text".
    #[prost(string, tag = "1")]
    #[serde(rename = "type", skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[prost(string, tag = "2")]
    #[serde(skip_serializing_if = "String::is_empty")]
    pub text: String,
}

/// `ImageContent` and `AudioContent` (the same fields and numbers): base64 data.
#[derive(Clone, PartialEq, prost::Message, Serialize)]
pub struct MediaContent {
    /// "image" or "audio".
    #[prost(string, tag = "1")]
    #[serde(rename = "type", skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[prost(string, tag = "2")]
    #[serde(skip_serializing_if = "String::is_empty")]
    pub data: String,
    #[prost(string, tag = "3")]
    #[serde(rename = "mimeType", skip_serializing_if = "String::is_empty")]
    pub mime_type: String,
}

/// `EmbeddedResource`: a file's URI, MIME type and bytes.
#[derive(Clone, PartialEq, prost::Message, Serialize)]
pub struct EmbeddedResource {
    /// "embedded_resource".
    #[prost(string, tag = "1")]
    #[serde(rename = "type", skip_serializing_if = "String::is_empty")]
    pub kind: String,
    #[prost(string, tag = "2")]
    #[serde(skip_serializing_if = "String::is_empty")]
    pub uri: String,
    #[prost(string, tag = "3")]
    #[serde(rename = "mimeType", skip_serializing_if = "String::is_empty")]
    pub mime_type: String,
    #[prost(bytes = "vec", tag = "4")]
    #[serde(skip_serializing_if = "Vec::is_empty", serialize_with = "json::base64")]
    pub data: Vec<u8>,
}

/// The canonical JSON forms serde does not do by itself.
mod json {
    use base64::Engine;
    use serde::de::{self, Deserializer};
    use serde::{Deserialize, Serializer};
    use serde_json::Value;

    /// A string; `null` is the empty string.
    pub(super) fn string<'de, D: Deserializer<'de>>(d: D) -> Result<String, D::Error> {
        Ok(Option::<String>::deserialize(d)?.unwrap_or_default())
    }

    /// An `int32` from a JSON number or a decimal string; `null` is 0.
    pub(super) fn int32<'de, D: Deserializer<'de>>(d: D) -> Result<i32, D::Error> {
        let wide = match Value::deserialize(d)? {
            Value::Null => return Ok(0),
            Value::Number(n) => n
                .as_i64()
                .or_else(|| n.as_f64().filter(|f| f.fract() == 0.0).map(|f| f as i64))
                .ok_or_else(|| de::Error::custom(format!("{n} is not an int32")))?,
            Value::String(s) => s
                .parse::<i64>()
                .map_err(|_| de::Error::custom(format!("{s:?} is not an int32")))?,
            other => return Err(de::Error::custom(format!("{other} is not an int32"))),
        };
        i32::try_from(wide).map_err(|_| de::Error::custom(format!("{wide} is out of int32 range")))
    }

    /// An `int64` from a JSON number or a decimal string (canonical JSON writes a string);
    /// `null` is 0.
    pub(super) fn int64<'de, D: Deserializer<'de>>(d: D) -> Result<i64, D::Error> {
        match Value::deserialize(d)? {
            Value::Null => Ok(0),
            Value::Number(n) => n
                .as_i64()
                .ok_or_else(|| de::Error::custom(format!("{n} is not an int64"))),
            Value::String(s) => s
                .parse::<i64>()
                .map_err(|_| de::Error::custom(format!("{s:?} is not an int64"))),
            other => Err(de::Error::custom(format!("{other} is not an int64"))),
        }
    }

    pub(super) fn is_zero(n: &i32) -> bool {
        *n == 0
    }

    /// `bytes` as standard base64.
    pub(super) fn base64<S: Serializer>(bytes: &[u8], s: S) -> Result<S::Ok, S::Error> {
        s.serialize_str(&base64::engine::general_purpose::STANDARD.encode(bytes))
    }
}
