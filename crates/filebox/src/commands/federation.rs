//! `filebox federation status`: this hub's view of the federation (see
//! `filebox_federation::status`); `filebox federation set`: write the config's `federation`
//! section.

use anyhow::Context;
use filebox_federation::Settings;

use super::acting::{config_path, discover};
use super::config_edit::{ConfigEdit, set_fields};
use crate::cli::{FederationAction, FederationArgs, FederationSetArgs, Global};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &FederationArgs) -> anyhow::Result<Outcome> {
    match &args.action {
        FederationAction::Status => status(global),
        FederationAction::Set(set) => set_section(global, set),
    }
}

fn status(global: &Global) -> anyhow::Result<Outcome> {
    let config = discover(global)?;
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

/// The fields given replace the section's; it must then be a section the hub can start with.
fn set_section(global: &Global, args: &FederationSetArgs) -> anyhow::Result<Outcome> {
    let path = config_path(global)?;
    let path_text = |path: &Option<std::path::PathBuf>| {
        path.as_ref().map(|path| path.display().to_string().into())
    };
    let fields = [
        ("nats", args.nats.clone().map(Into::into)),
        ("hub", args.hub.clone().map(Into::into)),
        ("credentials", path_text(&args.credentials)),
        ("nkey", path_text(&args.nkey)),
        ("user", args.user.clone().map(Into::into)),
        ("password", args.password.clone().map(Into::into)),
        ("resend_after_secs", args.resend_after_secs.map(Into::into)),
        ("replicas", args.replicas.map(Into::into)),
    ];
    let edit = ConfigEdit {
        path: &path,
        dry_run: args.dry_run,
    };
    let written = edit.apply(
        |file| set_fields(file, "federation", &fields).map_err(|reason| edit.refused(reason)),
        |config| Settings::of(config).map(drop),
    )?;
    if let Some(config) = written {
        let settings = Settings::of(&config)?.context("the federation section was not written")?;
        output::either(global.json, &config.file.extra["federation"], |_| {
            vec![format!(
                "federation: this hub is {} on {}; `filebox serve` connects when it starts \
                 (`filebox federation status` checks the connection)",
                settings.hub, settings.nats
            )]
        })?;
    }
    Ok(Outcome::Success)
}
