//! Reading a file of a team's folder (an inbox, the roster): whatever sits there was put there
//! by another program, so it is read through [`ConfinedFile`] beneath the teams folder: no
//! link followed at the file nor at a folder on the way (a linked team folder or `inboxes/`
//! is refused like a linked inbox), nothing opened that is not a regular file (a FIFO is never
//! waited on), and at most [`MAX_TEAM_FILE_BYTES`] read, from the handle that was checked.
//! Anything else is refused with the reason and left as it is.

use std::path::Path;

use filebox_core::confined::{self, ConfinedFile, Kind};

use super::inbox_error::{InboxError, MAX_TEAM_FILE_BYTES, Refused};

/// The bytes of the team file at `path`, beneath the teams folder `root`; `None` when neither
/// it nor a folder on the way exists.
pub(crate) fn read(root: &Path, path: &Path) -> Result<Option<Vec<u8>>, InboxError> {
    match ConfinedFile::new(root, path).read(MAX_TEAM_FILE_BYTES) {
        Ok(contents) => Ok(contents.map(|c| c.bytes)),
        Err(refused) => Err(self::refused(refused)),
    }
}

/// A confined file's refusal (of a read or a write) in the bridge's words: the path as it is,
/// the reason short, a folder on the way that is not one named with the file it leads to.
pub(crate) fn refused(refused: confined::Refused) -> InboxError {
    let (path, reason) = match refused {
        confined::Refused::Io { path, source } => return InboxError::Io { path, source },
        confined::Refused::Link { path } => (path, "it is a symbolic link".to_owned()),
        confined::Refused::NotRegular { path, kind } => {
            (path, format!("it is {}, not a regular file", words(kind)))
        }
        confined::Refused::NotFolder { path, file } => (
            path,
            format!("it is not a folder, but on the way to {}", file.display()),
        ),
        confined::Refused::TooLarge { path, size, .. } => (path, format!("it holds {size} bytes")),
    };
    InboxError::Refused(Refused { path, reason })
}

/// What a file that is not a regular one is, in words.
fn words(kind: Kind) -> &'static str {
    match kind {
        Kind::Fifo => "a FIFO",
        Kind::CharacterDevice | Kind::BlockDevice => "a device",
        Kind::Socket => "a socket",
        Kind::Folder => "a folder",
        Kind::Unknown => "not a file",
    }
}

#[cfg(test)]
mod tests {
    use std::fs;
    use std::os::unix::fs::symlink;

    use super::*;

    /// A read beneath the folder holding `path`.
    fn read_in(path: &Path) -> Result<Option<Vec<u8>>, InboxError> {
        read(path.parent().unwrap(), path)
    }

    fn refusal(path: &Path) -> String {
        match read_in(path) {
            Err(InboxError::Refused(Refused { reason, .. })) => reason,
            other => panic!("{}: not refused: {other:?}", path.display()),
        }
    }

    #[test]
    fn a_regular_file_is_read_and_a_missing_one_is_none() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("alice.json");
        assert!(read_in(&path).unwrap().is_none());
        fs::write(&path, "[]").unwrap();
        assert_eq!(read_in(&path).unwrap().unwrap(), b"[]");
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
        let error = read_in(&big).unwrap_err().to_string();
        assert!(error.contains("at most 16 MiB"), "{error}");
    }

    #[test]
    fn a_linked_folder_on_the_way_is_refused_and_what_it_points_to_unread() {
        let dir = tempfile::tempdir().unwrap();
        let outside = tempfile::tempdir().unwrap();
        fs::write(outside.path().join("alice.json"), "[]").unwrap();
        let team = dir.path().join("team");
        fs::create_dir(&team).unwrap();
        symlink(outside.path(), team.join("inboxes")).unwrap();
        let path = team.join("inboxes/alice.json");
        match read(dir.path(), &path) {
            Err(InboxError::Refused(refused)) => assert_eq!(
                (refused.path, refused.reason.as_str()),
                (team.join("inboxes"), "it is a symbolic link")
            ),
            other => panic!("not refused: {other:?}"),
        }
    }
}
