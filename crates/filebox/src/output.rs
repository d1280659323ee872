//! Writing results: text for people, `--json` for programs; broken pipes are success.

use std::io::{self, Write};

use filebox_api::advice::{Surface, next_step};
use serde::Serialize;

/// How a command ended when it did not fail outright.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub(crate) enum Outcome {
    Success,
    /// It did its job, but skipped something it reported on stderr (exit code 1).
    Partial,
    /// `wait` gave up at its timeout with nothing new (exit code 3, distinct from failures).
    TimedOut,
    /// A hook's "blocking" result (exit code 2): the host hands stderr to the model, and a
    /// Claude Code background hook wakes the idle session with it.
    Wake,
}

impl Outcome {
    pub(crate) fn exit_code(self) -> std::process::ExitCode {
        match self {
            Outcome::Success => std::process::ExitCode::SUCCESS,
            Outcome::Partial => std::process::ExitCode::from(1),
            Outcome::TimedOut => std::process::ExitCode::from(3),
            Outcome::Wake => std::process::ExitCode::from(2),
        }
    }
}

/// Print a value as pretty JSON followed by a newline.
pub(crate) fn json<T: Serialize>(value: &T) -> anyhow::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    serde_json::to_writer_pretty(&mut out, value)?;
    writeln!(out)?;
    out.flush()?;
    Ok(())
}

/// Print lines of text (buffered: stdout alone would make a system call per line).
pub(crate) fn lines<I: IntoIterator<Item = S>, S: AsRef<str>>(lines: I) -> anyhow::Result<()> {
    let mut out = io::BufWriter::new(io::stdout().lock());
    for line in lines {
        writeln!(out, "{}", line.as_ref())?;
    }
    out.flush()?;
    Ok(())
}

/// Print text, ending it with a newline if it has none (nothing for empty text).
pub(crate) fn text_line(text: &str) -> anyhow::Result<()> {
    if text.is_empty() || text.ends_with('\n') {
        self::text(text)
    } else {
        lines([text])
    }
}

/// Print warnings on stderr: `Partial` (exit code 1) when there are some.
pub(crate) fn warnings(warnings: &[String]) -> Outcome {
    for warning in warnings {
        warn(warning);
    }
    if warnings.is_empty() {
        Outcome::Success
    } else {
        Outcome::Partial
    }
}

/// Print text as is.
pub(crate) fn text(text: &str) -> anyhow::Result<()> {
    let mut out = io::stdout().lock();
    out.write_all(text.as_bytes())?;
    out.flush()?;
    Ok(())
}

/// Print `value` as JSON when asked, else the text lines `render` makes.
pub(crate) fn either<T: Serialize>(
    as_json: bool,
    value: &T,
    render: impl FnOnce(&T) -> Vec<String>,
) -> anyhow::Result<()> {
    if as_json {
        json(value)
    } else {
        lines(render(value))
    }
}

/// A note on stderr: something the caller may not expect, which changes nothing about the
/// outcome (the exit code stays 0).
pub(crate) fn note(message: impl AsRef<str>) {
    eprintln!("filebox: note: {}", message.as_ref());
}

/// A warning on stderr.
pub(crate) fn warn(message: impl AsRef<str>) {
    eprintln!("filebox: warning: {}", message.as_ref());
}

pub(crate) fn is_broken_pipe(error: &anyhow::Error) -> bool {
    error.chain().any(|cause| {
        cause
            .downcast_ref::<io::Error>()
            .is_some_and(|e| e.kind() == io::ErrorKind::BrokenPipe)
            || cause
                .downcast_ref::<serde_json::Error>()
                .and_then(|e| e.io_error_kind())
                == Some(io::ErrorKind::BrokenPipe)
    })
}

/// A failed command's error on stderr: `filebox: error: ...`, or with `--json` one line
/// `{"error": {"kind": ..., "message": ..., "advice": ...}}` (`kind` as the MCP tools and
/// JSON-RPC name it, `failed` for errors outside the mailbox core; `advice`, the next step in
/// `filebox` commands, for core errors).
pub(crate) fn error(as_json: bool, error: &anyhow::Error) {
    let message = describe(error);
    if as_json {
        let core = error
            .chain()
            .find_map(|cause| cause.downcast_ref::<filebox_core::Error>());
        match error
            .chain()
            .find_map(|cause| cause.downcast_ref::<crate::commands::HubError>())
        {
            // The hub's refusal or failure, as it named it.
            Some(hub) => json_error(&hub.kind, &message, hub.advice.clone()),
            None => {
                let kind = core.map_or("failed", filebox_api::advice::kind);
                let advice = core.map(|core| next_step(core, Surface::CommandLine));
                json_error(kind, &message, advice);
            }
        }
    } else {
        eprintln!("filebox: error: {message}");
    }
}

/// `{"error": {"kind": ..., "message": ..., "advice"?: ...}}` on one line of stderr.
pub(crate) fn json_error(kind: &str, message: &str, advice: Option<String>) {
    let mut error = serde_json::json!({ "kind": kind, "message": message.trim_end() });
    if let Some(advice) = advice {
        error["advice"] = advice.into();
    }
    eprintln!("{}", serde_json::json!({ "error": error }));
}

/// One sentence: the error and those of its causes it does not already quote.
pub(crate) fn describe(error: &anyhow::Error) -> String {
    filebox_api::describe(error.as_ref())
}
