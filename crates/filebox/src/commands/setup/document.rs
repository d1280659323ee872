//! One host config file, read once, the entries applied in memory, then shown as a diff or
//! written: the old text kept in `FILE.filebox.bak` first, the new one put in place with a
//! rename, so a crash leaves the old file or the new one, never half of one. Every read and
//! write goes through [`ConfinedFile`]: a host file is a regular file reached without following
//! a link, of bounded size, or it is refused before anything is written.

use std::path::PathBuf;

use anyhow::Context;
use filebox_core::confined::{ConfinedFile, Contents};
use serde_json::Value;

use super::entries::{Entry, is_filebox_hook};
use super::hosts::Format;
use super::jsonc::JsoncFile;
use super::toml::TomlFile;

/// The largest host config file read: far above any MCP or hooks file a host writes, small
/// enough that a huge file (or a link to `/dev/zero`, refused anyway) cannot fill the memory.
const MAX_HOST_FILE_BYTES: u64 = 1 << 20;

/// A host config file, parsed.
pub(crate) struct Document {
    pub(crate) path: PathBuf,
    file: ConfinedFile,
    /// The text on disk (empty when there is no file).
    pub(crate) before: String,
    pub(crate) existed: bool,
    /// The old file's permissions, kept by the new file and the backup.
    mode: Option<u32>,
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
    /// Read `file` (no file: an empty one). A file that cannot be parsed, or that is refused
    /// (a link, a FIFO, a device, too large; also at its backup's name), is an error naming
    /// it: setup then writes nothing.
    pub(crate) fn load(file: ConfinedFile, format: Format) -> anyhow::Result<Self> {
        let path = file.path().to_owned();
        let read = file
            .read(MAX_HOST_FILE_BYTES)
            .context("setup changed nothing")?;
        let (before, existed, mode) = match read {
            Some(Contents { bytes, mode }) => {
                let text = String::from_utf8(bytes).with_context(|| {
                    format!("{} left untouched: not UTF-8 text", path.display())
                })?;
                (text, true, Some(mode))
            }
            None => (String::new(), false, None),
        };
        // The backup is written only when the file exists, but a link planted at its name is
        // refused in any case, before anything is written (and under --dry-run alike).
        backup(&file)
            .replaceable()
            .context("setup changed nothing")?;
        let parsed = match format {
            Format::Jsonc => JsoncFile::parse(&before).map(Parsed::Jsonc),
            Format::Toml => TomlFile::parse(&before).map(Parsed::Toml),
        }
        .with_context(|| format!("{} left untouched", path.display()))?;
        Ok(Self {
            path,
            file,
            before,
            existed,
            mode,
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
        backup(&self.file).path().to_owned()
    }

    /// Write the new text: the old one to [`Self::backup_path`] first (when there was a
    /// file), then the new file in place with a rename, both with the old file's permissions.
    /// Each is a new file created exclusively and renamed over its name (see [`ConfinedFile`]).
    pub(crate) fn write(&self) -> anyhow::Result<()> {
        // The root is the caller's to trust (the project, which exists, or a host's own folder
        // in the home, made as the home has it); the folders below it are made beneath it.
        let root = self.file.root();
        std::fs::create_dir_all(root)
            .with_context(|| format!("cannot create {}", root.display()))?;
        if self.existed {
            backup(&self.file)
                .replace(self.before.as_bytes(), self.mode)
                .with_context(|| format!("cannot back up {}", self.path.display()))?;
        }
        self.file
            .replace(self.after().as_bytes(), self.mode)
            .with_context(|| format!("cannot write {}", self.path.display()))
    }
}

/// `FILE.filebox.bak`, beneath the same root as `file`.
fn backup(file: &ConfinedFile) -> ConfinedFile {
    let mut path = file.path().as_os_str().to_owned();
    path.push(".filebox.bak");
    file.with_path(path)
}

fn keys(path: &[String]) -> Vec<&str> {
    path.iter().map(String::as_str).collect()
}
