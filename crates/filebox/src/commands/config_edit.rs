//! One change to the config file, checked before it is written: shown as a diff and not
//! written with `--dry-run` (as `setup --dry-run` shows its changes), else written under the
//! config's lock (`Config::update`).

use std::path::Path;

use anyhow::Context;
use filebox_core::{Config, ConfigFile};

use crate::output;

/// A change `agents add`, `federation set` or `hub set` makes to the config at `path`.
pub(super) struct ConfigEdit<'a> {
    pub(super) path: &'a Path,
    pub(super) dry_run: bool,
}

impl ConfigEdit<'_> {
    /// A change refused for `reason`: a config error naming the file.
    pub(super) fn refused(&self, reason: String) -> filebox_core::Error {
        filebox_core::Error::Config {
            path: self.path.to_owned(),
            reason,
        }
    }

    /// Apply `change`, then `check` the config it gives (a refusal writes nothing). With
    /// `dry_run`, print the change as a unified diff ("nothing to change" when there is none)
    /// and return `None`; else write it and return the config written.
    pub(super) fn apply(
        &self,
        change: impl Fn(&mut ConfigFile) -> filebox_core::Result<()>,
        check: impl Fn(&Config) -> anyhow::Result<()>,
    ) -> anyhow::Result<Option<Config>> {
        let checked = |file: &mut ConfigFile| {
            change(file)?;
            let config = Config {
                path: self.path.to_owned(),
                file: file.clone(),
            };
            check(&config).map_err(|error| {
                // The checks name the file themselves; the refusal names it once.
                let message = output::describe(&error);
                let named = format!("config {}: ", self.path.display());
                let reason = message.strip_prefix(&named).unwrap_or(&message);
                self.refused(format!("{reason}; nothing was written"))
            })
        };
        if !self.dry_run {
            return Ok(Some(Config::update(self.path, checked)?));
        }
        let before = match std::fs::read_to_string(self.path) {
            Ok(text) => Some(text),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => None,
            Err(e) => {
                return Err(e).with_context(|| format!("cannot read {}", self.path.display()));
            }
        };
        let mut file: ConfigFile = match &before {
            Some(text) => serde_json::from_str(text).map_err(|e| self.refused(e.to_string()))?,
            None => ConfigFile::default(),
        };
        checked(&mut file)?;
        let after = format!("{}\n", serde_json::to_string_pretty(&file)?);
        let shown = self.path.display().to_string();
        let old = before
            .as_ref()
            .map_or("/dev/null".to_owned(), |_| shown.clone());
        let before = before.unwrap_or_default();
        if before == after {
            output::lines(["nothing to change"])?;
        } else {
            let diff = similar::TextDiff::from_lines(&before, &after);
            output::text(&diff.unified_diff().header(&old, &shown).to_string())?;
        }
        Ok(None)
    }
}

/// Set `fields` given (`Some`) in the config's `section` object, creating it if need be; the
/// section's other fields stay. A section that is not an object is refused, not replaced.
pub(super) fn set_fields(
    file: &mut ConfigFile,
    section: &str,
    fields: &[(&str, Option<serde_json::Value>)],
) -> Result<(), String> {
    let value = file
        .extra
        .entry(section.to_owned())
        .or_insert_with(|| serde_json::Value::Object(serde_json::Map::new()));
    let object = value.as_object_mut().ok_or_else(|| {
        format!("the \"{section}\" section is not a JSON object: fix or remove it by hand")
    })?;
    for (name, given) in fields {
        if let Some(given) = given {
            object.insert((*name).to_owned(), given.clone());
        }
    }
    Ok(())
}
