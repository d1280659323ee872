//! The verbs that write mail: send (new and reply, with idempotency keys), transitions,
//! annotations, timeline forks, mail from other tools and other machines; and what reads it
//! back whole: threads and the status report.

pub(crate) mod annotate;
pub(crate) mod foreign;
pub(crate) mod fork;
pub mod idempotency;
mod key_record;
pub(crate) mod reply;
pub(crate) mod send;
pub(crate) mod status;
pub(crate) mod thread;
pub(crate) mod transition;
pub mod travelled;
