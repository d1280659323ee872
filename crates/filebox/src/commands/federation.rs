//! `filebox federation status`: this hub's view of the federation (see `filebox_federation::status`).

use anyhow::Context;
use filebox_core::Config;

use super::acting::cwd;
use crate::cli::{FederationAction, FederationArgs, Global};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &FederationArgs) -> anyhow::Result<Outcome> {
    match args.action {
        FederationAction::Status => status(global),
    }
}

fn status(global: &Global) -> anyhow::Result<Outcome> {
    let config = Config::discover(global.config.as_deref(), &cwd()?)?;
    let runtime = tokio::runtime::Builder::new_current_thread()
        .enable_all()
        .build()
        .context("cannot start the async runtime")?;
    let report = runtime.block_on(filebox_federation::status::report(&config))?;
    output::either(global.json, &report, |r| {
        filebox_federation::status::render(r)
            .lines()
            .map(str::to_owned)
            .collect()
    })?;
    Ok(if report.stream.is_some() {
        Outcome::Success
    } else {
        Outcome::Partial
    })
}
