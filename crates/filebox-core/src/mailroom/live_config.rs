//! One config handle a long-running process (the hub, its federation) keeps current: the file
//! is parsed once, and again only when it changed. Each [`LiveConfig::current`] looks at the
//! file's identity (device, inode, size, modification and change times: one `stat`), so an
//! edit — `filebox agents add`, a new token, a person's editor — takes effect at the next
//! request, as when the file was read for every request, without reading and parsing it each
//! time. Writers replace the file by a rename (a new inode); an edit in place changes its
//! times.

use std::fs::{File, Metadata};
use std::io::Read;
use std::os::unix::fs::MetadataExt;
use std::path::{Path, PathBuf};
use std::sync::Mutex;

use crate::error::{Error, Result};
use crate::mailroom::config::Config;

/// The config file as last parsed, and which version of the file that was.
#[derive(Debug)]
pub struct LiveConfig {
    path: PathBuf,
    /// The version parsed, which parse of the file it was (counted from 1), and the config.
    loaded: Mutex<Option<(Version, u64, Config)>>,
}

/// What tells two versions of a file apart without reading it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Version {
    dev: u64,
    ino: u64,
    size: u64,
    mtime: (i64, i64),
    ctime: (i64, i64),
}

impl Version {
    fn of(metadata: &Metadata) -> Version {
        Version {
            dev: metadata.dev(),
            ino: metadata.ino(),
            size: metadata.size(),
            mtime: (metadata.mtime(), metadata.mtime_nsec()),
            ctime: (metadata.ctime(), metadata.ctime_nsec()),
        }
    }
}

impl LiveConfig {
    /// Load the config at `path` (an error if it cannot be read or parsed).
    pub fn load(path: &Path) -> Result<LiveConfig> {
        let live = LiveConfig {
            path: path.to_owned(),
            loaded: Mutex::new(None),
        };
        live.current()?;
        Ok(live)
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// The config as the file is now: the parsed copy if the file is the one it was parsed
    /// from, else the file read and parsed again. A file that cannot be read or parsed is the
    /// error it always was (the last good version is not served in its place).
    pub fn current(&self) -> Result<Config> {
        Ok(self.current_numbered()?.1)
    }

    /// [`LiveConfig::current`], with the number of the parse it comes from: a new number each
    /// time the file changed and was parsed again, so what a caller derives from the config
    /// (the hub's settings) is derived again only then.
    pub fn current_numbered(&self) -> Result<(u64, Config)> {
        let version = std::fs::metadata(&self.path)
            .map(|m| Version::of(&m))
            .map_err(|e| self.error(e))?;
        let mut loaded = self.loaded.lock().unwrap_or_else(|e| e.into_inner());
        if let Some((seen, number, config)) = loaded.as_ref()
            && *seen == version
        {
            return Ok((*number, config.clone()));
        }
        // Read through one open file, and take the version from that file, so the version
        // recorded is the one whose bytes were parsed.
        let mut file = File::open(&self.path).map_err(|e| self.error(e))?;
        let version = file
            .metadata()
            .map(|m| Version::of(&m))
            .map_err(|e| self.error(e))?;
        let mut bytes = Vec::new();
        file.read_to_end(&mut bytes).map_err(|e| self.error(e))?;
        let config = Config::parse(&self.path, &bytes)?;
        let number = loaded.as_ref().map_or(1, |(_, number, _)| number + 1);
        *loaded = Some((version, number, config.clone()));
        Ok((number, config))
    }

    fn error(&self, e: std::io::Error) -> Error {
        Error::Config {
            path: self.path.clone(),
            reason: e.to_string(),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::agent::AgentId;
    use crate::mailroom::config::AgentEntry;

    fn agents(config: &Config) -> Vec<String> {
        config.file.agents.keys().map(|a| a.to_string()).collect()
    }

    #[test]
    fn a_change_to_the_file_is_seen_at_the_next_look() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        std::fs::write(&path, r#"{"agents": {"a": {"mailbox_path": "a"}}}"#).unwrap();
        let live = LiveConfig::load(&path).unwrap();
        assert_eq!(agents(&live.current().unwrap()), ["a"]);

        // As `filebox agents add` changes it: a new file renamed over the old one.
        Config::update(&path, |file| {
            file.agents.insert(
                AgentId::new("b").unwrap(),
                AgentEntry::new(dir.path().join("b")),
            );
            Ok(())
        })
        .unwrap();
        assert_eq!(agents(&live.current().unwrap()), ["a", "b"]);

        // Edited in place (same inode), as a person's editor may.
        let text = std::fs::read_to_string(&path)
            .unwrap()
            .replace("\"b\"", "\"cc\"");
        std::fs::write(&path, text).unwrap();
        assert_eq!(agents(&live.current().unwrap()), ["a", "cc"]);
    }

    #[test]
    fn the_parse_number_changes_only_when_the_file_does() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        std::fs::write(&path, r#"{"agents": {}}"#).unwrap();
        let live = LiveConfig::load(&path).unwrap();
        let (first, _) = live.current_numbered().unwrap();
        assert_eq!(live.current_numbered().unwrap().0, first);
        std::fs::write(&path, r#"{"agents": {"a": {"mailbox_path": "a"}}}"#).unwrap();
        let (second, config) = live.current_numbered().unwrap();
        assert_ne!(second, first);
        assert_eq!(agents(&config), ["a"]);
        assert_eq!(live.current_numbered().unwrap().0, second);
    }

    #[test]
    fn a_broken_or_missing_file_is_an_error_not_the_last_good_version() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("config.json");
        std::fs::write(&path, r#"{"agents": {}}"#).unwrap();
        let live = LiveConfig::load(&path).unwrap();
        std::fs::write(&path, "{ not json").unwrap();
        assert!(matches!(live.current(), Err(Error::Config { .. })));
        std::fs::write(&path, r#"{"agents": {}}"#).unwrap();
        assert!(live.current().is_ok());
        std::fs::remove_file(&path).unwrap();
        assert!(matches!(live.current(), Err(Error::Config { .. })));
        assert!(LiveConfig::load(&path).is_err());
    }
}
