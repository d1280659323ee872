//! `filebox`: the one binary. Argument parsing, output and exit codes; the work is in the
//! libraries.

mod cli;
mod commands;
mod output;

use std::process::ExitCode;

use clap::Parser;

/// Outcome code of a command that ran and failed (a usage error is 2, from clap).
const FAILURE: u8 = 1;

fn main() -> ExitCode {
    let cli = cli::Cli::parse();
    match commands::run(cli) {
        Ok(outcome) => outcome.exit_code(),
        Err(error) if output::is_broken_pipe(&error) => ExitCode::SUCCESS,
        Err(error) => {
            eprintln!("filebox: error: {}", output::describe(&error));
            ExitCode::from(FAILURE)
        }
    }
}
