//! What a JSON-RPC handler is given: the call's context ([`Ctx`]: the config as read for the
//! request, its `hub` section, who calls, the bound on waiting calls) and its params decoded.

use filebox_api::access::Caller;
use filebox_core::{AgentId, Config, Mailroom};
use serde_json::Value;

use super::error::RpcError;
use crate::limits::Bound;
use crate::settings::{HubSection, Settings};

/// What a handler knows about its call: the config as read for this request and its `hub`
/// section as parsed once for that version of the file, who calls, and the bound on calls
/// that wait (`wait_for_messages`, `ask_question`, ...).
#[derive(Debug)]
pub(crate) struct Ctx {
    pub(crate) config: Config,
    pub(crate) settings: Settings,
    pub(crate) caller: Caller,
    pub(crate) waits: Bound,
}

impl Ctx {
    /// The mailroom of the agent named by the params' `field`, as the access policy allows.
    pub(crate) fn act_as(&self, agent: &str, field: &str) -> Result<Mailroom, RpcError> {
        let agent = AgentId::new(agent).map_err(|e| RpcError::invalid_params(field, e))?;
        Ok(self.caller.act_as(&self.config, &agent)?)
    }

    /// The config's `hub` section; an internal error naming what is wrong with it when it
    /// cannot be read.
    pub(crate) fn hub_section(&self) -> Result<&HubSection, RpcError> {
        self.settings.as_ref().as_ref().map_err(RpcError::internal)
    }
}

/// Params as the method's type; a mismatch names the field (`filebox_api::decode`).
pub(crate) fn params<T: serde::de::DeserializeOwned>(params: Value) -> Result<T, RpcError> {
    filebox_api::decode(params).map_err(|e| RpcError::invalid_params(&e.field, e.reason))
}
