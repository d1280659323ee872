//! One agent's mailbox on disk: its folders and listings, the copies of a message and which
//! of them speaks for it, the attachments stored beside messages, and what a copy's folder
//! says of its status.

pub mod attachment;
pub mod copy;
mod folders;
pub(crate) mod parallel;
mod status;

pub use folders::{Envelope, Listing, Mailbox, MessageRef, Problem};
pub(crate) use folders::{
    describe_folders, listed_header, listing_time, most_complete, parse_bytes, problem,
    read_message,
};
pub use status::Status;
