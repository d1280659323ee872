//! The Connect unary protocol's two codecs, chosen by the request's `Content-Type`:
//! `application/json` (proto3 JSON, through serde) and `application/proto` (binary, prost).
//! The response uses the request's codec; errors are always JSON (see `error.rs`).

use serde::Serialize;
use serde::de::DeserializeOwned;

use super::error::{Code, ConnectError};

/// A message codec of the Connect unary protocol.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Codec {
    Json,
    Proto,
}

/// What `Accept-Post` names when a request's `Content-Type` is neither.
pub(crate) const ACCEPTED: &str = "application/json, application/proto";

impl Codec {
    /// The codec of a `Content-Type` value (parameters such as `charset=utf-8` ignored).
    pub(crate) fn of_content_type(value: &str) -> Option<Codec> {
        let media = value.split(';').next().unwrap_or_default().trim();
        if media.eq_ignore_ascii_case("application/json") {
            Some(Codec::Json)
        } else if media.eq_ignore_ascii_case("application/proto") {
            Some(Codec::Proto)
        } else {
            None
        }
    }

    pub(crate) fn content_type(self) -> &'static str {
        match self {
            Codec::Json => "application/json",
            Codec::Proto => "application/proto",
        }
    }

    /// A request message from its body; a body that is not one is `invalid_argument`.
    pub(crate) fn decode<T>(self, body: &[u8]) -> Result<T, ConnectError>
    where
        T: prost::Message + Default + DeserializeOwned,
    {
        match self {
            Codec::Json => serde_json::from_slice(body).map_err(|e| {
                ConnectError::new(
                    Code::InvalidArgument,
                    format!("the JSON body is not the request message: {e}"),
                )
            }),
            Codec::Proto => T::decode(body).map_err(|e| {
                ConnectError::new(
                    Code::InvalidArgument,
                    format!("the protobuf body is not the request message: {e}"),
                )
            }),
        }
    }

    /// A response message's body.
    pub(crate) fn encode<T: prost::Message + Serialize>(self, message: &T) -> Vec<u8> {
        match self {
            // Our own types: serialising them cannot fail.
            Codec::Json => serde_json::to_vec(message).unwrap_or_default(),
            Codec::Proto => message.encode_to_vec(),
        }
    }
}

#[cfg(test)]
mod tests {
    use std::collections::BTreeMap;

    use prost::Message;
    use serde_json::json;

    use super::*;
    use crate::connect::proto::{
        AnswerResponse, AskQuestionRequest, EmbeddedResource, McpAskQuestionRequest,
        McpClientInfoRequest, McpResultContent, MediaContent, TaskFinishRequest, TextContent,
    };

    fn ask() -> AskQuestionRequest {
        AskQuestionRequest {
            id: "r1".into(),
            user_token: "t".into(),
            request: Some(McpAskQuestionRequest {
                project_directory: "/p".into(),
                question: "Q?".into(),
                timeout: 5,
                ..McpAskQuestionRequest::default()
            }),
            timestamp: 0,
        }
    }

    #[test]
    fn content_types_choose_the_codec() {
        assert_eq!(
            Codec::of_content_type("application/json"),
            Some(Codec::Json)
        );
        assert_eq!(
            Codec::of_content_type("application/json; charset=utf-8"),
            Some(Codec::Json)
        );
        assert_eq!(
            Codec::of_content_type("Application/Proto"),
            Some(Codec::Proto)
        );
        assert_eq!(Codec::of_content_type("application/grpc"), None);
        assert_eq!(Codec::of_content_type(""), None);
    }

