//! `filebox hub set`: write the config's `hub` section (where callbacks may go, the webhook
//! signing key, how often a webhook is tried), checked as `filebox serve` checks it at start.

use super::acting::config_path;
use super::config_edit::{ConfigEdit, set_fields};
use crate::cli::{Global, HubAction, HubArgs, HubSetArgs};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &HubArgs) -> anyhow::Result<Outcome> {
    match &args.action {
        HubAction::Set(set) => set_section(global, set),
    }
}

/// `--allow` adds to `callback_allow` (an entry already there is not repeated); the other
/// options replace their field.
fn set_section(global: &Global, args: &HubSetArgs) -> anyhow::Result<Outcome> {
    let path = config_path(global)?;
    let edit = ConfigEdit {
        path: &path,
        dry_run: args.dry_run,
    };
    let written = edit.apply(
        |file| {
            let mut allow: Vec<serde_json::Value> = file
                .extra
                .get("hub")
                .and_then(|hub| hub.get("callback_allow"))
                .and_then(serde_json::Value::as_array)
                .cloned()
                .unwrap_or_default();
            for entry in &args.allow {
                if !allow.iter().any(|there| there == entry.as_str()) {
                    allow.push(entry.as_str().into());
                }
            }
            let fields = [
                (
                    "callback_allow",
                    (!args.allow.is_empty()).then(|| allow.into()),
                ),
                ("webhook_secret", args.secret.clone().map(Into::into)),
                ("webhook_attempts", args.webhook_attempts.map(Into::into)),
                (
                    "webhook_first_retry_ms",
                    args.webhook_first_retry_ms.map(Into::into),
                ),
            ];
            set_fields(file, "hub", &fields).map_err(|reason| edit.refused(reason))
        },
        filebox_hub::check_hub_section,
    )?;
    if let Some(config) = written {
        let section = &config.file.extra["hub"];
        output::either(global.json, section, |section| {
            let allowed = section
                .get("callback_allow")
                .and_then(serde_json::Value::as_array)
                .map_or(0, Vec::len);
            let signed = if section.get("webhook_secret").is_some() {
                "signed with webhook_secret"
            } else {
                "not signable yet: give --secret"
            };
            vec![format!(
                "hub: callbacks may go under {allowed} allowed URL(s), {signed}"
            )]
        })?;
    }
    Ok(Outcome::Success)
}
