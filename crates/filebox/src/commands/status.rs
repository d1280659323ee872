//! `filebox status <message>`.

use filebox_api::verbs;

use super::mailroom;
use crate::cli::{Global, StatusArgs};
use crate::output::{self, Outcome};

pub(crate) fn run(global: &Global, args: &StatusArgs) -> anyhow::Result<Outcome> {
    let result = verbs::status(
        &mailroom(global)?,
        &filebox_api::StatusArgs {
            id: args.message.clone(),
        },
    )?;
    output::either(global.json, &result, |s| {
        let mut lines = vec![
            format!("{} {}: {}", s.id, s.title, s.status),
            format!("  folder: {} ({})", s.folder, s.file),
            format!(
                "  type: {}  from: {}  source: {}  priority: {}",
                s.kind, s.sender, s.source_type, s.priority
            ),
            format!("  thread: {}", s.thread),
        ];
        if let Some(reply_to) = &s.reply_to {
            lines.push(format!("  replies go to: {reply_to}"));
        }
        for r in &s.recipients {
            let folder = r.folder.as_deref().unwrap_or("no copy");
            lines.push(format!("  {}: {} ({folder})", r.agent, r.status));
        }
        lines
    })?;
    Ok(Outcome::Success)
}
