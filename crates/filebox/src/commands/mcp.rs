//! temp
use crate::cli::{Global, McpArgs};
use crate::output::Outcome;
pub(crate) fn run(_global: &Global, _args: &McpArgs) -> anyhow::Result<Outcome> {
    anyhow::bail!("x")
}