    #[test]
    fn the_origins_newer_fields_decode_by_their_numbers_in_both_codecs() {
        // Request=3 { AgentName=4 "A", ReasoningModelName=5 "m", McpClientName=6 "c" },
        // Timestamp=4 1700000000.
        let wire = b"\x1a\x09\x22\x01A\x2a\x01m\x32\x01c\x20\x80\xe2\xcf\xaa\x06";
        let report: TaskFinishRequest = Codec::Proto.decode(wire).unwrap();
        let inner = report.request.clone().unwrap();
        assert_eq!(
            (
                inner.agent_name.as_str(),
                inner.reasoning_model_name.as_str()
            ),
            ("A", "m")
        );
        assert_eq!(inner.mcp_client_name, "c");
        assert_eq!(report.timestamp, 1_700_000_000);
        assert_eq!(report.encode_to_vec(), wire);
        // JSON: int64 as canonical JSON's string, or a number.
        let json = br#"{"Timestamp":"1700000000","Request":{"AgentName":"A","ReasoningModelName":"m","McpClientName":"c"}}"#;
        assert_eq!(
            Codec::Json.decode::<TaskFinishRequest>(json).unwrap(),
            report
        );
        let number = br#"{"Timestamp":1700000000,"Request":{"AgentName":"A","ReasoningModelName":"m","McpClientName":"c"}}"#;
        assert_eq!(
            Codec::Json.decode::<TaskFinishRequest>(number).unwrap(),
            report
        );
        // McpClientInfoRequest: Request=3 { ProtocolVersion=1, ClientName=3, ClientVersion=4 }.
        let info: McpClientInfoRequest = Codec::Proto
            .decode(b"\x1a\x09\x0a\x01p\x1a\x01n\x22\x01v")
            .unwrap();
        let data = info.request.unwrap();
        assert_eq!(
            (
                data.protocol_version.as_str(),
                data.client_name.as_str(),
                data.client_version.as_str()
            ),
            ("p", "n", "v")
        );
    }

    #[test]
    fn binary_requests_decode_by_the_field_numbers_of_the_proto() {
        // ID=1 "r1", UserToken=2 "t", Request=3 { ProjectDirectory=1 "/p", Question=2 "Q?",
        // Timeout=3 5 }, as any protobuf encoder writes it.
        let wire = b"\x0a\x02r1\x12\x01t\x1a\x0a\x0a\x02/p\x12\x02Q?\x18\x05";
        assert_eq!(
            Codec::Proto.decode::<AskQuestionRequest>(wire).unwrap(),
            ask()
        );
        assert_eq!(ask().encode_to_vec(), wire);
        // TaskFinishRequest: Summary is field 2 of the inner message.
        let finish: TaskFinishRequest = Codec::Proto.decode(b"\x1a\x04\x12\x02ok").unwrap();
        assert_eq!(finish.request.unwrap().summary, "ok");
        // Unknown fields are skipped; an empty body is the empty message.
        let with_unknown = [wire.as_slice(), b"\x28\x07"].concat();
        assert_eq!(
            Codec::Proto
                .decode::<AskQuestionRequest>(&with_unknown)
                .unwrap(),
            ask()
        );
        assert_eq!(
            Codec::Proto.decode::<AskQuestionRequest>(b"").unwrap(),
            AskQuestionRequest::default()
        );
    }

    #[test]
    fn a_body_that_is_not_the_message_is_invalid_argument() {
        for bad in [b"\x0a\x09r1".as_slice(), b"\xff\xff\xff", b"\x1a\x03\x18"] {
            let error = Codec::Proto.decode::<AskQuestionRequest>(bad).unwrap_err();
            assert_eq!(error.code, Code::InvalidArgument, "{bad:?}");
        }
        for bad in [
            "",
            "[1]",
            "{\"ID\": 7}",
            "{\"Request\": {\"Timeout\": \"five\"}}",
            "{\"Request\": {\"Timeout\": 3000000000}}",
            "{\"Request\": {\"Timeout\": 1.5}}",
        ] {
            let error = Codec::Json
                .decode::<AskQuestionRequest>(bad.as_bytes())
                .unwrap_err();
            assert_eq!(error.code, Code::InvalidArgument, "{bad}");
            assert!(
                error.message.starts_with("the JSON body"),
                "{}",
                error.message
            );
        }
    }

