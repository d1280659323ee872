//! What every benchmark may be told on the command line: `main` parses it, each benchmark's
//! `run(&Options)` reads it.

use std::path::PathBuf;

/// What every benchmark may be told on the command line.
pub(crate) struct Options {
    /// Where temp mailboxes go (`--dir`; default: the system temp folder).
    pub(crate) dir: Option<PathBuf>,
    /// Scale the message counts (`--quick` runs a tenth, to check the benchmarks work).
    pub(crate) quick: bool,
    /// How long `soak` runs (`--minutes`).
    pub(crate) minutes: Option<u64>,
    /// Where `soak` writes its SVG chart (`--chart`).
    pub(crate) chart: Option<PathBuf>,
    /// Another build's `filebox` (`--baseline FILEBOX`, e.g. main's) that `send`, `hub`,
    /// `federation`, `growth` and `scale` measure beside this one's.
    pub(crate) baseline: Option<PathBuf>,
    /// The mailbox sizes `scale` measures (`--sizes 10000,100000`; default 10k, 100k, 1M).
    pub(crate) sizes: Option<Vec<usize>>,
}
