//! The MCP client an agent runs in, as that client last reported it (Agent Assistant's
//! `SendMcpClientInfo`): name, version and protocol version, kept in the agent's
//! `.filebox/mcp-client.json` so the questions it asks afterwards name it. A hint for people,
//! not mail: deleting the file only makes later questions name their client less precisely.

use serde::{Deserialize, Serialize};

use crate::error::{Error, Result};
use crate::mailroom::Mailroom;
use crate::store;

const FILE: &str = "mcp-client.json";

/// What an MCP client says about itself.
#[derive(Debug, Clone, Default, PartialEq, Eq, Serialize, Deserialize)]
pub struct ClientInfo {
    pub name: String,
    #[serde(default)]
    pub version: String,
    /// The MCP protocol version it speaks (`2025-06-18`).
    #[serde(default)]
    pub protocol_version: String,
}

impl ClientInfo {
    /// How a question names the client: `name version (MCP protocol)`, the blank parts left
    /// out.
    pub fn label(&self) -> String {
        let mut label = self.name.trim().to_owned();
        let version = self.version.trim();
        if !version.is_empty() {
            label = format!("{label} {version}").trim().to_owned();
        }
        let protocol = self.protocol_version.trim();
        if !protocol.is_empty() {
            label = format!("{label} (MCP {protocol})").trim().to_owned();
        }
        label
    }
}

impl Mailroom {
    /// Record the client I run in (replacing what was recorded).
    pub fn record_client_info(&self, info: &ClientInfo) -> Result<()> {
        if info.name.trim().is_empty() {
            return Err(Error::invalid(
                "client name",
                "",
                "say which MCP client this is (its name from initialize)",
            ));
        }
        let path = self.my_mailbox()?.state_dir().join(FILE);
        let json = serde_json::to_vec(info).unwrap_or_default();
        store::write_file_atomic(&path, &json)
    }

    /// The client I last recorded, if any. A missing or unreadable record is none: it is a
    /// hint, and a broken one must not stop a question.
    pub fn client_info(&self) -> Option<ClientInfo> {
        let path = self.my_mailbox().ok()?.state_dir().join(FILE);
        let bytes = store::read_regular(&path).ok()?;
        serde_json::from_slice(&bytes).ok()
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::mailroom::test_mailroom;

    #[test]
    fn a_recorded_client_is_read_back_and_labelled() {
        let dir = tempfile::tempdir().unwrap();
        let bot = test_mailroom::dev_and_qa_as(dir.path(), "dev");
        assert_eq!(bot.client_info(), None);
        let info = ClientInfo {
            name: "Cursor".into(),
            version: "1.3.2".into(),
            protocol_version: "2025-06-18".into(),
        };
        bot.record_client_info(&info).unwrap();
        assert_eq!(bot.client_info(), Some(info.clone()));
        assert_eq!(info.label(), "Cursor 1.3.2 (MCP 2025-06-18)");
        let bare = ClientInfo {
            name: "cline".into(),
            ..ClientInfo::default()
        };
        assert_eq!(bare.label(), "cline");
        assert!(bot.record_client_info(&ClientInfo::default()).is_err());
    }
}
