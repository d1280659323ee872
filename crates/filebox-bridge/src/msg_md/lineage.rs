//! What FileBox writes into a message file and its mail so that a thread survives the trip:
//! the headers naming where imported mail came from, and the footnote attributes giving each
//! cell its place in the thread. Export writes them, import reads them back.

/// The header naming the file a thread was imported from (on its first message).
pub(super) const TRANSCRIPT_HEADER: &str = "Transcript";
/// The header carrying a cell's id (on each cell's message).
pub(super) const CELL_HEADER: &str = "Transcript Cell";

/// The footnote attributes that give a cell its place in the thread, which import rebuilds:
/// the node it answers or forks from, a fork's reason, and whether a fork made it obsolete.
pub(super) const LINEAGE: [&str; 3] = ["in_reply_to", "fork_reason", "obsolete"];
