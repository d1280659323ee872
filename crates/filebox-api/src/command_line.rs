//! The command-line form of verb arguments: the value parsers the clap derives in `args.rs`
//! name, so `filebox <verb>` parses each argument as the JSON surfaces deserialise it.
//!
//! Some values name something to read instead of giving it (`-` for standard input, a file
//! to attach): those parsers read it, at parse time. A read that fails is an [`InputError`],
//! which the binary reports as a failure (exit code 1), not a usage error. `send --file` is
//! read when the verb runs ([`file_text`]), after clap has refused `--file` beside a content.

use std::io::Read;
use std::path::{Path, PathBuf};

use clap::builder::{PossibleValuesParser, TypedValueParser};
use filebox_core::{Choice, Folder, MessageType};

use crate::args::{AttachmentArg, Recipients};

/// Something the command line named could not be read (a file, standard input, the current
/// directory): the command failed, the call was not malformed.
#[derive(Debug, thiserror::Error)]
#[error("{0}")]
pub struct InputError(String);

/// A value from one of the core's closed sets (folder, priority, ...): `--help` lists the
/// names, the same names the JSON Schema `enum` of the tools offers.
pub fn choice<T: Choice + Send + Sync>() -> impl TypedValueParser<Value = T> {
    PossibleValuesParser::new(T::VALUES.iter().map(|value| value.as_str()))
        .try_map(|name| T::parse_arg(&name))
}

/// A message type: ER, BR, ... or a custom upper-case word (`Feature` is taken as `FEATURE`).
pub fn message_type(value: &str) -> filebox_core::Result<MessageType> {
    MessageType::new(value)
}

/// Recipients as one word: an agent id, a comma list, `@all` or `@group`.
pub fn recipients(value: &str) -> Result<Recipients, std::convert::Infallible> {
    Ok(Recipients::One(value.to_owned()))
}

/// A message reference. A folder's name alone is refused: `filebox read inbox` forgot the
/// message, it does not name one (no message is called `inbox`).
pub fn message_reference(value: &str) -> Result<String, String> {
    match Folder::parse(value) {
        Some(folder) => Err(format!(
            "{folder} is a folder: give the message after it (filebox read {folder} <MESSAGE>)"
        )),
        None => Ok(value.to_owned()),
    }
}

/// Markdown given on the command line, or `-` for standard input.
pub fn text_or_stdin(value: &str) -> Result<String, InputError> {
    if value != "-" {
        return Ok(value.to_owned());
    }
    let mut bytes = Vec::new();
    std::io::stdin()
        .read_to_end(&mut bytes)
        .map_err(|e| InputError(format!("cannot read standard input: {e}")))?;
    utf8(bytes, "standard input")
}

/// The whole text of a file (`send --file PATH`).
pub fn file_text(path: &Path) -> filebox_core::Result<String> {
    let bytes = std::fs::read(path).map_err(|source| filebox_core::Error::Io {
        path: path.to_owned(),
        source,
    })?;
    utf8(bytes, &path.display().to_string())
        .map_err(|e| filebox_core::Error::invalid("content", path.display().to_string(), e.0))
}

/// A file to attach (`--attach FILE`), read whole.
pub fn attachment_file(value: &str) -> Result<AttachmentArg, InputError> {
    let path = Path::new(value);
    let name = path
        .file_name()
        .map(|name| name.to_string_lossy().into_owned())
        .ok_or_else(|| InputError(format!("{value}: not a file name")))?;
    Ok(AttachmentArg::from_bytes(&name, None, &read(path)?))
}

/// A directory as an absolute path, relative ones taken from the current directory (the
/// project a question is asked from: `--project`, by default `.`).
pub fn absolute_directory(value: &str) -> Result<String, InputError> {
    let cwd = std::env::current_dir()
        .map_err(|e| InputError(format!("cannot read the current directory: {e}")))?;
    let path = filebox_core::config::absolute(&PathBuf::from(value), &cwd);
    Ok(path.display().to_string())
}

fn read(path: &Path) -> Result<Vec<u8>, InputError> {
    std::fs::read(path).map_err(|e| InputError(format!("cannot read {}: {e}", path.display())))
}

fn utf8(bytes: Vec<u8>, source: &str) -> Result<String, InputError> {
    String::from_utf8(bytes).map_err(|e| {
        InputError(format!(
            "the content from {source} is not valid UTF-8 (first bad byte at offset {})",
            e.utf8_error().valid_up_to()
        ))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_folder_name_is_not_a_message() {
        assert!(message_reference("inbox").is_err());
        assert_eq!(message_reference("60bd0e69").unwrap(), "60bd0e69");
    }

    #[test]
    fn unreadable_input_names_what_it_could_not_read() {
        let error = file_text(Path::new("/nonexistent/body.md")).unwrap_err();
        assert!(
            error.to_string().contains("/nonexistent/body.md"),
            "{error}"
        );
        let error = utf8(vec![b'a', 0xff], "standard input").unwrap_err();
        assert!(error.to_string().contains("offset 1"), "{error}");
    }
}
