//! Moves of a message decided by one rename, and their recovery's two directions.
//!
//! A move (resolve, reply, ...) is a small two-phase commit inside `tmp/`:
//! 1. `{op}.intent` records where the message comes from and where its new versions go;
//! 2. the message is claimed by renaming it to `{op}.claim`: of two processes, exactly one
//!    rename succeeds, the other finds the file gone and reports "already handled";
//! 3. the new versions are staged as `{op}.{n}.new` in each destination mailbox's `tmp/`;
//! 4. renaming `{op}.intent` to `{op}.commit` is the commit point;
//! 5. the staged files are renamed into place, then the claim and the commit record removed.
//!
//! Recovery rolls an uncommitted move back (the claim returns to its folder) and a committed
//! one forward (the remaining staged files are published), so a message is never lost and
//! never left in two folders. A new version under the same name needs no claim: it is swapped
//! in by one exchange of names (`rewrite.rs`).

use std::ffi::OsStr;
use std::fs::{self, File};
use std::io::{self, ErrorKind};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use super::read::{read_regular, refuse_link};
use super::staging::{STAGED, Staged, mailbox_of_tmp, op_id, same_file};
use crate::error::{IoContext, Result};
use crate::fs::beneath::{self, Place};
use crate::fs::durable_names::{NameChanges, sync_dir};
use crate::store::journal::{Kind, changing};

pub(super) const INTENT: &str = "intent";
pub(super) const COMMIT: &str = "commit";
const CLAIM: &str = "claim";
const NEW: &str = "new";

/// Where one new version of a moved message goes.
pub(crate) struct Destination {
    /// The destination mailbox's `tmp/` (staging must be on the destination's file system).
    pub(crate) tmp: PathBuf,
    /// The folder it is published into.
    pub(crate) dir: PathBuf,
    pub(crate) name: String,
}

/// What a move is about to do, as written to `{op}.intent`.
pub(super) struct Intent {
    pub(super) origin: PathBuf,
    pub(super) claim: PathBuf,
    /// (staged file, final path) pairs.
    pub(super) outputs: Vec<(PathBuf, PathBuf)>,
}

impl Intent {
    /// NUL-separated paths: a path can hold any byte but NUL.
    pub(super) fn encode(&self) -> Vec<u8> {
        let mut out = Vec::new();
        let paths = [&self.origin, &self.claim]
            .into_iter()
            .chain(self.outputs.iter().flat_map(|(s, d)| [s, d]));
        for path in paths {
            out.extend_from_slice(path.as_os_str().as_bytes());
            out.push(0);
        }
        out
    }

    pub(super) fn decode(bytes: &[u8]) -> Option<Intent> {
        let mut parts = bytes
            .split(|b| *b == 0)
            .filter(|p| !p.is_empty())
            .map(|p| PathBuf::from(OsStr::from_bytes(p)));
        let origin = parts.next()?;
        let claim = parts.next()?;
        let rest: Vec<PathBuf> = parts.collect();
        if !rest.len().is_multiple_of(2) {
            return None;
        }
        let outputs = rest
            .chunks(2)
            .map(|c| (c[0].clone(), c[1].clone()))
            .collect();
        Some(Intent {
            origin,
            claim,
            outputs,
        })
    }
}

/// The outcome of [`move_message`].
pub(crate) enum Moved {
    Done,
    /// The origin was gone when claimed: another process got there first.
    Gone,
}

/// Move the message at `origin` to `destinations`, each receiving the bytes `rewrite`
/// returns for it (same order). `rewrite` gets the claimed file's bytes; if it fails, the
/// message goes back where it was and the error is returned.
pub(crate) fn move_message(
    tmp: &Path,
    origin: &Path,
    destinations: &[Destination],
    rewrite: impl FnOnce(&[u8]) -> Result<Vec<Vec<u8>>>,
) -> Result<Moved> {
    let op = op_id();
    let intent = Intent {
        origin: origin.to_owned(),
        claim: tmp.join(format!("{op}.{CLAIM}")),
        outputs: destinations
            .iter()
            .enumerate()
            .map(|(n, d)| (d.tmp.join(format!("{op}.{n}.{NEW}")), d.dir.join(&d.name)))
            .collect(),
    };
    // Each step's names must be on disk before the next step's: the intent before the claim,
    // the claim and the staged versions before the commit, the commit before the published
    // versions; the last folder's fsync makes the move durable (`durable_names.rs`).
    let mut names = NameChanges::under(tmp);
    // 1. Record the intent, locked for as long as this process works on it.
    let mailbox = mailbox_of_tmp(tmp);
    let staged = Staged::create(
        mailbox,
        tmp.join(format!("{op}.{STAGED}")),
        &intent.encode(),
    )?;
    let intent_path = tmp.join(format!("{op}.{INTENT}"));
    let intent_place = Place::new(mailbox, &intent_path);
    beneath::rename(Place::new(mailbox, &staged.path), intent_place).at(&intent_path)?;
    names.changed(tmp)?;
    let lock = staged.file;

    // 2. Claim: the one rename that decides which process handles the message.
    let claim = || beneath::rename(Place::file(origin), Place::new(mailbox, &intent.claim));
    match changing(origin, Kind::Removed, claim) {
        Ok(()) => {}
        Err(e) if e.kind() == ErrorKind::NotFound => {
            let _ = beneath::remove(intent_place);
            return Ok(Moved::Gone);
        }
        Err(e) => {
            let _ = beneath::remove(intent_place);
            return Err(refuse_link(origin, e));
        }
    }
    if let Some(dir) = origin.parent() {
        names.changed(dir)?;
    }

    // 3. Stage the new versions; on any failure, roll back.
    let staged = read_regular(&intent.claim)
        .and_then(|bytes| rewrite(&bytes))
        .and_then(|versions| stage_all(&intent, &versions, &mut names));
    let staged_files = match staged {
        Ok(files) => files,
        Err(e) => {
            // If the message could not be put back, the intent stays for the next recovery.
            if roll_back(&intent) {
                let _ = beneath::remove(intent_place);
            }
            return Err(e);
        }
    };

    // 4. Commit.
    let commit_path = tmp.join(format!("{op}.{COMMIT}"));
    let commit_place = Place::new(mailbox, &commit_path);
    beneath::rename(intent_place, commit_place).at(&commit_path)?;
    names.changed(tmp)?;

    // 5. Publish, then forget the claim.
    roll_forward(&intent, &mut names)?;
    drop(staged_files);
    let _ = beneath::remove(commit_place);
    drop(lock);
    Ok(Moved::Done)
}

