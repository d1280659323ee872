//! The floor a durable delivery is measured against: a file written, fsynced and renamed
//! into place with no FileBox around it (`send`'s and `hub`'s baselines).

use std::fs::{self, File};
use std::io::Write;
use std::path::Path;

use crate::fixture::Result;

/// How [`publish_bare`] makes the new name durable.
#[derive(Clone, Copy)]
pub(crate) enum DirSync {
    /// Its own fsync of the directory.
    Private,
    /// `filebox_core::group_commit::sync_dir`, shared with concurrent writers in this process.
    Grouped,
}

/// The floor of a durable delivery: write `name.part` in `tmp`, fsync it, rename it to
/// `dir/name.md`, fsync `dir`.
pub(crate) fn publish_bare(
    tmp: &Path,
    dir: &Path,
    name: &str,
    bytes: &[u8],
    sync: DirSync,
) -> Result<()> {
    let staged = tmp.join(format!("{name}.part"));
    let mut file = File::create(&staged).map_err(|e| format!("{}: {e}", staged.display()))?;
    file.write_all(bytes)?;
    file.sync_all()?;
    fs::rename(&staged, dir.join(format!("{name}.md")))
        .map_err(|e| format!("rename {}: {e}", staged.display()))?;
    match sync {
        DirSync::Private => File::open(dir)?.sync_all()?,
        DirSync::Grouped => filebox_core::group_commit::sync_dir(dir)?,
    }
    Ok(())
}
