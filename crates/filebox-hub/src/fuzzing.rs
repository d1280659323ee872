//! The entry point of the JSON-RPC fuzz target (`fuzz/`, feature `fuzzing`): a request body
//! answered by the code `POST /rpc` and the Unix socket run, without a server.

use std::sync::Arc;

use filebox_api::access::Caller;
use filebox_core::Config;
use serde_json::Value;

use crate::limits::Bound;
use crate::rpc::{Ctx, handle_body};
use crate::settings::HubSection;

/// The most calls one batch may hold: a longer one is refused whole with one error.
pub const MAX_BATCH_CALLS: usize = crate::rpc::MAX_BATCH_CALLS;

/// Answer a JSON-RPC request body under `config` as a caller without a token: `None` when
/// the body held only notifications.
pub fn answer(config: Config, body: &[u8]) -> Option<Value> {
    let settings = Arc::new(HubSection::of(&config).map_err(|e| e.to_string()));
    handle_body(
        &Ctx {
            config,
            settings,
            caller: Caller::Anonymous,
            waits: Bound::waits(HubSection::default().max_waiting_calls),
        },
        body,
    )
}
