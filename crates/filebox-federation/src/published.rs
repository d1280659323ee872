//! What this hub has handed to JetStream (its publish was acknowledged by the stream): one
//! key (the `Nats-Msg-Id`) per line in `federation/published` beside the config. Derived
//! state: deleting the file only makes the hub publish again, which the stream's duplicate
//! window and the receiver's idempotent delivery absorb.

use std::collections::HashSet;
use std::fs::{File, OpenOptions};
use std::io::Write;
use std::path::{Path, PathBuf};

use anyhow::Context;
use filebox_core::Config;

/// The federation's folder beside the config.
pub(crate) const DIR: &str = "federation";

/// The published keys, in memory and on disk.
#[derive(Debug)]
pub(crate) struct Published {
    path: PathBuf,
    keys: HashSet<String>,
    file: Option<File>,
}

impl Published {
    /// Load the keys of `config`'s hub (none yet is fine).
    pub(crate) fn load(config: &Config) -> anyhow::Result<Published> {
        let path = config.config_dir().join(DIR).join("published");
        let keys = match std::fs::read_to_string(&path) {
            Ok(text) => text.lines().map(str::to_owned).collect(),
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => HashSet::new(),
            Err(e) => return Err(e).with_context(|| format!("reading {}", path.display())),
        };
        Ok(Published {
            path,
            keys,
            file: None,
        })
    }

    pub(crate) fn contains(&self, key: &str) -> bool {
        self.keys.contains(key)
    }

    /// Remember `key` (appended to the file; a lost line only means one more publish).
    pub(crate) fn record(&mut self, key: &str) -> anyhow::Result<()> {
        if !self.keys.insert(key.to_owned()) {
            return Ok(());
        }
        let file = match &mut self.file {
            Some(file) => file,
            None => self.file.insert(open_append(&self.path)?),
        };
        writeln!(file, "{key}").with_context(|| format!("writing {}", self.path.display()))
    }
}

fn open_append(path: &Path) -> anyhow::Result<File> {
    if let Some(dir) = path.parent() {
        std::fs::create_dir_all(dir).with_context(|| format!("creating {}", dir.display()))?;
    }
    OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)
        .with_context(|| format!("opening {}", path.display()))
}
