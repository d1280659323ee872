//! One host config file, read once, the entries applied in memory, then shown as a diff or
//! written: the old file copied to `FILE.filebox.bak` first, the new one put in place with a
//! rename, so a crash leaves the old file or the new one, never half of one.

use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use serde_json::Value;

use super::entries::{Entry, is_filebox_hook};
use super::hosts::Format;
use super::jsonc::JsoncFile;
use super::toml::TomlFile;

/// A host config file, parsed.
pub(crate) struct Document {
    pub(crate) path: PathBuf,
    /// The text on disk (empty when there is no file).
    pub(crate) before: String,
    pub(crate) existed: bool,
    parsed: Parsed,
}

enum Parsed {
    Jsonc(JsoncFile),
    Toml(TomlFile),
}

/// Whether an entry is in its file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, serde::Serialize)]
#[serde(rename_all = "lowercase")]
pub(crate) enum State {
    /// There, as setup would write it.
    Configured,
    /// There, but otherwise (another agent, config or binary).
    Differs,
    Missing,
}

impl Document {
    /// Read `path` (no file: an empty one). A file that cannot be parsed is an error naming
    /// it: setup then writes nothing.
    pub(crate) fn load(path: &Path, format: Format) -> anyhow::Result<Self> {
        let (before, existed) = match std::fs::read_to_string(path) {
            Ok(text) => (text, true),
            Err(error) if error.kind() == std::io::ErrorKind::NotFound => (String::new(), false),
            Err(error) => {
                return Err(error).with_context(|| format!("cannot read {}", path.display()));
            }
        };
        let parsed = match format {
            Format::Jsonc => JsoncFile::parse(&before).map(Parsed::Jsonc),
            Format::Toml => TomlFile::parse(&before).map(Parsed::Toml),
        }
        .with_context(|| format!("{} left untouched", path.display()))?;
        Ok(Self {
            path: path.to_owned(),
            before,
            existed,
            parsed,
        })
    }

    /// Put `entry` in (no change when it is there already).
    pub(crate) fn apply(&mut self, entry: &Entry) -> anyhow::Result<()> {
        if self.state(entry) == State::Configured {
            return Ok(());
        }
        let result = match (entry, &mut self.parsed) {
            (Entry::Value { path, value, .. }, Parsed::Jsonc(file)) => file.set(&keys(path), value),
            (Entry::Value { path, value, .. }, Parsed::Toml(file)) => file.set(&keys(path), value),
            (
                Entry::Hook {
                    path,
                    group,
                    flavour,
                    ..
                },
                Parsed::Jsonc(file),
            ) => file.upsert_element(&keys(path), |found| is_filebox_hook(found, flavour), group),
            (Entry::Hook { .. }, Parsed::Toml(_)) => {
                anyhow::bail!("hooks in a TOML file are not supported")
            }
        };
        result.with_context(|| format!("{} left untouched", self.path.display()))
    }

    /// Whether `entry` is in the file.
    pub(crate) fn state(&self, entry: &Entry) -> State {
        match entry {
            Entry::Value { path, value, .. } => match self.get(&keys(path)) {
                Some(found) if found == *value => State::Configured,
                Some(_) => State::Differs,
                None => State::Missing,
            },
            Entry::Hook {
                path,
                group,
                flavour,
                ..
            } => {
                let groups = self.get(&keys(path));
                let groups = groups.as_ref().and_then(Value::as_array);
                let groups = groups.map(Vec::as_slice).unwrap_or_default();
                if groups.contains(group) {
                    State::Configured
                } else if groups.iter().any(|found| is_filebox_hook(found, flavour)) {
                    State::Differs
                } else {
                    State::Missing
                }
            }
        }
    }

    fn get(&self, path: &[&str]) -> Option<Value> {
        match &self.parsed {
            Parsed::Jsonc(file) => file.get(path),
            Parsed::Toml(file) => file.get(path),
        }
    }

    /// The text with the entries applied.
    pub(crate) fn after(&self) -> String {
        match &self.parsed {
            Parsed::Jsonc(file) => file.text(),
            Parsed::Toml(file) => file.text(),
        }
    }

    /// The change as a unified diff, `shown` naming the file.
    pub(crate) fn diff(&self, shown: &str) -> String {
        let after = self.after();
        let old = if self.existed {
            shown.to_owned()
        } else {
            "/dev/null".to_owned()
        };
        similar::TextDiff::from_lines(&self.before, &after)
            .unified_diff()
            .header(&old, shown)
            .to_string()
    }

    /// Where the old file is kept when it is replaced.
    pub(crate) fn backup_path(&self) -> PathBuf {
        let mut name = self.path.file_name().unwrap_or_default().to_owned();
        name.push(".filebox.bak");
        self.path.with_file_name(name)
    }

    /// Write the new text: the old file to [`Self::backup_path`] first (when there was
    /// one), then the new file in place with a rename, keeping the old file's permissions.
    pub(crate) fn write(&self) -> anyhow::Result<()> {
        let dir = self.path.parent().context("a file with no folder")?;
        std::fs::create_dir_all(dir).with_context(|| format!("cannot create {}", dir.display()))?;
        if self.existed {
            std::fs::copy(&self.path, self.backup_path())
                .with_context(|| format!("cannot back up {}", self.path.display()))?;
        }
        let mut name = self.path.file_name().unwrap_or_default().to_owned();
        name.push(format!(".filebox-tmp-{}", std::process::id()));
        let temp = self.path.with_file_name(name);
        let written = (|| -> std::io::Result<()> {
            let mut file = std::fs::File::create(&temp)?;
            file.write_all(self.after().as_bytes())?;
            if self.existed {
                file.set_permissions(std::fs::metadata(&self.path)?.permissions())?;
            }
            file.sync_all()?;
            std::fs::rename(&temp, &self.path)
        })();
        if written.is_err() {
            let _ = std::fs::remove_file(&temp);
        }
        written.with_context(|| format!("cannot write {}", self.path.display()))
    }
}

fn keys(path: &[String]) -> Vec<&str> {
    path.iter().map(String::as_str).collect()
}
