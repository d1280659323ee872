//! The A2A wire shapes, both dialects: 1.0 (ProtoJSON: `TASK_STATE_*`, `ROLE_*`, parts by
//! their one field) and 0.3 (`kind`-tagged parts, lower-case states); what a client sends is
//! read in either shape, what the hub answers is written in the dialect of the method called.

use base64::Engine as _;
use serde_json::{Map, Value, json};

use super::error::A2aError;

/// The most parts one message may have: A2A messages carry a few; each file part is a file on
/// disk, so ten thousand of them would be ten thousand files (and a name tried against each).
const MAX_PARTS: usize = 100;
/// The longest `messageId`, `contextId` or `taskId` taken: an id, not a document (a UUID is
/// 36 bytes); refused at the edge so no error or header has to carry a megabyte of it.
const MAX_ID_BYTES: usize = 1024;

/// Which version of A2A a method name belongs to: `SendMessage` (1.0) or `message/send` (0.3).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Dialect {
    V1,
    V03,
}

/// A message a client sent, its parts sorted by what FileBox makes of them.
#[derive(Debug, Clone, Default, PartialEq)]
pub(crate) struct Incoming {
    pub(crate) message_id: String,
    pub(crate) context_id: Option<String>,
    pub(crate) task_id: Option<String>,
    /// Text parts, and file parts given by URL (as a link): the body, in order.
    pub(crate) texts: Vec<String>,
    /// File parts given inline: attachments.
    pub(crate) files: Vec<filebox_core::Attachment>,
    /// Data parts: kept in the body as JSON blocks.
    pub(crate) data: Vec<Value>,
}

impl Incoming {
    /// Read `params.message` of a `SendMessage` / `message/send` call.
    pub(crate) fn parse(params: &Value) -> Result<Incoming, A2aError> {
        let message = params
            .get("message")
            .and_then(Value::as_object)
            .ok_or_else(|| A2aError::invalid_params("message", "an object is required"))?;
        let text_field = |name: &str| -> Result<Option<String>, A2aError> {
            match message.get(name) {
                None | Some(Value::Null) => Ok(None),
                Some(Value::String(s)) if s.is_empty() => Ok(None),
                Some(Value::String(s)) if s.len() > MAX_ID_BYTES => Err(A2aError::invalid_params(
                    &format!("message.{name}"),
                    format!(
                        "is {} bytes, over the {MAX_ID_BYTES} an id may have: use a UUID",
                        s.len()
                    ),
                )),
                Some(Value::String(s)) => Ok(Some(s.clone())),
                Some(_) => Err(A2aError::invalid_params(
                    &format!("message.{name}"),
                    "must be a string",
                )),
            }
        };
        let message_id = text_field("messageId")?
            .ok_or_else(|| A2aError::invalid_params("message.messageId", "is required"))?;
        let parts = message
            .get("parts")
            .and_then(Value::as_array)
            .filter(|parts| !parts.is_empty())
            .ok_or_else(|| {
                A2aError::invalid_params("message.parts", "at least one part is required")
            })?;
        if parts.len() > MAX_PARTS {
            return Err(A2aError::invalid_params(
                "message.parts",
                format!(
                    "{} parts, over the {MAX_PARTS} a message may have: join the texts, or send \
                     the files as one archive",
                    parts.len()
                ),
            ));
        }
        let mut incoming = Incoming {
            message_id,
            context_id: text_field("contextId")?,
            task_id: text_field("taskId")?,
            ..Incoming::default()
        };
        for (n, part) in parts.iter().enumerate() {
            incoming.add_part(part, &format!("message.parts[{n}]"))?;
        }
        Ok(incoming)
    }

    /// The parts of a message or artifact a remote agent answered; a part that cannot be read
    /// is left out (the answer is not ours to refuse).
    pub(crate) fn of_parts(parts: &[Value]) -> Incoming {
        let mut incoming = Incoming::default();
        for part in parts {
            let _ = incoming.add_part(part, "part");
        }
        incoming
    }