    #[test]
    fn json_requests_use_the_proto_json_names_and_forms() {
        let body = json!({
            "ID": "r1",
            "UserToken": "t",
            "Request": { "ProjectDirectory": "/p", "Question": "Q?", "Timeout": "5" },
            "Unknown": true,
        });
        let decoded: AskQuestionRequest = Codec::Json.decode(body.to_string().as_bytes()).unwrap();
        assert_eq!(decoded, ask());
        let nulls = json!({ "ID": null, "Request": { "Question": "Q?", "Timeout": null } });
        let decoded: AskQuestionRequest = Codec::Json.decode(nulls.to_string().as_bytes()).unwrap();
        assert_eq!(decoded.id, "");
        assert_eq!(decoded.request.unwrap().timeout, 0);
        let finish: TaskFinishRequest = Codec::Json
            .decode(br#"{"Request": {"Summary": "done", "Timeout": 2}}"#)
            .unwrap();
        assert_eq!(finish.request.unwrap().summary, "done");
    }

    fn response() -> AnswerResponse {
        AnswerResponse {
            id: "r1".into(),
            is_error: false,
            meta: BTreeMap::from([("status".into(), "answered".into())]),
            contents: vec![
                McpResultContent {
                    kind: 1,
                    text: Some(TextContent {
                        kind: "text".into(),
                        text: "ok".into(),
                    }),
                    ..McpResultContent::default()
                },
                McpResultContent {
                    kind: 2,
                    image: Some(MediaContent {
                        kind: "image".into(),
                        data: "iVBO".into(),
                        mime_type: "image/png".into(),
                    }),
                    ..McpResultContent::default()
                },
                McpResultContent {
                    kind: 4,
                    embedded_resource: Some(EmbeddedResource {
                        kind: "embedded_resource".into(),
                        uri: "file:///a.txt".into(),
                        mime_type: "text/plain".into(),
                        data: b"hi\n".to_vec(),
                    }),
                    ..McpResultContent::default()
                },
            ],
        }
    }

    #[test]
    fn binary_responses_encode_by_the_field_numbers_of_the_proto() {
        let wire = Codec::Proto.encode(&response());
        let expected = [
            b"\x0a\x02r1".as_slice(),
            // Meta=3: a map entry { key=1 "status", value=2 "answered" }
            b"\x1a\x12\x0a\x06status\x12\x08answered",
            // contents=4: { type=1 1, text=2 { type=1 "text", text=2 "ok" } }
            b"\x22\x0e\x08\x01\x12\x0a\x0a\x04text\x12\x02ok",
            // { type=1 2, image=3 { type=1 "image", data=2 "iVBO", mime_type=3 "image/png" } }
            b"\x22\x1c\x08\x02\x1a\x18\x0a\x05image\x12\x04iVBO\x1a\x09image/png",
            // { type=1 4, embedded_resource=5 { type, uri=2, mime_type=3, data=4 } }
            b"\x22\x37\x08\x04\x2a\x33\x0a\x11embedded_resource\x12\x0dfile:///a.txt\x1a\x0atext/plain\x22\x03hi\n",
        ]
        .concat();
        assert_eq!(wire, expected);
        assert_eq!(AnswerResponse::decode(wire.as_slice()).unwrap(), response());
    }

    #[test]
    fn json_responses_use_the_proto_json_names_and_leave_defaults_out() {
        let body: serde_json::Value =
            serde_json::from_slice(&Codec::Json.encode(&response())).unwrap();
        assert_eq!(
            body,
            json!({
                "ID": "r1",
                "Meta": { "status": "answered" },
                "contents": [
                    { "type": 1, "text": { "type": "text", "text": "ok" } },
                    { "type": 2, "image": { "type": "image", "data": "iVBO", "mimeType": "image/png" } },
                    { "type": 4, "embeddedResource": {
                        "type": "embedded_resource", "uri": "file:///a.txt",
                        "mimeType": "text/plain", "data": "aGkK" } },
                ],
            })
        );
        let empty: serde_json::Value =
            serde_json::from_slice(&Codec::Json.encode(&AnswerResponse::default())).unwrap();
        assert_eq!(empty, json!({}));
    }
}
