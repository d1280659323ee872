//! The diagnostics the libraries log through `tracing`, written to stderr as plain lines.
//!
//! Stderr, never stdout: under `filebox mcp` stdout is the protocol. Which lines are written
//! is `FILEBOX_LOG`, else `RUST_LOG` (an `EnvFilter` spec such as `debug` or
//! `filebox_hub=debug`), else [`DEFAULT_FILTER`]: FileBox's own notices and warnings, as the
//! hub has always printed them, and nothing from the crates beneath it.

use std::fmt;

use tracing::{Event, Level, Subscriber};
use tracing_subscriber::EnvFilter;
use tracing_subscriber::fmt::format::Writer;
use tracing_subscriber::fmt::{FmtContext, FormatEvent, FormatFields, FormattedFields};
use tracing_subscriber::registry::LookupSpan;

use crate::cli::{Command, Invocation};
use crate::output;

/// The filter when neither variable is set: FileBox's crates at `info`, others silent.
const DEFAULT_FILTER: &str = "filebox=info";

/// The variables that choose the filter, the first one set wins.
const FILTER_VARIABLES: [&str; 2] = ["FILEBOX_LOG", "RUST_LOG"];

/// Install the subscriber for the rest of the process; `invocation` names the lines.
pub(crate) fn install(invocation: &Invocation) {
    let _ = tracing_subscriber::fmt()
        .with_env_filter(filter())
        .with_writer(std::io::stderr)
        .event_format(Plain {
            program: program(invocation),
        })
        .try_init();
}

/// The filter the environment asks for; a spec that does not parse is said, and the default
/// used.
fn filter() -> EnvFilter {
    let asked = FILTER_VARIABLES.iter().find_map(|name| {
        let spec = std::env::var(name).ok()?;
        (!spec.trim().is_empty()).then_some((name, spec))
    });
    if let Some((name, spec)) = asked {
        match EnvFilter::builder().parse(&spec) {
            Ok(filter) => return filter,
            Err(error) => output::warn(format!(
                "{name}={spec:?} is not a log filter ({error}); logging as {DEFAULT_FILTER:?} \
                 (e.g. {name}=debug or {name}=filebox_hub=debug)"
            )),
        }
    }
    EnvFilter::new(DEFAULT_FILTER)
}

/// What the lines start with: the command that runs, as the hub's lines always said it.
fn program(invocation: &Invocation) -> &'static str {
    match invocation {
        Invocation::Command(Command::Serve(_)) => "filebox serve",
        Invocation::Command(Command::Mcp(_)) => "filebox mcp",
        _ => "filebox",
    }
}

/// One plain line per event, as a person reads it (no time, no colour):
/// `filebox serve: federation{hub=laptop}: message key=value`; below `info`, or from a crate
/// that is not FileBox's, the level and the target come first
/// (`filebox mcp: debug rmcp::service::server: ...`).
struct Plain {
    program: &'static str,
}

impl<S, N> FormatEvent<S, N> for Plain
where
    S: Subscriber + for<'a> LookupSpan<'a>,
    N: for<'a> FormatFields<'a> + 'static,
{
    fn format_event(
        &self,
        context: &FmtContext<'_, S, N>,
        mut writer: Writer<'_>,
        event: &Event<'_>,
    ) -> fmt::Result {
        write!(writer, "{}: ", self.program)?;
        let metadata = event.metadata();
        // In tracing's order the more verbose levels are the greater ones.
        let ours = metadata.target().starts_with("filebox");
        if !ours || *metadata.level() > Level::INFO {
            let level = metadata.level().as_str().to_ascii_lowercase();
            write!(writer, "{level} {}: ", metadata.target())?;
        }
        for span in context
            .event_scope()
            .into_iter()
            .flat_map(|scope| scope.from_root())
        {
            write!(writer, "{}", span.name())?;
            if let Some(fields) = span.extensions().get::<FormattedFields<N>>()
                && !fields.is_empty()
            {
                write!(writer, "{{{fields}}}")?;
            }
            writer.write_str(": ")?;
        }
        context
            .field_format()
            .format_fields(writer.by_ref(), event)?;
        writeln!(writer)
    }
}
