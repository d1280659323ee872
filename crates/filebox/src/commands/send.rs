//! `filebox send <target> <type> <content>`: prints the new Message ID alone (`--json`: the
//! whole result), so a script can keep it.

use std::io::Read;
use std::path::PathBuf;

use anyhow::Context;
use filebox_api::verbs::SendMessage;
use filebox_api::{AttachmentArg, Recipients};

use super::{message_type, run_verb_as_text};
use crate::cli::{Global, SendArgs};
use crate::output::Outcome;

pub(crate) fn run(global: &Global, args: &SendArgs) -> anyhow::Result<Outcome> {
    let content = content(args)?;
    run_verb_as_text::<SendMessage>(
        global,
        filebox_api::SendArgs {
            to: Recipients::One(args.target.clone()),
            cc: args.cc.clone().map(Recipients::One),
            kind: message_type(&args.kind)?,
            title: args.title.clone(),
            content,
            reply_to: args.reply_to.clone(),
            priority: args.priority,
            source_type: args.source_type,
            reply_to_agent: args.reply_to_agent.clone(),
            attachments: None,
        },
        |sent| sent.id.clone(),
    )
}

/// The content argument, standard input for `-`, or `--file`; it must be UTF-8.
fn content(args: &SendArgs) -> anyhow::Result<String> {
    read_content(args.content.as_deref(), args.file.as_deref())
}

/// Files named by `--attach`, read whole.
pub(super) fn read_attachments(paths: &[PathBuf]) -> anyhow::Result<Vec<AttachmentArg>> {
    paths
        .iter()
        .map(|path| {
            let bytes =
                std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?;
            let name = path
                .file_name()
                .map(|n| n.to_string_lossy().into_owned())
                .unwrap_or_default();
            Ok(AttachmentArg::from_bytes(&name, None, &bytes))
        })
        .collect()
}

/// A content argument: the text, standard input for `-`, or a file; it must be UTF-8.
pub(super) fn read_content(
    content: Option<&str>,
    file: Option<&std::path::Path>,
) -> anyhow::Result<String> {
    let (bytes, source) = match (content, file) {
        (_, Some(path)) => (
            std::fs::read(path).with_context(|| format!("cannot read {}", path.display()))?,
            path.display().to_string(),
        ),
        (Some("-"), None) => {
            let mut bytes = Vec::new();
            std::io::stdin()
                .read_to_end(&mut bytes)
                .context("cannot read standard input")?;
            (bytes, "standard input".to_owned())
        }
        (Some(text), None) => return Ok(text.to_owned()),
        (None, None) => anyhow::bail!("give the content, `-` for standard input, or --file PATH"),
    };
    String::from_utf8(bytes).map_err(|e| {
        anyhow::anyhow!(
            "the content from {source} is not valid UTF-8 (first bad byte at offset {})",
            e.utf8_error().valid_up_to()
        )
    })
}
