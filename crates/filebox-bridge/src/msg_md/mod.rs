//! Message files (the textcase project's Message File format, its `reqs/REQ010.md`): `.msg.md`
//! transcripts in percent notation, and ordinary `.md` files whose last section holds the
//! cells. `attrs` reads and writes footnote metadata, `cell` a cell, `transcript` a whole file,
//! `speaker` who speaks in a cell, `lineage` the headers and attributes both directions agree
//! on; `export` writes a FileBox thread, `import` reads a file into FileBox mail.

mod attrs;
mod cell;
mod export;
mod import;
mod lineage;
#[cfg(test)]
mod round_trip_tests;
mod speaker;
mod transcript;

use std::path::PathBuf;

pub use attrs::{Attr, Note};
pub use cell::{Cell, Heading, History, IdShape, Stream};
pub use export::export;
pub use import::{ImportResult, ImportedCell, import};
pub use transcript::{FileKind, PresetAgent, Transcript, TranscriptError};

/// Why an export or import failed.
#[derive(Debug, thiserror::Error)]
pub enum MsgMdError {
    #[error(transparent)]
    Core(#[from] filebox_core::Error),
    #[error(transparent)]
    Transcript(#[from] TranscriptError),
    #[error("{path}: {source}")]
    Io {
        path: PathBuf,
        source: std::io::Error,
    },
    #[error("{0}: not UTF-8 text")]
    NotUtf8(PathBuf),
    #[error("{0}: no `# %%` or `# %%%` cell to import")]
    NoCells(PathBuf),
    #[error("a message of the thread vanished while exporting: {0}")]
    Vanished(String),
    #[error("the transcript would not read back as written ({0}); nothing was written")]
    WouldNotReadBack(String),
}