/// Stage each new version at its place in the intent. A version with the same bytes as one
/// staged before (a reply's copies) is a second link to that file: one file to fsync, not one
/// per destination.
fn stage_all(intent: &Intent, versions: &[Vec<u8>], names: &mut NameChanges) -> Result<Vec<File>> {
    let mut files = Vec::with_capacity(versions.len());
    for (n, ((path, _), bytes)) in intent.outputs.iter().zip(versions).enumerate() {
        let to = Place::file(path);
        let same = versions[..n].iter().position(|earlier| earlier == bytes);
        let linked = same.is_some_and(|earlier| {
            beneath::link(Place::file(&intent.outputs[earlier].0), to).is_ok()
        });
        if !linked {
            files.push(Staged::create(to.mailbox, path.clone(), bytes)?.file);
        }
        if let Some(dir) = path.parent() {
            names.changed(dir)?;
        }
    }
    Ok(files)
}

/// Undo an uncommitted move: the claimed file returns to its folder, staged files go.
/// Returns whether the message is back in a folder; if not (the disk refused), the claim and
/// its record stay for the next recovery to try again: nothing is deleted that is not safe.
pub(super) fn roll_back(intent: &Intent) -> bool {
    for (staged, _) in &intent.outputs {
        let _ = beneath::remove(Place::file(staged));
    }
    if fs::symlink_metadata(&intent.claim).is_err() {
        return true;
    }
    let aside = recovered_name(&intent.origin, &intent.claim);
    // Never over another file: if the origin name was taken meanwhile, what is there stays, and
    // the claimed version is kept beside it under a name of its own. A name that already holds
    // the claimed file is the work of an earlier recovery killed halfway (where the claim had to
    // be linked, then unlinked): the message is back, and putting it anywhere else would show
    // it twice.
    let restored = if same_file(&intent.claim, &intent.origin) || same_file(&intent.claim, &aside) {
        Ok(())
    } else {
        match put_back(&intent.claim, &intent.origin) {
            Err(e) if e.kind() == ErrorKind::AlreadyExists => put_back(&intent.claim, &aside),
            other => other,
        }
    };
    if restored.is_err() {
        return false;
    }
    let _ = beneath::remove(Place::file(&intent.claim));
    if let Some(dir) = intent.origin.parent() {
        let _ = sync_dir(dir);
    }
    true
}

/// Give the claimed file the name `to` unless that name exists (`ErrorKind::AlreadyExists`).
/// One `renameat2(RENAME_NOREPLACE)` where the file system has it, so the message never has
/// two names (a claim left beside a restored message could be restored again after a mover
/// took the message on); elsewhere a link, which the caller's unlink of the claim completes.
pub(super) fn put_back(claim: &Path, to: &Path) -> io::Result<()> {
    changing(to, Kind::Added, || {
        beneath::rename_no_replace(Place::file(claim), Place::file(to))
    })
}

/// `…-60bd0e69.md` → `…-60bd0e69.recovered-<op>.md`: still a message file, never a clash.
pub(super) fn recovered_name(origin: &Path, claim: &Path) -> PathBuf {
    let op = claim
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    let stem = origin
        .file_stem()
        .map(|s| s.to_string_lossy().into_owned())
        .unwrap_or_default();
    origin.with_file_name(format!("{stem}.recovered-{op}.md"))
}

/// Finish a committed move: publish what is still staged, make it durable, then drop the
/// claim.
pub(super) fn roll_forward(intent: &Intent, names: &mut NameChanges) -> Result<()> {
    for (staged, dest) in &intent.outputs {
        let publish = || beneath::rename(Place::file(staged), Place::file(dest));
        // A move onto the message's own name is a rewrite in place.
        let kind = match *dest == intent.origin {
            true => Kind::Rewritten,
            false => Kind::Added,
        };
        match changing(dest, kind, publish) {
            Ok(()) => {}
            Err(e) if e.kind() == ErrorKind::NotFound => {} // published before a crash
            Err(e) => return Err(refuse_link(dest, e)),
        }
        if let Some(dir) = dest.parent() {
            names.changed(dir)?;
        }
    }
    names.sync()?;
    let _ = beneath::remove(Place::file(&intent.claim));
    Ok(())
}
