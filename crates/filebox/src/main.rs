//! `filebox`: the one binary. Argument parsing, output and exit codes; the work is in the
//! libraries.

mod cli;
mod commands;
mod logging;
mod output;

use std::process::ExitCode;

/// Outcome code of a command that ran and failed.
const FAILURE: u8 = 1;
/// Outcome code of a usage error (clap's).
const USAGE: u8 = 2;

fn main() -> ExitCode {
    // `--json` anywhere asks for errors as JSON too, usage errors included.
    let json = std::env::args_os().any(|arg| arg == "--json");
    let (global, invocation) = match cli::parse() {
        Ok(parsed) => parsed,
        Err(error) => return usage_failure(&error, json),
    };
    logging::install(&invocation);
    match commands::run(&global, invocation) {
        Ok(outcome) => outcome.exit_code(),
        Err(error) if output::is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => match error.downcast_ref::<clap::Error>() {
            Some(usage) => usage_failure(usage, json),
            None => {
                output::error(json, &error);
                ExitCode::from(FAILURE)
            }
        },
    }
}

/// A usage error: clap's text (or, with `--json`, the JSON error), exit code 2; `--help` and
/// `--version` are printed as they are. An input the command line named and that could not
/// be read (a file, standard input) is a failure instead (exit code 1).
fn usage_failure(error: &clap::Error, json: bool) -> ExitCode {
    use clap::error::ErrorKind;
    if let Some(unreadable) = cli::unreadable_input(error) {
        output::error(json, &anyhow::anyhow!("{unreadable}"));
        return ExitCode::from(FAILURE);
    }
    let shows_text = matches!(
        error.kind(),
        ErrorKind::DisplayHelp
            | ErrorKind::DisplayVersion
            | ErrorKind::DisplayHelpOnMissingArgumentOrSubcommand
    );
    if json && !shows_text {
        let text = error.render().to_string();
        let message = text.strip_prefix("error: ").unwrap_or(&text);
        let message = message
            .split("\n\nFor more information")
            .next()
            .unwrap_or(message);
        output::json_error("usage", message, None);
        ExitCode::from(USAGE)
    } else {
        // clap prints help to stdout and errors to stderr, and knows the exit code.
        let _ = error.print();
        ExitCode::from(u8::try_from(error.exit_code()).unwrap_or(USAGE))
    }
}
