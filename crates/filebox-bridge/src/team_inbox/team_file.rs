//! Reading a file of a team's folder (an inbox, the roster): whatever sits there was put there
//! by another program, so it is opened without following a link and without blocking, read
//! only if it is a regular file, and only up to [`MAX_TEAM_FILE_BYTES`], from the handle that
//! was checked. Anything else is refused with the reason, never waited on or read whole.

use std::fs::OpenOptions;
use std::io::{self, Read};
use std::os::unix::fs::{FileTypeExt, OpenOptionsExt};
use std::path::{Path, PathBuf};

use super::inbox::InboxError;

/// The largest team file read or written: Claude Code's inboxes are a few KiB to a few MiB
/// (current versions prune what was delivered; one message is at most a FileBox body, 10 MiB
/// by default), while the bridge reads every bridged inbox once a second, so a planted 300 MB
/// file would cost its size in memory twice over on every pass.
pub const MAX_TEAM_FILE_BYTES: u64 = 16 << 20;

/// A team file FileBox would not read (or write): a link, a FIFO, a device, a folder, or one
/// larger than [`MAX_TEAM_FILE_BYTES`]. It is left as it is.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
#[error("{path}: {}", self.explanation())]
pub struct Refused {
    pub path: PathBuf,
    /// What the file is (`it is a FIFO, not a regular file`).
    pub reason: String,
}

impl Refused {
    /// The refusal without the path: why, and what to do.
    pub fn explanation(&self) -> String {
        format!(
            "refused: {}; FileBox reads only a regular file of at most {} MiB, not through a \
             link: replace it with Claude Code's file or remove it",
            self.reason,
            MAX_TEAM_FILE_BYTES >> 20
        )
    }
}

/// The bytes of the team file at `path`; `None` when there is none.
pub(crate) fn read(path: &Path) -> Result<Option<Vec<u8>>, InboxError> {
    let refused = |reason: String| {
        InboxError::Refused(Refused {
            path: path.to_owned(),
            reason,
        })
    };
    let io = |source: io::Error| InboxError::Io {
        path: path.to_owned(),
        source,
    };
    let file = match OpenOptions::new()
        .read(true)
        // No link is followed (to /dev/zero, to a file outside the team), and a FIFO opens at
        // once instead of waiting for a writer that never comes.
        .custom_flags(libc::O_NOFOLLOW | libc::O_NONBLOCK)
        .open(path)
    {
        Ok(file) => file,
        Err(e) if e.kind() == io::ErrorKind::NotFound => return Ok(None),
        Err(e) if e.raw_os_error() == Some(libc::ELOOP) => {
            return Err(refused("it is a symbolic link".to_owned()));
        }
        Err(e) => return Err(io(e)),
    };
    let meta = file.metadata().map_err(io)?;
    if let Some(kind) = not_regular(&meta.file_type()) {
        return Err(refused(format!("it is {kind}, not a regular file")));
    }
    let too_large = |size: u64| refused(format!("it holds {size} bytes"));
    if meta.len() > MAX_TEAM_FILE_BYTES {
        return Err(too_large(meta.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    // Bounded even if the file grows while it is read.
    file.take(MAX_TEAM_FILE_BYTES + 1)
        .read_to_end(&mut bytes)
        .map_err(io)?;
    if bytes.len() as u64 > MAX_TEAM_FILE_BYTES {
        return Err(too_large(bytes.len() as u64));
    }
    Ok(Some(bytes))
}

/// What a file that is not a regular one is, in words.
fn not_regular(kind: &std::fs::FileType) -> Option<&'static str> {
    if kind.is_file() {
        None
    } else if kind.is_fifo() {
        Some("a FIFO")
    } else if kind.is_char_device() || kind.is_block_device() {
        Some("a device")
    } else if kind.is_socket() {
        Some("a socket")
    } else if kind.is_dir() {
        Some("a folder")
    } else {
        Some("not a file")
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::symlink;

    use super::*;

    fn refusal(path: &Path) -> String {
        match read(path) {
            Err(InboxError::Refused(Refused { reason, .. })) => reason,
            other => panic!("{}: not refused: {other:?}", path.display()),
        }
    }

    #[test]
    fn a_regular_file_is_read_and_a_missing_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("alice.json");
        assert!(read(&path).unwrap().is_none());
        fs::write(&path, "[]").unwrap();
        assert_eq!(read(&path).unwrap().unwrap(), b"[]");
    }

    #[test]
    fn a_fifo_a_device_link_an_outside_link_and_an_oversized_file_are_refused() {
        let dir = tempfile::tempdir().unwrap();
        let fifo = dir.path().join("fifo.json");
        let made = std::process::Command::new("mkfifo")
            .arg(&fifo)
            .status()
            .unwrap();
        assert!(made.success());
        // Opened without blocking, although no one will ever write to it.
        assert_eq!(refusal(&fifo), "it is a FIFO, not a regular file");

        let zero = dir.path().join("zero.json");
        symlink("/dev/zero", &zero).unwrap();
        assert_eq!(refusal(&zero), "it is a symbolic link");

        let outside = tempfile::tempdir().unwrap();
        let secret = outside.path().join("secret.json");
        fs::write(&secret, "[]").unwrap();
        let link = dir.path().join("link.json");
        symlink(&secret, &link).unwrap();
        assert_eq!(refusal(&link), "it is a symbolic link");

        let big = dir.path().join("big.json");
        let file = fs::File::create(&big).unwrap();
        file.set_len(MAX_TEAM_FILE_BYTES + 1).unwrap();
        assert_eq!(
            refusal(&big),
            format!("it holds {} bytes", MAX_TEAM_FILE_BYTES + 1)
        );
        let error = read(&big).unwrap_err().to_string();
        assert!(error.contains("at most 16 MiB"), "{error}");
    }
}
