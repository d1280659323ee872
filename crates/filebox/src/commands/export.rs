//! `filebox export THREAD --format msg.md [-o FILE]` and `filebox import FILE [--to AGENT]`.

use std::io::Write;
use std::path::Path;

use anyhow::Context;
use filebox_bridge::msg_md;
use filebox_core::AgentId;
use serde::Serialize;

use super::acting::mailroom;
use crate::cli::{ExportArgs, Global, ImportArgs, TranscriptFormat};
use crate::output::{self, Outcome};

/// What `export --json` prints.
#[derive(Serialize)]
struct ExportResult<'a> {
    format: &'static str,
    #[serde(skip_serializing_if = "Option::is_none")]
    file: Option<String>,
    /// The transcript itself when no file was named.
    #[serde(skip_serializing_if = "Option::is_none")]
    text: Option<&'a str>,
    bytes: usize,
}

pub(crate) fn run(global: &Global, args: &ExportArgs) -> anyhow::Result<Outcome> {
    let TranscriptFormat::MsgMd = args.format;
    let text = msg_md::export(&mailroom(global)?, &args.thread)?;
    if let Some(path) = &args.output {
        write_whole(path, text.as_bytes(), args.force)?;
    }
    if global.json {
        output::json(&ExportResult {
            format: "msg.md",
            file: args.output.as_ref().map(|p| p.display().to_string()),
            text: args.output.is_none().then_some(text.as_str()),
            bytes: text.len(),
        })?;
    } else if args.output.is_none() {
        output::text(&text)?;
    }
    Ok(Outcome::Success)
}

/// Write a file so that a reader sees the old content or the new, never a part: a temporary
/// file beside it, flushed, then linked in under its name (which fails if the name is taken),
/// or with `replace` renamed over it.
fn write_whole(path: &Path, bytes: &[u8], replace: bool) -> anyhow::Result<()> {
    let name = path
        .file_name()
        .with_context(|| format!("{}: not a file name", path.display()))?;
    let staged = path.with_file_name(format!(
        ".{}.{}.tmp",
        name.to_string_lossy(),
        std::process::id()
    ));
    let written = std::fs::File::create(&staged).and_then(|mut file| {
        file.write_all(bytes)?;
        file.sync_all()
    });
    let published = written.and_then(|()| match replace {
        true => std::fs::rename(&staged, path),
        false => std::fs::hard_link(&staged, path),
    });
    let _ = std::fs::remove_file(&staged);
    match published {
        Err(e) if e.kind() == std::io::ErrorKind::AlreadyExists => anyhow::bail!(
            "{} exists: nothing was written; pass --force to replace it",
            path.display()
        ),
        Err(e) => Err(e).with_context(|| format!("cannot write {}", path.display())),
        Ok(()) => Ok(()),
    }
}

pub(crate) fn run_import(global: &Global, args: &ImportArgs) -> anyhow::Result<Outcome> {
    let to = args.to.as_deref().map(AgentId::new).transpose()?;
    let mailroom = mailroom(global)?;
    if let Some(agent) = &to {
        mailroom.config().agent(agent)?;
    }
    let result = msg_md::import(&mailroom, &args.file, to.as_ref())?;
    output::either(global.json, &result, |r| r.ids.clone())?;
    Ok(Outcome::Success)
}
