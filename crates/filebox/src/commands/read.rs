//! `filebox read [folder] <message>`: without a folder, every folder is looked in, inbox first.

use clap::error::ErrorKind;
use filebox_api::verbs::ReadMessage;
use filebox_core::{Choice, Folder};

use super::run_verb;
use crate::cli::{self, Global, ReadArgs};
use crate::output::Outcome;

pub(crate) fn run(global: &Global, args: &ReadArgs) -> anyhow::Result<Outcome> {
    // clap gives one or two words: [FOLDER] MESSAGE.
    let (message, folder) = match args.words.as_slice() {
        [folder, message] => (message.clone(), Some(folder_named(folder)?)),
        [only] if Folder::parse(only).is_some() => {
            return Err(cli::usage_error(
                "read",
                ErrorKind::MissingRequiredArgument,
                format!("give the message to read after the folder: filebox read {only} <MESSAGE>"),
            ));
        }
        words => (words.concat(), None),
    };
    run_verb::<ReadMessage>(
        global,
        filebox_api::ReadArgs {
            id: message,
            folder,
        },
    )
}

/// The folder named before the message; anything else is a usage error.
fn folder_named(name: &str) -> anyhow::Result<Folder> {
    Folder::parse(name).ok_or_else(|| {
        cli::usage_error(
            "read",
            ErrorKind::InvalidValue,
            format!(
                "invalid folder {name:?} in `filebox read [FOLDER] <MESSAGE>`: expected {}",
                Folder::listed()
            ),
        )
    })
}
