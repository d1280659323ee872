//! The argument types several verbs take: [`Recipients`] (`send_message`, `fork_thread`) and
//! [`AttachmentArg`] (`send_message`, `reply_message`). A verb's own argument struct lives in its
//! file under `verbs/`; the command line's spelling of these values is in
//! [`crate::command_line`].

use schemars::JsonSchema;
use serde::{Deserialize, Serialize};

/// One recipient or several. Its schema is a string (an agent id, comma-separated ids, `@all`
/// or `@group`), which is all a model needs; a list of those is accepted as well, for programs.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize)]
#[serde(untagged)]
pub enum Recipients {
    /// An agent id, a comma-separated list of ids, `@all` (everyone but me) or `@group`.
    One(String),
    /// Several agent ids (or `@all` / `@group`).
    Many(Vec<String>),
}

impl JsonSchema for Recipients {
    fn schema_name() -> std::borrow::Cow<'static, str> {
        "Recipients".into()
    }

    fn inline_schema() -> bool {
        true
    }

    fn json_schema(generator: &mut schemars::SchemaGenerator) -> schemars::Schema {
        String::json_schema(generator)
    }
}

impl Recipients {
    pub fn to_vec(&self) -> Vec<String> {
        match self {
            Recipients::One(one) => vec![one.clone()],
            Recipients::Many(many) => many.clone(),
        }
    }
}

/// A file attached to a message.
#[derive(Debug, Clone, PartialEq, Eq, Serialize, Deserialize, JsonSchema)]
pub struct AttachmentArg {
    /// File name.
    pub name: String,
    /// Default: by name.
    #[serde(default, alias = "mimeType")]
    pub mime_type: Option<String>,
    /// Base64.
    pub data: String,
}

impl AttachmentArg {
    /// An attachment of these bytes (encoded for the wire).
    pub fn from_bytes(name: &str, mime_type: Option<String>, bytes: &[u8]) -> Self {
        use base64::Engine;
        AttachmentArg {
            name: name.to_owned(),
            mime_type,
            data: base64::engine::general_purpose::STANDARD.encode(bytes),
        }
    }

    /// The attachment for the core: the bytes decoded.
    pub fn decode(&self) -> filebox_core::Result<filebox_core::Attachment> {
        use base64::Engine;
        let bytes = base64::engine::general_purpose::STANDARD
            .decode(self.data.trim())
            .map_err(|_| filebox_core::Error::Invalid {
                what: "attachment data",
                value: self.name.clone(),
                reason: "not valid base64".into(),
            })?;
        Ok(filebox_core::Attachment {
            name: self.name.clone(),
            mime: self.mime_type.clone(),
            bytes,
        })
    }
}