    fn add_part(&mut self, part: &Value, field: &str) -> Result<(), A2aError> {
        let part = part
            .as_object()
            .ok_or_else(|| A2aError::invalid_params(field, "a part must be an object"))?;
        let text = |map: &Map<String, Value>, key: &str| {
            map.get(key).and_then(Value::as_str).map(str::to_owned)
        };
        if let Some(body) = text(part, "text") {
            self.texts.push(body);
            return Ok(());
        }
        if let Some(data) = part.get("data") {
            self.data.push(data.clone());
            return Ok(());
        }
        // 1.0 puts a file's fields on the part, 0.3 under `file` with other names.
        let (file, name_key, mime_key, bytes_key, url_key) = match part.get("file") {
            Some(Value::Object(file)) => (file, "name", "mimeType", "bytes", "uri"),
            _ => (part, "filename", "mediaType", "raw", "url"),
        };
        let name = text(file, name_key).unwrap_or_else(|| "attachment".into());
        let mime = text(file, mime_key);
        if let Some(encoded) = text(file, bytes_key) {
            let bytes = base64::engine::general_purpose::STANDARD
                .decode(encoded.as_bytes())
                .map_err(|e| A2aError::invalid_params(field, format!("not base64: {e}")))?;
            self.files
                .push(filebox_core::Attachment { name, mime, bytes });
            return Ok(());
        }
        if let Some(url) = text(file, url_key) {
            // Never fetched: a link in the body, its name and address each made one plain
            // token (the URL as parsed: no line breaks or spaces), so it cannot start a line.
            let url = url::Url::parse(&url)
                .map_err(|e| A2aError::invalid_params(field, format!("the file's URL: {e}")))?;
            let name = filebox_core::attachment::safe_name(&name);
            self.texts.push(format!("[{name}]({url})"));
            return Ok(());
        }
        Err(A2aError::invalid_params(
            field,
            "a part holds text, data, or a file (inline bytes or a URL)",
        ))
    }

    /// The message body: the text parts, then each data part as a JSON block.
    pub(crate) fn body(&self) -> String {
        let mut body = self.texts.join("\n\n");
        for data in &self.data {
            let pretty = serde_json::to_string_pretty(data).unwrap_or_default();
            if !body.is_empty() {
                body.push_str("\n\n");
            }
            body.push_str(&format!("```json\n{pretty}\n```"));
        }
        body
    }
}

/// Who wrote a turn of the conversation.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Role {
    /// The A2A client.
    User,
    /// The FileBox agent.
    Agent,
}

/// One message of a task's history, or its status message.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Turn {
    pub(crate) message_id: String,
    pub(crate) role: Role,
    pub(crate) text: String,
}

/// An artifact: a named text.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(crate) struct Artifact {
    pub(crate) id: String,
    pub(crate) name: String,
    pub(crate) text: String,
}

impl Dialect {
    pub(crate) fn text_part(self, text: &str) -> Value {
        match self {
            Dialect::V1 => json!({ "text": text }),
            Dialect::V03 => json!({ "kind": "text", "text": text }),
        }
    }

    pub(crate) fn message(self, turn: &Turn, task_id: &str, context_id: &str) -> Value {
        let role = match (self, turn.role) {
            (Dialect::V1, Role::User) => "ROLE_USER",
            (Dialect::V1, Role::Agent) => "ROLE_AGENT",
            (Dialect::V03, Role::User) => "user",
            (Dialect::V03, Role::Agent) => "agent",
        };
        let mut message = json!({
            "messageId": turn.message_id,
            "contextId": context_id,
            "taskId": task_id,
            "role": role,
            "parts": [self.text_part(&turn.text)],
        });
        if self == Dialect::V03 {
            message["kind"] = json!("message");
        }
        message
    }

    pub(crate) fn artifact(self, artifact: &Artifact) -> Value {
        json!({
            "artifactId": artifact.id,
            "name": artifact.name,
            "parts": [self.text_part(&artifact.text)],
        })
    }
}
